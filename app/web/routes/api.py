"""JSON API: the decision trees (documented at ``/api/docs``)."""

from __future__ import annotations

from fastapi import APIRouter

from app.content.tree_json import TreePublic, TreeSummary, tree_public
from app.web.deps import CourseDep
from app.web.lookups import find_tree

router = APIRouter(prefix="/api", tags=["árvores"])


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
