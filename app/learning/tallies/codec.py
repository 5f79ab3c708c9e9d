"""The text of ``learner_tally.answers``: a learner's first tries at the basis versions.

One line per question, ``slug``, ``question id``, ``chosen`` and ``1``/``0`` (right or not)
separated by tabs, in no set order. Written in Python (:func:`encode_answers`, as answers
are kept) and in SQL (:func:`answer_line`, by a recount); read back by :func:`decode_answers`
and scanned, many learners at once, by :func:`count_answers` (the dashboard's 27% groups).
Slugs, question ids and option ids never hold a tab or a line break.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from sqlalchemy import ColumnElement, FunctionElement, Table, case, func

FIELD, LINE = "\t", "\n"


def encode_answers(answers: Iterable[tuple[str, str, str, bool]]) -> str:
    """``(slug, question id, chosen, correct)`` as the column's text."""
    return LINE.join(
        FIELD.join((slug, qid, chosen, "1" if correct else "0"))
        for slug, qid, chosen, correct in sorted(answers)
    )


def decode_answers(text: str | None) -> dict[tuple[str, str], tuple[str, bool]]:
    """The column's text as ``(slug, question id)`` → ``(chosen, correct)``."""
    out = {}
    for line in filter(None, (text or "").split(LINE)):
        slug, qid, chosen, correct = line.split(FIELD)
        out[(slug, qid)] = (chosen, correct == "1")
    return out


def answer_line(first_try: Table) -> ColumnElement[str]:
    """One ``first_try`` row's line, in SQL (what :func:`encode_answers` writes for it)."""
    c = first_try.c
    return (
        c.lesson_slug
        + FIELD
        + c.question_id
        + FIELD
        + c.chosen
        + FIELD
        + case((c.correct, "1"), else_="0")
    )


def aggregate_lines(line: ColumnElement[str]) -> FunctionElement[str]:
    """The lines of a group joined as the column holds them ("" for none), in SQL."""
    return func.coalesce(func.aggregate_strings(line, LINE), "")


def join_answers(texts: Sequence[str]) -> str:
    """Several learners' column texts as one text for :func:`count_answers`, in their order."""
    return LINE + (LINE + LINE).join(texts) + LINE


def count_answers(
    joined: str, question: tuple[str, str], n: int, top: bool
) -> Counter[tuple[str, str]]:
    """The answers to ``question`` (slug, id) of the first ``n`` learners of ``joined`` that
    answered it (the last ``n`` when not ``top``), counted as ``(chosen, "1" or "0")``.

    Each learner's text holds at most one line per question, so the occurrences of the
    question's line start in ``joined`` (:func:`join_answers`), in order, are its learners in
    that order. Found with ``str.find``: a regular expression per question and group was
    compiled on each worker's first dashboard (about 1 ms each, 40 ms for the course's 38).
    """
    start = LINE + FIELD.join(question) + FIELD
    found = []
    at = joined.find(start)
    while at != -1:
        begin = at + len(start)
        end = joined.index(LINE, begin)
        chosen, _, correct = joined[begin:end].rpartition(FIELD)
        found.append((chosen, correct))
        at = joined.find(start, end)
    return Counter(found[:n] if top else found[-n:])
