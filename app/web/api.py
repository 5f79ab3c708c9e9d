"""JSON API: the decision trees (documented at ``/api/docs``)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from app.content.trees import Tree, Verdict
from app.deps import CourseDep
from app.web.lookups import find_tree

router = APIRouter(prefix="/api", tags=["árvores"])


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


@router.get("/arvores", response_model=list[TreeSummary], summary="Lista as árvores de decisão")
async def list_trees(course: CourseDep) -> list[TreeSummary]:
    """Every decision tree: id, title, source and the lesson that holds it."""
    return [
        TreeSummary(id=t.id, title=t.title, source=t.source, lesson_slug=course.tree_lessons[t.id])
        for t in course.trees.values()
    ]


@router.get(
    "/arvores/{tree_id}",
    response_model=TreePublic,
    summary="Uma árvore inteira",
    responses={404: {"description": "Árvore não encontrada"}},
)
async def get_tree(tree_id: str, course: CourseDep) -> TreePublic:
    """The whole tree: question nodes with their options and values, and the results."""
    tree = find_tree(course, tree_id)
    return tree_public(tree, course.tree_lessons[tree.id])
