"""HTTP layer: one router per feature."""
