"""A decision tree in its public JSON form: what ``/api/arvores`` and ``curso arvore --json`` print.

Pydantic models only (no HTTP): the web API documents them at ``/api/docs`` and the CLI
prints them without importing the web framework.
"""

from __future__ import annotations

from pydantic import BaseModel

from app.content.trees import Tree, Verdict


class TreeSummary(BaseModel):
    """One tree in the list."""

    id: str
    title: str
    source: str
    lesson_slug: str


class OptionPublic(BaseModel):
    """An option of a question node: its label, the facet values that choose it, and
    where it leads.
    """

    label: str
    values: list[str]
    next: str


class QuestionPublic(BaseModel):
    """A question node."""

    id: str
    facet: str
    text: str
    options: list[OptionPublic]


class ResultPublic(BaseModel):
    """A result node. ``engines[0]`` is the main recommendation."""

    id: str
    engines: list[str]
    verdict: Verdict
    why: str
    note: str | None


class TreePublic(TreeSummary):
    """A whole tree: ``start`` is the first question's id; ``facets`` maps facet ids to names."""

    start: str
    facets: dict[str, str]
    questions: list[QuestionPublic]
    results: list[ResultPublic]


def tree_public(tree: Tree, lesson_slug: str) -> TreePublic:
    """Convert a content tree into its public JSON form."""
    return TreePublic(
        id=tree.id,
        title=tree.title,
        source=tree.source,
        lesson_slug=lesson_slug,
        start=tree.start,
        facets=tree.facets,
        questions=[
            QuestionPublic(
                id=q.id,
                facet=q.facet,
                text=q.text,
                options=[
                    OptionPublic(label=o.label, values=list(o.values), next=o.next)
                    for o in q.options
                ],
            )
            for q in tree.questions.values()
        ],
        results=[
            ResultPublic(
                id=r.id, engines=list(r.engines), verdict=r.verdict, why=r.why, note=r.note or None
            )
            for r in tree.results.values()
        ],
    )
