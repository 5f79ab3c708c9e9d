"""Simulated learners answering quizzes against a live server, on loopback only, bounded in time."""

from __future__ import annotations

import asyncio
import random
import re
import secrets
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx

from app.content.course import Course

TOKEN_RE = re.compile(r'"x-csrftoken": "([^"]+)"')


@dataclass
class LoadReport:
    """What the simulated learners saw.

    Attributes:
        acknowledged: answers that got a 2xx (each has its own idempotency key).
        statuses: count of responses per status code (0 = connection error).
        latencies_ms: latency of every answer POST, in milliseconds.
    """

    acknowledged: int = 0
    acknowledged_keys: list[str] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)

    def percentile(self, p: float) -> float:
        """The ``p``-th percentile of the answer latencies (ms)."""
        if not self.latencies_ms:
            return 0.0
        return statistics.quantiles(self.latencies_ms, n=100, method="inclusive")[int(p) - 1]

    def summary(self) -> dict:
        """A JSON-friendly summary."""
        return {
            "answers_acknowledged": self.acknowledged,
            "statuses": dict(self.statuses),
            "p50_ms": round(self.percentile(50), 1),
            "p99_ms": round(self.percentile(99), 1),
        }


async def learner(
    base_url: str, course: Course, deadline: float, report: LoadReport, stop: asyncio.Event
) -> None:
    """One learner: open a lesson, then answer its questions until the deadline."""
    limits = httpx.Limits(max_connections=1)
    async with httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits) as client:
        lesson = random.choice(course.lessons)
        try:
            page = await client.get(f"/licoes/{lesson.slug}")
        except httpx.HTTPError:
            report.statuses[0] += 1
            return
        token = TOKEN_RE.search(page.text).group(1)
        headers = {"HX-Request": "true", "x-csrftoken": token}
        # Questions answered by picking options (numeric and ordering ones have none), out of
        # the pools (whose questions each learner gets drawn).
        pooled = lesson.pooled
        questions = [q for q in lesson.questions.values() if q.options and q.id not in pooled]
        while time.monotonic() < deadline and not stop.is_set():
            question = random.choice(questions)
            data = {
                "opcao": random.choice(question.options).id,
                "chave": secrets.token_urlsafe(16),
                "versao": question.content_hash,
            }
            started = time.perf_counter()
            try:
                response = await client.post(
                    f"/licoes/{lesson.slug}/perguntas/{question.id}", data=data, headers=headers
                )
            except httpx.HTTPError:
                report.statuses[0] += 1
                continue
            report.latencies_ms.append((time.perf_counter() - started) * 1000)
            report.statuses[response.status_code] += 1
            if 200 <= response.status_code < 300:
                report.acknowledged += 1
                report.acknowledged_keys.append(data["chave"])


async def run_load(
    base_url: str,
    course: Course,
    learners: int,
    seconds: float,
    stop: asyncio.Event | None = None,
    report: LoadReport | None = None,
) -> LoadReport:
    """Run ``learners`` simulated learners for ``seconds`` and return what they saw.

    ``report``, when given, is filled as answers come in (a caller can watch it)."""
    report = report if report is not None else LoadReport()
    deadline = time.monotonic() + seconds
    stop = stop or asyncio.Event()
    await asyncio.gather(
        *(learner(base_url, course, deadline, report, stop) for _ in range(learners))
    )
    return report
