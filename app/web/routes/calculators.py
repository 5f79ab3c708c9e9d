"""``calculadora`` blocks on the lesson page: results on the server, with and without htmx.

Without JavaScript the calculator is a GET form to the lesson page itself
(``/licoes/<slug>?calculadora=<id>&<input>=<value>#calculadora-<id>``): the result is in
the page and the address can be shared. With htmx the form asks
``/licoes/<slug>/calculadoras/<id>`` as the learner types (debounced) and swaps the result,
which the live region announces; the address bar follows the same shareable URL.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from app.content.calculators import FIELD, Calculator, Result, compute
from app.content.lessons import Lesson
from app.content.markdown import plain_text
from app.i18n import N_, gettext
from app.web.deps import CourseDep
from app.web.lookups import find_lesson
from app.web.templating import render
from app.web.urls import Urls, urls_of

router = APIRouter()
NOT_FOUND = N_("Calculator not found in this lesson. Reload the page.")


def announcement(calculator: Calculator, result: Result) -> str:
    """What the live region says after an update: each estimate, or what went wrong."""
    if result.errors or result.problem:
        return " ".join([*result.errors.values(), result.problem]).strip()
    return " ".join(
        gettext("%(label)s: estimate ≈ %(value)s %(unit)s.")
        % {
            "label": plain_text(output.label_html),
            "value": value,
            "unit": output.unit,
        }
        for output, value in zip(calculator.outputs, result.values, strict=True)
    ).replace(" .", ".")


def share_url(urls: Urls, lesson: Lesson, calculator: Calculator, result: Result) -> str:
    """The lesson address that shows this calculator with these values.

    Args:
        result: its result for the values typed.

    Returns:
        The lesson's path with ``?calc=<id>&<the values>`` and the calculator's anchor.
    """
    return urls.with_query(
        "lesson", {FIELD: calculator.id, **result.typed}, calculator.anchor, slug=lesson.slug
    )


@router.get(
    "/licoes/{slug}/calculadoras/{calculator_id}",
    response_class=HTMLResponse,
    name="calculator",
)
def calculator_result(request: Request, slug: str, calculator_id: str, course: CourseDep):
    """The result of one calculator for the values in the query (the htmx fragment).

    A refused value or a division by zero is a message in the result, with status 200;
    the ``HX-Replace-Url`` header puts the shareable lesson address in the address bar.
    """
    lesson = find_lesson(course, slug)
    calculator = lesson.calculators.get(calculator_id)
    if calculator is None:
        raise HTTPException(status_code=404, detail=gettext(NOT_FOUND))
    result = compute(calculator, dict(request.query_params))
    context = {
        "lesson": lesson,
        "calc": calculator,
        "result": result,
        "announce": announcement(calculator, result),
    }
    response = render(request, "_calculator_result.html", context)
    response.headers["HX-Replace-Url"] = share_url(urls_of(request), lesson, calculator, result)
    return response
