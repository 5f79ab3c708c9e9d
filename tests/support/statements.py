"""The SQL statements a block of a test sends, for the tests that count them."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from app.learning.writer import WRITER_THREAD

TRANSACTION_CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b", re.I)


# Threads that run on their own schedule (app/lti/sender.py and tool.py): an earlier test's
# app in this process may still be sending a grade while a budget is counted.
BACKGROUND_THREADS = {"curso-lti-sender", "curso-lms-origins"}


@contextmanager
def counting(target: Any = Engine, width: int = 200) -> Iterator[list[str]]:
    """Collect the statements sent while the block runs (transaction control left out), each
    cut to ``width`` characters, by every engine or by the engine ``target``; those of the
    answer writer's thread start with ``writer: ``."""
    statements: list[str] = []

    def count(_conn, _cursor, statement, _params, _context, _many):
        thread = threading.current_thread().name
        if thread in BACKGROUND_THREADS:  # another test app's, in this process: not ours
            return
        if not TRANSACTION_CONTROL.match(statement):
            where = "writer: " if thread == WRITER_THREAD else ""
            statements.append(where + " ".join(statement.split())[:width])

    event.listen(target, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(target, "before_cursor_execute", count)
