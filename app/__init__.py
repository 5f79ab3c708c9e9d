"""curso: a pt-BR course on LLM inference engines, served with FastAPI."""
