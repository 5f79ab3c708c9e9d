"""Structured JSON request logs: request id, hashed learner id, never answer content."""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from datetime import UTC, datetime

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starsessions import SessionNotLoaded

log = logging.getLogger("curso.request")


class JsonFormatter(logging.Formatter):
    """Format a record whose message is a dict as one JSON line, with the worker's ``pid``."""

    def format(self, record: logging.LogRecord) -> str:
        payload = record.msg if isinstance(record.msg, dict) else {"message": record.getMessage()}
        stamp = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        head = {"ts": stamp, "level": record.levelname.lower(), "pid": record.process}
        return json.dumps({**head, **payload}, ensure_ascii=False)


def configure_logging() -> None:
    """Send ``curso.*`` logs to stderr as JSON lines (once per process)."""
    root = logging.getLogger("curso")
    if any(isinstance(h.formatter, JsonFormatter) for h in root.handlers):
        return
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    root.propagate = False


class RequestLog:
    """ASGI middleware: one JSON line per request, and an ``X-Request-ID`` header.

    Sits inside the session middleware so it can read the learner id, which it logs
    only as a salted SHA-256 prefix. Paths are logged without query strings.
    """

    def __init__(self, app: ASGIApp, salt: str) -> None:
        self.app = app
        self.salt = salt.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        request_id = (
            incoming if 0 < len(incoming) <= 64 and incoming.isprintable() else secrets.token_hex(8)
        )
        started = time.perf_counter()
        status = 500

        async def tagged(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {
                    **message,
                    "headers": [
                        *message.get("headers", []),
                        (b"x-request-id", request_id.encode()),
                    ],
                }
            await send(message)

        try:
            await self.app(scope, receive, tagged)
        finally:
            learner = _learner_of(scope)
            log.info(
                {
                    "event": "request",
                    "request_id": request_id,
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                    "learner": hashlib.sha256(self.salt + learner.encode()).hexdigest()[:16]
                    if isinstance(learner, str)
                    else None,
                }
            )


def _learner_of(scope) -> object:
    """The learner id in the request's session; ``None`` where no session was loaded
    (``/static/``).
    """
    try:
        return (scope.get("session") or {}).get("learner")
    except SessionNotLoaded:
        return None
