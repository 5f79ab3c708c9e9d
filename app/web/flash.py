"""A message for the next page, carried by the session (post/redirect/get without JavaScript)."""

from __future__ import annotations

# The session key of a refused answer: {"lesson", "question", "message", "typed"}.
FLASH_KEY = "aviso"
# The session key of a one-line confirmation for the next page (a class joined): a string.
NOTICE_KEY = "recado"
