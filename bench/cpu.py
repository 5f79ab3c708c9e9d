"""CPU time of a server's processes, read from ``/proc`` around a load run.

On a shared machine a server's req/s swings with the neighbours; the CPU time its processes
(the uvicorn master, its workers and their threads, or nginx's master and workers) spend per
request barely moves. ``utime + stime`` of each process in ``/proc/PID/stat`` covers all of its
threads; children are found through ``/proc/PID/task/*/children``.
"""

from __future__ import annotations

import os
from pathlib import Path

TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def process_tree(root: int) -> set[int]:
    """``root`` and every process below it, as they are now."""
    found: set[int] = set()
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        found.add(pid)
        tasks = Path(f"/proc/{pid}/task")
        try:
            for task in tasks.iterdir():
                children = (task / "children").read_text().split()
                todo += [int(child) for child in children]
        except OSError:
            pass  # the process ended meanwhile
    return found


def cpu_seconds(root: int) -> float:
    """User plus system CPU seconds spent so far by ``root`` and the processes below it."""
    total = 0
    for pid in process_tree(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total * TICK_S


class CpuMeter:
    """CPU seconds of a process tree between :meth:`start` and :meth:`stop`."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.before = 0.0
        self.spent = 0.0

    def start(self) -> None:
        """Read the counters before the load."""
        self.before = cpu_seconds(self.root)

    def stop(self) -> float:
        """Read them after the load; the CPU seconds spent in between."""
        self.spent = cpu_seconds(self.root) - self.before
        return self.spent

    def per_request_ms(self, requests: int) -> float:
        """Milliseconds of CPU per request (0 when nothing was served)."""
        return 1000 * self.spent / requests if requests else 0.0
