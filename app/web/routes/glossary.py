"""``/glossario``: every term of the course glossary, in Portuguese order, with where it appears."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.web.deps import CourseDep
from app.web.templating import render

router = APIRouter()


@router.get("/glossario", response_class=HTMLResponse, name="glossary")
async def glossary(request: Request, course: CourseDep):
    """The glossary page: each term, its short definition and the lessons that define it on first
    use.
    """
    rows = [
        (term, [lesson for lesson in course.lessons if term.slug in lesson.terms])
        for term in course.glossary.terms
    ]
    return render(request, "glossary.html", {"rows": rows})
