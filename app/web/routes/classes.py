"""Classes (turmas): the instructor's pages and the learner's join link.

The rules live in :mod:`app.learning.classes`. An instructor opening a class they do not teach gets
404, as for a class that does not exist. A class's pages are open to its instructors, an LMS
course's instructor included (:data:`StaffDep`); creating a class needs a site instructor.
Joining needs an account: an anonymous learner is sent to ``/conta`` (sign-up merges their
progress, as usual) and comes back to the link.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.i18n import N_, gettext, time_zone_choices, time_zone_label
from app.learning import classes
from app.learning.instructors import instructor_account
from app.lti.launch import lms_names
from app.platform.models import Classroom
from app.web.deps import (
    AccountNameDep,
    CourseDep,
    InstructorDep,
    LearnerForWriteDep,
    LearnerIdDep,
    RowId,
    SessionDep,
    StaffDep,
)
from app.web.forms import leave_notice
from app.web.templating import render
from app.web.urls import urls_of

router = APIRouter()
NO_CLASS = N_("There is no class with this address, or it is not one of yours.")
BAD_LINK = N_(
    "This class link does not work: it may have been replaced by a new one. "
    "Ask the instructor for the current link."
)
NO_NAME = N_("Give the class a name.")
JOINED = N_("You joined the class %(name)s.")
NOT_INSTRUCTOR = N_("There is no instructor with the username `%(name)s`.")
UNKNOWN_LESSON = N_("Choose one of the course's lessons.")


def _class(class_id: RowId, db: SessionDep, instructor: StaffDep) -> Classroom:
    """The class of the URL, when the signed-in instructor teaches it; else 404."""
    classroom = classes.class_for(db, instructor, class_id)
    if classroom is None:
        raise HTTPException(status_code=404, detail=gettext(NO_CLASS))
    return classroom


ClassDep = Annotated[Classroom, Depends(_class)]


def _back_to_class(request: Request, classroom: Classroom) -> RedirectResponse:
    """303 to the class's page, once a change to it is stored."""
    return RedirectResponse(
        urls_of(request).path("class_page", class_id=classroom.id), status_code=303
    )


@router.get("/instrutor/turmas", response_class=HTMLResponse, name="classes")
def class_list(request: Request, db: SessionDep, instructor: StaffDep):
    """The instructor's classes (every class for an admin) and, for a site instructor, the form
    for a new one."""
    context = {
        "classes": classes.classes_of(db, instructor),
        "can_create": instructor.is_instructor,
        "error": None,
        "name": "",
        "description": "",
    }
    return render(request, "classes.html", context)


@router.post("/instrutor/turmas", response_class=HTMLResponse, name="class_create")
def class_create(
    request: Request,
    db: SessionDep,
    instructor: InstructorDep,
    nome: Annotated[str, Form(max_length=120)] = "",
    descricao: Annotated[str, Form(max_length=1000)] = "",
):
    """Create a class taught by the instructor, then open it."""
    if not nome.strip():
        context = {
            "classes": classes.classes_of(db, instructor),
            "can_create": True,
            "error": gettext(NO_NAME),
            "name": nome,
            "description": descricao,
        }
        return render(request, "classes.html", context, status_code=422)
    classroom = classes.create_class(db, instructor, nome, descricao)
    return _back_to_class(request, classroom)


@dataclass
class ClassDesk:
    """What a class's page and the forms on it work with (a FastAPI dependency): the request,
    the class of the URL (404 unless the signed-in instructor teaches it, :data:`ClassDep`),
    the course and the database."""

    request: Request
    classroom: ClassDep
    course: CourseDep
    db: SessionDep

    def page(
        self, status_code: int = 200, error: str | None = None, typed: dict[str, str] | None = None
    ):
        """The class's page; ``error``: why a form on it was refused, ``typed``: what its
        due-date form had (``lesson``, ``due``), shown again."""
        request, db, classroom, course = self.request, self.db, self.classroom, self.course
        join_url = str(request.base_url).rstrip("/") + urls_of(request).path(
            "class_join_page", code=classroom.join_code
        )
        dues = classes.due_rows(db, classroom)
        members = classes.members(db, classroom)
        context = {
            "classroom": classroom,
            "join_url": join_url,
            "staff": classes.staff_of(db, classroom),
            "members": members,
            # the name each member's LMS gave, shown before the username
            "lms_names": lms_names(db, [member.learner_id for member in members]),
            "dues": dues,
            "course": course,
            "due_label": classes.due_label,
            "error": error,
            "titles": {lesson.slug: lesson.meta.title for lesson in course.lessons},
            "zones": time_zone_choices(),
            "time_zone_label": time_zone_label,
            "typed": typed or {},
        }
        return render(request, "class.html", context, status_code=status_code)

    def back(self) -> RedirectResponse:
        """303 to the class's page, once a change to it is stored."""
        return _back_to_class(self.request, self.classroom)


ClassDeskDep = Annotated[ClassDesk, Depends()]


@router.get("/instrutor/turmas/{class_id}", response_class=HTMLResponse, name="class_page")
def class_page(desk: ClassDeskDep):
    """A class: its join link, instructors, learners (with usernames), due dates, late answers."""
    return desk.page()


@router.post("/instrutor/turmas/{class_id}/codigo", name="class_rotate")
def class_rotate(request: Request, classroom: ClassDep, db: SessionDep):
    """Replace the join link; the old one stops working."""
    classes.rotate_code(db, classroom)
    return _back_to_class(request, classroom)


@router.post("/instrutor/turmas/{class_id}/apagar", name="class_delete")
def class_delete(request: Request, classroom: ClassDep, db: SessionDep):
    """Delete the class: its memberships and due dates go, the learners' answers stay."""
    classes.delete_class(db, classroom)
    return RedirectResponse(urls_of(request).path("classes"), status_code=303)


@router.post("/instrutor/turmas/{class_id}/prazos", response_class=HTMLResponse, name="class_due")
def class_due(
    desk: ClassDeskDep,
    licao: Annotated[str, Form(max_length=100)] = "",
    prazo: Annotated[str, Form(max_length=40)] = "",
):
    """Set a lesson's due date, entered in the class's time zone."""
    if desk.course.get(licao) is None:
        return desk.page(422, gettext(UNKNOWN_LESSON))
    try:
        due_at = classes.parse_due(prazo, desk.classroom.time_zone)
    except classes.BadDueDate as exc:
        return desk.page(422, str(exc), {"lesson": licao, "due": prazo})  # as typed
    classes.set_due(desk.db, desk.classroom, licao, due_at)
    return desk.back()


@router.post("/instrutor/turmas/{class_id}/equipe", response_class=HTMLResponse, name="class_staff")
def class_staff(desk: ClassDeskDep, usuario: Annotated[str, Form(max_length=30)] = ""):
    """Add another instructor to the class."""
    other = instructor_account(desk.db, usuario.strip().lower())
    if other is None:
        return desk.page(422, gettext(NOT_INSTRUCTOR) % {"name": usuario.strip()})
    classes.add_staff(desk.db, desk.classroom, other)
    return desk.back()


@router.post(
    "/instrutor/turmas/{class_id}/equipe/remover", response_class=HTMLResponse, name="class_unstaff"
)
def class_unstaff(
    desk: ClassDeskDep, instructor: StaffDep, usuario: Annotated[str, Form(max_length=30)] = ""
):
    """Remove an instructor from the class (never the last one: 422).

    Removing oneself goes back to the list of one's classes, where this one no longer is.
    """
    try:
        classes.remove_staff(desk.db, desk.classroom, usuario.strip().lower())
    except classes.StaffError as exc:
        return desk.page(422, str(exc))
    assert desk.classroom.id is not None  # a stored class
    if classes.class_for(desk.db, instructor, desk.classroom.id) is None:
        return RedirectResponse(urls_of(desk.request).path("classes"), status_code=303)
    return desk.back()


@router.post("/instrutor/turmas/{class_id}/fuso", response_class=HTMLResponse, name="class_zone")
def class_zone(desk: ClassDeskDep, fuso: Annotated[str, Form(max_length=64)] = ""):
    """Set the class's time zone (from the select of IANA zones); 422 for any other value."""
    try:
        classes.set_time_zone(desk.db, desk.classroom, fuso)
    except classes.BadTimeZone as exc:
        return desk.page(422, str(exc))
    return desk.back()


def _by_code(db, code: str) -> Classroom:
    classroom = classes.by_code(db, code) if len(code) <= 64 else None
    if classroom is None:
        raise HTTPException(status_code=404, detail=gettext(BAD_LINK))
    return classroom


@router.get("/turmas/entrar/{code}", response_class=HTMLResponse, name="class_join_page")
def join_page(
    request: Request, code: str, db: SessionDep, account: AccountNameDep, learner_id: LearnerIdDep
):
    """The join link: who is signed in confirms; anyone else is sent to sign in or sign up."""
    classroom = _by_code(db, code)
    if account is None:
        location = urls_of(request).with_query(
            "account", {"proximo": urls_of(request).path("class_join_page", code=code)}
        )
        return RedirectResponse(location, status_code=303)
    member = learner_id is not None and any(
        c.id == classroom.id for c, _ in classes.memberships(db, learner_id)
    )
    return render(
        request, "class_join.html", {"classroom": classroom, "code": code, "member": member}
    )


@router.post("/turmas/entrar/{code}", name="class_join")
def join(
    request: Request,
    code: str,
    db: SessionDep,
    account: AccountNameDep,
    learner_id: LearnerForWriteDep,
):
    """Join the class of the link (needs an account), then go to the course home."""
    classroom = _by_code(db, code)
    if account is None:
        location = urls_of(request).with_query(
            "account", {"proximo": urls_of(request).path("class_join_page", code=code)}
        )
        return RedirectResponse(location, status_code=303)
    classes.join(db, classroom, learner_id)
    leave_notice(request, gettext(JOINED) % {"name": classroom.name})
    return RedirectResponse(urls_of(request).path("home"), status_code=303)


@router.post("/turmas/{class_id}/sair", name="class_leave")
def leave(request: Request, class_id: RowId, db: SessionDep, learner_id: LearnerForWriteDep):
    """Leave a class (answers stay); back to "Meus dados"."""
    classes.leave(db, class_id, learner_id)
    return RedirectResponse(urls_of(request).path("my_data"), status_code=303)
