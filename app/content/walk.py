"""Walking a decision tree: by chosen values (the URL path) or by facts (a scenario)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.content.trees import Tree, TreeOption, TreeQuestion, TreeResult
from app.i18n import gettext


class WalkError(ValueError):
    """A path or a set of facts that does not lead through the tree.

    Attributes:
        node: id of the question where the walk stopped.
    """

    def __init__(self, node: str, message: str):
        self.node = node
        super().__init__(message)


@dataclass(frozen=True)
class Step:
    """One answered question on a walk."""

    question: TreeQuestion
    option: TreeOption


@dataclass(frozen=True)
class Walk:
    """Where a walk stands.

    Attributes:
        steps: the answered questions, in order.
        current: the question to answer next, or ``None`` when a result is reached.
        result: the result reached, or ``None``.
    """

    tree: Tree
    steps: tuple[Step, ...]
    current: TreeQuestion | None
    result: TreeResult | None

    @property
    def values(self) -> tuple[str, ...]:
        """The chosen option values, in order (what goes in the URL)."""
        return tuple(step.option.value for step in self.steps)

    @property
    def visited(self) -> frozenset[str]:
        """Ids of every node on the path, the current one included."""
        nodes = {step.question.id for step in self.steps}
        if self.current:
            nodes.add(self.current.id)
        if self.result:
            nodes.add(self.result.id)
        return frozenset(nodes)

    @property
    def edges(self) -> frozenset[tuple[str, int]]:
        """``(question id, option index)`` pairs taken on the path."""
        return frozenset(
            (step.question.id, step.question.options.index(step.option)) for step in self.steps
        )

    @property
    def last_edge(self) -> tuple[str, int] | None:
        """The ``(question id, option index)`` of the latest step, if any."""
        if not self.steps:
            return None
        step = self.steps[-1]
        return step.question.id, step.question.options.index(step.option)

    def back(self) -> tuple[str, ...]:
        """The path one step back (empty at the start)."""
        return self.values[:-1]


def _advance(tree: Tree, node: str) -> tuple[TreeQuestion | None, TreeResult | None]:
    return tree.questions.get(node), tree.results.get(node)


def walk_path(tree: Tree, values: Sequence[str]) -> Walk:
    """Follow chosen option values from the start.

    Args:
        values: one option value per answered question, in order.

    Raises:
        WalkError: a value matches no option of its question, or values remain after a result.
    """
    steps: list[Step] = []
    current, result = _advance(tree, tree.start)
    for value in values:
        if current is None:
            where = result.id if result else tree.start
            raise WalkError(where, gettext("the path goes on after a result"))
        option = current.option_for(value)
        if option is None:
            msg = gettext("`%(value)s` is not an option of the question `%(question)s`")
            raise WalkError(current.id, msg % {"value": value, "question": current.id})
        steps.append(Step(current, option))
        current, result = _advance(tree, option.next)
    return Walk(tree, tuple(steps), current, result)


def walk_facts(tree: Tree, facts: Mapping[str, str]) -> Walk:
    """Walk the tree answering each question with the fact for its facet.

    Args:
        facts: facet → value, e.g. ``{"hardware": "amd"}``.

    Returns:
        The walk, ending on a result.

    Raises:
        WalkError: a question's facet has no fact, or the fact matches none of its options.
    """
    values: list[str] = []
    current, _ = _advance(tree, tree.start)
    while current is not None:
        if current.facet not in facts:
            msg = gettext(
                "the fact `%(facet)s` is missing to answer the question `%(question)s` "
                "of the tree `%(tree)s`"
            ) % {"facet": current.facet, "question": current.id, "tree": tree.id}
            raise WalkError(current.id, msg)
        option = current.option_for(facts[current.facet])
        if option is None:
            known = ", ".join(v for o in current.options for v in o.values)
            msg = gettext(
                "`%(facet)s: %(value)s` matches no option of the question `%(question)s` "
                "of the tree `%(tree)s` (values: %(known)s)"
            ) % {
                "facet": current.facet,
                "value": facts[current.facet],
                "question": current.id,
                "tree": tree.id,
                "known": known,
            }
            raise WalkError(current.id, msg)
        values.append(option.value)
        current, _ = _advance(tree, option.next)
    return walk_path(tree, values)
