"""Concept tags: ``concepts: [decode, kv-cache]`` on quiz questions, checked against the glossary.

A tag is the slug of a glossary term (its id on ``/glossario``). ``curso check`` reports an
unknown tag as an error at its ``file:line``; once the course tags its questions, it also
warns on each glossary term that no question tests (at the term's line in the glossary).
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches
from pathlib import Path

from app.content.errors import ContentError
from app.content.glossary import Glossary
from app.content.lessons import Lesson
from app.i18n import gettext


def check_concepts(
    lessons: Iterable[Lesson], glossary: Glossary, glossary_file: Path
) -> list[ContentError]:
    """Check every question's concept tags against the glossary.

    Args:
        lessons: the lessons served.
        glossary_file: the glossary's path, where untested terms are reported.

    Returns:
        An error per unknown tag, and (when any question is tagged) a warning per glossary
        term that no question tests.
    """
    known = {term.slug for term in glossary.terms}
    tested: set[str] = set()
    problems: list[ContentError] = []
    tagged = False
    for lesson in lessons:
        for question in lesson.questions.values():
            for concept, position in zip(
                question.concepts, question.concept_positions, strict=False
            ):
                tagged = True
                if concept in known:
                    tested.add(concept)
                    continue
                close = get_close_matches(concept, sorted(known), n=1)
                msg = gettext(
                    "the concept `%(concept)s` of the question `%(question)s` is not a glossary "
                    "term; write the id of a term of %(file)s"
                ) % {"concept": concept, "question": question.id, "file": glossary_file.name}
                if close:
                    msg += gettext(" (did you mean `%(term)s`?)") % {"term": close[0]}
                problems.append(ContentError.at(lesson.path, position, msg))
    if tagged:
        for term in glossary.terms:
            if term.slug not in tested:
                msg = gettext(
                    "no question tests the term `%(term)s`; tag one with "
                    "`concepts: [%(slug)s]`, or write a question about it"
                ) % {"term": term.term, "slug": term.slug}
                problems.append(ContentError(glossary_file, term.line, msg, level="warning"))
    return problems
