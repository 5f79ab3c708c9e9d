""" "Meus dados" (LGPD): see and export everything stored about me, or delete it all."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from app.i18n import N_, gettext
from app.learning.classes import memberships
from app.learning.learners import delete_learner, learner_data
from app.platform.sessions import VISIT_COOKIE
from app.web.cookies import forget_cookie
from app.web.deps import (
    CSRF_COOKIE,
    AccountNameDep,
    CourseDep,
    LearnerForWriteDep,
    LearnerIdDep,
    SessionDep,
    SignInLimiterDep,
)
from app.web.headers import PERSONAL
from app.web.public import LearnerExport, learner_export
from app.web.templating import render
from app.web.urls import urls_of

router = APIRouter()
CONFIRM_FIRST = N_("To delete, tick the box confirming you understand this cannot be undone.")
EXPORT_FILENAME = "meus-dados-curso.json"


@router.get("/meus-dados", response_class=HTMLResponse, name="my_data", include_in_schema=False)
def my_data_page(
    request: Request,
    db: SessionDep,
    learner_id: LearnerIdDep,
    account: AccountNameDep,
    course: CourseDep,
    apagado: bool = False,
):
    """What is stored about me, the export link and the delete form (with a confirmation)."""
    return _page(request, db, course, learner_id, account, deleted=apagado)


@router.get(
    "/meus-dados/exportar",
    response_model=LearnerExport,
    tags=["meus dados"],
    responses={
        200: {"description": "Tudo o que está guardado sobre o aluno desta sessão, em JSON."}
    },
)
def export(db: SessionDep, learner_id: LearnerIdDep):
    """Download everything stored about the current learner as a JSON file."""
    data = learner_export(learner_data(db, learner_id))  # no learner yet: every part is empty
    return JSONResponse(
        data.model_dump(mode="json"),
        headers={
            "Content-Disposition": f'attachment; filename="{EXPORT_FILENAME}"',
            "Cache-Control": PERSONAL,
        },
    )


@router.get("/meus-dados/apagar", include_in_schema=False, name="my_data_delete_address")
def delete_address(request: Request):
    """The address bar after "Apagar" without the confirmation box shows the form's address:
    reloading or opening it leads to "Meus dados" (303), not to a 405 page; nothing is
    deleted."""
    return RedirectResponse(urls_of(request).path("my_data"), status_code=303)


@router.post(
    "/meus-dados/apagar",
    response_class=HTMLResponse,
    include_in_schema=False,
    name="my_data_delete",
)
def delete(
    request: Request,
    db: SessionDep,
    learner_id: LearnerForWriteDep,
    account: AccountNameDep,
    course: CourseDep,
    limiter: SignInLimiterDep,
    confirmo: Annotated[str, Form(max_length=10)] = "",
):
    """Delete everything stored about the learner (:func:`delete_learner`), the sign-in counters
    that name their username, and end their sessions everywhere.

    Without the confirmation box, 422 and nothing is deleted.
    """
    if confirmo != "sim":
        error = gettext(CONFIRM_FIRST)
        return _page(request, db, course, learner_id, account, error=error, status=422)
    username = delete_learner(db, learner_id)
    if username is not None:
        limiter.forget(username)  # failed sign-ins are counted by username
    request.session.clear()
    response = RedirectResponse(
        urls_of(request).with_query("my_data", {"apagado": 1}), status_code=303
    )
    # The next person here gets a new token and a new visit cookie.
    secure = request.app.state.settings.secure_cookies
    forget_cookie(response, CSRF_COOKIE, secure=secure)
    forget_cookie(response, VISIT_COOKIE, secure=secure)
    return response


def _page(request, db, course, learner_id, account, deleted=False, error=None, status=200):
    data = learner_export(learner_data(db, learner_id))
    # "Where you stopped" names the lesson by its title; a slug no lesson has now stays a slug.
    stopped = data.learner.place_lesson if data.learner else None
    joined = [classroom for classroom, _ in memberships(db, learner_id)] if learner_id else []
    context = {
        "data": data,
        "account": account,
        "deleted": deleted,
        "error": error,
        "joined": joined,
        "stopped": stopped,
        "stopped_lesson": course.get(stopped) if stopped else None,
    }
    return render(request, "mydata.html", context, status_code=status)
