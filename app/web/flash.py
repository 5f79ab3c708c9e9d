"""A message for the next page, carried by the session (post/redirect/get without JavaScript)."""

from __future__ import annotations

# The session key of a refused answer: {"lesson", "question", "message", "typed"}.
FLASH_KEY = "aviso"
