"""``/busca``: search every lesson, as a page or (htmx, while typing) as a results fragment;
``/busca/lista``: the same search as the header box's suggestions (a listbox fragment), for a
browser that has not loaded the index yet; ``/busca/indice.<digest>.json``: that index, which
the header box searches in the browser (``static/js/search-index.js``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.content.search import SearchIndex
from app.i18n import gettext, ngettext
from app.web.assets import IMMUTABLE, REVALIDATE
from app.web.deps import SearchDep
from app.web.templating import render, wants_fragment
from app.web.urls import urls_of

router = APIRouter()
MAX_QUERY_CHARS = 200


def results_summary(query: str, count: int) -> str:
    """The line that heads the results and is announced to screen readers."""
    if not query:
        return ""
    if count == 0:
        return gettext("No results for “%(query)s”.") % {"query": query}
    return ngettext("%(num)s result for “%(query)s”", "%(num)s results for “%(query)s”", count) % {
        "num": count,
        "query": query,
    }


@router.get("/busca", response_class=HTMLResponse, name="search")
async def search(
    request: Request, index: SearchDep, q: Annotated[str, Query(max_length=MAX_QUERY_CHARS)] = ""
):
    """Search the lessons: sections that hold every word, with the words highlighted.

    A plain GET renders the page; htmx (typing, or submitting the form) gets the
    ``_search_results.html`` fragment alone.
    """
    context = await _searched(index, q)
    return render(
        request, "_search_results.html" if wants_fragment(request) else "search.html", context
    )


@router.get("/busca/lista", response_class=HTMLResponse, name="search_listbox")
async def search_listbox(
    request: Request, index: SearchDep, q: Annotated[str, Query(max_length=MAX_QUERY_CHARS)] = ""
):
    """The header box's suggestions (``_search_listbox.html``), for htmx while the learner types.

    A browser that opens the address itself is sent to the search page for the same words.
    """
    if not wants_fragment(request):
        return RedirectResponse(
            urls_of(request).with_query("search", {"q": " ".join(q.split())}), status_code=303
        )
    return render(request, "_search_listbox.html", await _searched(index, q))


@router.get("/busca/indice.{digest}.json", name="search_index")
async def search_index(index: SearchDep, digest: str) -> Response:
    """The course's search index for the browser (:func:`app.content.search.client_index`).

    Its address carries the digest of its content (pages name it through
    ``SearchIndex.client_digest``), so it is cached for a year; an old digest (a page rendered
    before the lessons changed) gets today's index, revalidated on each use.
    """
    built = await run_in_threadpool(index.client)
    cache = IMMUTABLE if digest == built.digest else REVALIDATE
    return Response(
        built.content,
        media_type="application/json",
        headers={"Cache-Control": cache, "ETag": f'"{built.digest}"'},
    )


async def _searched(index: SearchIndex, q: str) -> dict:
    """The template context of a search for ``q`` (spaces collapsed): query, hits and summary."""
    query = " ".join(q.split())
    # On the threadpool: after a lesson edit the first search rebuilds the index (about a
    # second with 300 lessons), which must not stall the worker's other requests.
    hits = await run_in_threadpool(index.search, query) if query else []
    return {"query": query, "hits": hits, "summary": results_summary(query, len(hits))}
