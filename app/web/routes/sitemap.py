"""``/sitemap.xml``: the pages a search engine should know (sitemaps.org protocol 0.9)."""

from __future__ import annotations

from xml.sax.saxutils import escape

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.web.deps import CourseDep
from app.web.templating import site_url
from app.web.urls import Urls, urls_of

router = APIRouter()
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def sitemap_paths(urls: Urls, lesson_slugs: list[str], tree_ids: list[str]) -> list[str]:
    """The paths listed in the sitemap, in reading order.

    Args:
        lesson_slugs: the lessons served, in course order.

    Returns:
        The home page, each lesson, the trees page and each tree, the glossary and the search page.
    """
    return [
        urls.path("home"),
        *(urls.path("lesson", slug=slug) for slug in lesson_slugs),
        urls.path("trees"),
        *(urls.path("tree", tree_id=tree_id) for tree_id in tree_ids),
        urls.path("glossary"),
        urls.path("search"),
    ]


@router.get("/sitemap.xml", name="sitemap")
async def sitemap(request: Request, course: CourseDep) -> Response:
    """The sitemap: one absolute ``<loc>`` per page (``CURSO_PUBLIC_URL``, else the
    request's host).
    """
    slugs = [lesson.slug for lesson in course.lessons]
    paths = sitemap_paths(urls_of(request), slugs, sorted(course.trees))
    urls = "".join(f"<url><loc>{escape(site_url(request, path))}</loc></url>" for path in paths)
    body = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">{urls}</urlset>\n'
    return Response(body, media_type="application/xml", headers={"Cache-Control": "no-cache"})
