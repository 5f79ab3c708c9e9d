"""Running a coroutine to its end from a synchronous test.

Playwright's sync API leaves an event loop marked as running on the test thread once a
browser test ran in the same process (an xdist worker runs both kinds), and ``asyncio.run``
refuses to start under it. The coroutine runs on a thread of its own instead, with a loop of
its own, as a request does on the server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``coroutine``'s result, run by ``asyncio.run`` on a new thread (its exception is
    raised here)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
