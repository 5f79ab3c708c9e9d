"""Compare the guides: one answer per facet, every tree's result side by side."""

from __future__ import annotations

from dataclasses import dataclass

from app.content.course import Course
from app.content.trees import Tree, TreeResult
from app.content.walk import Walk, WalkError, walk_facts
from app.i18n import gettext


@dataclass(frozen=True)
class Facet:
    """A fact the comparison asks once, with every value any tree knows.

    Attributes:
        id: facet id (the query parameter name).
        label: the facet's name as the learner reads it.
        values: ``(value, label)`` pairs in order of first appearance.
    """

    id: str
    label: str
    values: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class GuideOutcome:
    """One tree's answer to the learner's facts.

    Attributes:
        walk: the walk, when it reached a result.
        problem: why it did not (a facet still unanswered, or a case the guide does not cover).
    """

    tree: Tree
    walk: Walk | None
    problem: str

    @property
    def result(self) -> TreeResult | None:
        """The result reached, if any."""
        return self.walk.result if self.walk else None


def facets_of(trees: list[Tree]) -> tuple[Facet, ...]:
    """Collect the facets of ``trees`` and a readable label for each value.

    A value takes its label from an option where it is the only value, else from
    the first option that lists it.
    """
    labels: dict[str, dict[str, str]] = {}
    exact: dict[tuple[str, str], str] = {}
    names: dict[str, str] = {}
    for tree in trees:
        for question in tree.questions.values():
            names.setdefault(question.facet, tree.facet_label(question.facet))
            values = labels.setdefault(question.facet, {})
            for option in question.options:
                for value in option.values:
                    values.setdefault(value, option.label)
                    if len(option.values) == 1:
                        exact.setdefault((question.facet, value), option.label)
    return tuple(
        Facet(
            facet,
            names[facet],
            tuple((v, exact.get((facet, v), label)) for v, label in values.items()),
        )
        for facet, values in labels.items()
    )


def outcome(tree: Tree, facts: dict[str, str], facets: dict[str, Facet]) -> GuideOutcome:
    """Walk ``tree`` with ``facts`` and explain in Portuguese when it stops short."""
    try:
        return GuideOutcome(tree, walk_facts(tree, facts), "")
    except WalkError as exc:
        question = tree.questions[exc.node]
        facet = facets[question.facet]
        if question.facet not in facts:
            return GuideOutcome(
                tree, None, gettext("Also answer: %(facet)s.") % {"facet": facet.label}
            )
        value = dict(facet.values).get(facts[question.facet], facts[question.facet])
        message = gettext("This guide does not cover the case “%(facet)s: %(value)s”.")
        return GuideOutcome(tree, None, message % {"facet": facet.label, "value": value})


def agreement(outcomes: list[GuideOutcome]) -> str:
    """A one-line note on whether the guides that reached a result agree.

    They agree when the main engine and the verdict match; they overlap when an
    engine appears in every result; otherwise they diverge.
    """
    reached = [(o.tree, o.result) for o in outcomes if o.result]
    if len(reached) < 2:
        return ""
    results = [result for _, result in reached]
    if len({r.main for r in results}) == 1 and len({r.verdict for r in results}) == 1:
        message = gettext("The guides agree: %(engine)s (%(verdict)s).")
        return message % {"engine": results[0].main, "verdict": results[0].verdict.label.lower()}
    parts = " × ".join(
        f"{tree.name}: {result.main} ({result.verdict.label.lower()})" for tree, result in reached
    )
    if len({r.main for r in results}) == 1:
        message = gettext(
            "The guides disagree on the verdict. %(results)s. See “Another view” on each card."
        )
        return message % {"results": parts}
    shared = set.intersection(*(set(r.engines) for r in results))
    if shared:
        message = gettext(
            "The guides overlap: both include %(engines)s, with different emphases. %(results)s."
        )
        return message % {"engines": ", ".join(sorted(shared)), "results": parts}
    message = gettext(
        "The guides disagree. %(results)s. See why each one says so and “Another view”."
    )
    return message % {"results": parts}


def compare_context(course: Course, params: dict[str, str]) -> dict[str, object]:
    """Template context for the comparison page, given the query parameters."""
    trees = list(course.trees.values())
    facets = facets_of(trees)
    by_id = {f.id: f for f in facets}
    facts = {f.id: params[f.id] for f in facets if params.get(f.id) in {v for v, _ in f.values}}
    outcomes = [outcome(tree, facts, by_id) for tree in trees] if facts else []
    return {
        "facets": facets,
        "facts": facts,
        "outcomes": outcomes,
        "agreement": agreement(outcomes),
        "lessons": {tree.id: course.get(course.tree_lessons[tree.id]) for tree in trees},
    }
