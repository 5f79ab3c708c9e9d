"""The lesson editor in the browser: edit, preview, publish, history, restore, new lesson.

Every route needs an instructor (:data:`app.web.deps.InstructorDep`) and answers 404 when
``CURSO_WEB_EDITOR`` is off; a lesson's routes get its file with the instructor
(:data:`EditedLessonDep`). The rules live in :mod:`app.authoring.editor`; a route parses the form,
calls one of them and renders. Saving is a plain form POST (it works without JavaScript);
the live preview is an htmx POST that returns the ``_editor_preview.html`` fragment, and
the same route renders the whole editor for the "Pré-visualizar" button without JavaScript.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse

from app.authoring import editor, image_upload
from app.content.errors import ContentError
from app.content.lessons import Lesson
from app.content.numbers import format_number
from app.content.scaffold import TitleError
from app.content.sourcefile import NotUtf8, Source, diff_lines, read_source
from app.i18n import N_, gettext
from app.platform.models import Account, LessonRevision
from app.web.deps import CourseDep, InstructorDep, RowId, SessionDep
from app.web.forms import leave_notice
from app.web.security import MAX_EDITOR_FORM_BYTES
from app.web.templating import render, wants_fragment
from app.web.urls import urls_of

EDITOR_OFF = N_(
    "The lesson editor in the browser is off on this server (CURSO_WEB_EDITOR). "
    "Edit the lesson files on the server."
)
NO_LESSON = N_("There is no lesson or file with this address in the lessons folder.")
NOT_UTF8 = N_(
    "The file %(file)s is not in UTF-8, so it cannot be edited in the browser without "
    "damaging it. Save it in UTF-8 on the server first."
)
NO_REVISION = N_("There is no such revision of this lesson.")
PUBLISHED = N_("Lesson published: learners now see it in the list, the search and their progress.")
CONFIRM_UNPUBLISH = N_(
    "Revision %(num)s is a draft: restoring it takes the lesson offline for the learners. "
    "Tick the box to restore it anyway."
)
CONFIRM_PUBLISH = N_(
    "Revision %(num)s is published: restoring it publishes the lesson to the learners. "
    "Tick the box to restore it anyway."
)
TOO_LONG = N_(
    "The text has %(count)s characters and a lesson may have up to %(max)s. Nothing was "
    "published: the text is still in the box; shorten it (split the lesson in two, for "
    "example) and publish again."
)
TOO_HEAVY = N_(
    "The text is too large to send (%(size)s MB once encoded for the form; the limit is "
    "%(max)s MB). Nothing was sent: the text is still in the box; shorten it and publish again."
)
MAX_TEXT = 1_000_000
MAX_TITLE = 200


async def editor_enabled(request: Request) -> None:
    """Refuse every editor route with 404 when ``CURSO_WEB_EDITOR`` is off."""
    if not request.app.state.settings.web_editor:
        raise HTTPException(status_code=404, detail=gettext(EDITOR_OFF))


router = APIRouter(prefix="/instrutor", dependencies=[Depends(editor_enabled)])
# No max_length on the text: a text over MAX_TEXT gets the editor back with the text kept and
# a message (too_long), not the generic form error. The request guard bounds the body itself
# (app.web.security.MAX_EDITOR_FORM_BYTES).
TextField = Annotated[str, Form(alias="texto")]
HashField = Annotated[str, Form(alias="versao", max_length=64)]
ReplaceField = Annotated[str, Form(alias="substituir", max_length=64)]


@dataclass(frozen=True)
class EditedLesson:
    """The lesson file an editor route works on, and the site instructor editing it.

    Attributes:
        slug: the lesson's slug, as in the address.
        path: its file in the lessons folder (served, a draft, or with errors).
    """

    instructor: Account
    slug: str
    path: Path


async def edited_lesson(slug: str, course: CourseDep, instructor: InstructorDep) -> EditedLesson:
    """The lesson file of the address, for the signed-in site instructor.

    Raises:
        HTTPException: 303 or 403 as :data:`InstructorDep`; 404 when the lessons folder has no
            lesson or file with this slug.
    """
    path = course.path_of(slug)
    if path is None:
        raise HTTPException(status_code=404, detail=gettext(NO_LESSON))
    return EditedLesson(instructor, slug, path)


EditedLessonDep = Annotated[EditedLesson, Depends(edited_lesson)]


@contextmanager
def _file_read(path: Path) -> Iterator[None]:
    """Turn a lesson file that cannot be read for the editor into a 4xx in Portuguese: 422
    when it is not UTF-8, 404 when it is gone."""
    try:
        yield
    except NotUtf8:
        raise HTTPException(
            status_code=422, detail=gettext(NOT_UTF8) % {"file": path.name}
        ) from None
    except FileNotFoundError:
        raise HTTPException(status_code=404, detail=gettext(NO_LESSON)) from None


def _read(path: Path) -> Source:
    with _file_read(path):
        return read_source(path)


def too_long(text: str) -> str | None:
    """The message for a text over :data:`MAX_TEXT` characters, else ``None``."""
    if len(text) <= MAX_TEXT:
        return None
    numbers = {"count": format_number(Decimal(len(text))), "max": format_number(Decimal(MAX_TEXT))}
    return gettext(TOO_LONG) % numbers


Checked = tuple[Lesson | None, tuple[ContentError, ...]]


def _check(request: Request, db, path: Path, text: str, checked: Checked | None = None) -> dict:
    """The live check and preview of ``text`` (``_editor_preview.html``'s context); ``checked``
    is the lesson and problems a refused save found already, not computed again."""
    if too_long(text):
        # Not parsed: the preview says why, the text stays in the box.
        return {"lesson": None, "problems": (), "rename": None, "oversized": too_long(text)}
    live = request.app.state.live_course
    lesson, problems = checked or editor.preview(live, path, text)
    rename = editor.rename_notice(db, live, path, lesson.slug if lesson else None)
    return {"lesson": lesson, "problems": problems, "rename": rename, "oversized": None}


def _editor_page(
    request: Request,
    db,
    edited: EditedLesson,
    text: str,
    base_hash: str,
    *,
    status_code: int = 200,
    checked: Checked | None = None,
    **extra,
):
    """Render the editor with ``text`` in the textarea and its live check and preview."""
    context = {
        "slug": edited.slug,
        "path": edited.path,
        "text": text,
        "base_hash": base_hash,
        "max_text": MAX_TEXT,
        "max_form_bytes": MAX_EDITOR_FORM_BYTES,
        # For static/js/editor.js, which checks the size before sending ({count}, {size}: its own).
        "too_long_message": gettext(TOO_LONG)
        % {"count": "{count}", "max": format_number(Decimal(MAX_TEXT))},
        "too_heavy_message": gettext(TOO_HEAVY)
        % {"size": "{size}", "max": MAX_EDITOR_FORM_BYTES // (1024 * 1024)},
        "level": 2,
        **_check(request, db, edited.path, text, checked),
        **extra,
    }
    return render(request, "editor.html", context, status_code=status_code)


@router.get("/licoes/{slug}/editar", response_class=HTMLResponse, name="lesson_editor")
def edit(request: Request, edited: EditedLessonDep, db: SessionDep, publicada: RowId | None = None):
    """The editor: the file's text (or the instructor's unpublished draft), its check and preview.

    It writes nothing (a file changed outside the editor is recorded by the next save).
    ``?publicada=<id>`` says that revision was just published.
    """
    source = _read(edited.path)
    assert edited.instructor.id is not None  # a stored account
    draft = editor.get_draft(db, edited.path.name, edited.instructor.id)
    text, base = (draft.text, draft.base_hash) if draft else (source.text, source.hash)
    return _editor_page(
        request,
        db,
        edited,
        text,
        base,
        draft=draft,
        published=publicada,
        renamed=editor.rename_of(db, publicada),
        stale_draft=bool(draft and draft.base_hash != source.hash),
    )


@router.post("/licoes/{slug}/previa", response_class=HTMLResponse, name="lesson_editor_preview")
def preview(
    request: Request,
    edited: EditedLessonDep,
    db: SessionDep,
    texto: TextField,
    versao: HashField = "",
):
    """The check and preview of the text typed, without saving it.

    With htmx, only the ``_editor_preview.html`` fragment; without JavaScript (the
    "Pré-visualizar" button), the whole editor with the text kept in the textarea. When the
    text would change the lesson's slug, the preview says so and how many learners' progress
    moves with it. A text over :data:`MAX_TEXT` characters gets 422 and the reason.
    """
    status = 422 if too_long(texto) else 200
    if wants_fragment(request):
        checked = _check(request, db, edited.path, texto)
        context = {"slug": edited.slug, "path": edited.path, "level": 2, **checked}
        return render(request, "_editor_preview.html", context, status_code=status)
    return _editor_page(request, db, edited, texto, versao, status_code=status)


@router.post("/licoes/{slug}/editar", response_class=HTMLResponse, name="lesson_editor_save")
def save(
    request: Request,
    edited: EditedLessonDep,
    db: SessionDep,
    texto: TextField,
    versao: HashField,
    substituir: ReplaceField = "",
):
    """Publish the text: 303 back to the editor (at its new address when the slug changed).

    409 with a diff if the file changed since it was loaded, however often "Publicar" is
    pressed again, until the instructor ticks "Substituir a versão atual" (``substituir``:
    the hash of the version whose differences they saw); 422 when the text has errors (kept
    as a draft, not published) or is over :data:`MAX_TEXT` characters (kept in the box).
    """
    if too_long(texto):
        return _editor_page(request, db, edited, texto, versao, status_code=422)
    return _save(request, db, edited, texto, versao, replacing=substituir)


def _save(
    request: Request,
    db,
    edited: EditedLesson,
    text: str,
    base_hash: str,
    origin: str = editor.EDITOR,
    restored_from: int | None = None,
    replacing: str = "",
):
    live = request.app.state.live_course
    sent_back = partial(_editor_page, request, db, edited, text, base_hash)  # text kept
    try:
        with _file_read(edited.path):
            result = editor.save(
                db,
                live,
                edited.path,
                text,
                base_hash,
                edited.instructor,
                origin,
                restored_from,
                replacing,
            )
    except editor.Conflict as conflict:
        diff = diff_lines(conflict.current.text, text, gettext("file now"), gettext("your text"))
        return sent_back(
            status_code=409,
            conflict=diff,
            conflict_hash=conflict.current.hash,
            changed_again=bool(replacing),
        )
    if not result.published:
        return sent_back(
            status_code=422,
            checked=(result.lesson, result.problems),
            refused=True,
        )
    revision = result.revision
    assert revision is not None  # a published save has its revision
    new_slug = revision.lesson_slug
    return RedirectResponse(
        urls_of(request).with_query("lesson_editor", {"publicada": revision.id}, slug=new_slug),
        status_code=303,
    )


@router.post("/licoes/{slug}/publicar", name="lesson_publish")
def publish(request: Request, edited: EditedLessonDep, db: SessionDep):
    """Publish a draft lesson ("Publicar"): its file loses the ``draft: true`` line, saved as
    a revision like any save, and the instructor lands on the lesson as learners now see it.
    A file changed since, or with errors, gets the editor back as a save would (409, 422)."""
    source = _read(edited.path)
    text = editor.published_text(source.text)
    lesson_url = urls_of(request).path("lesson", slug=edited.slug)
    if text is None:  # published already (a second click, another instructor)
        return RedirectResponse(lesson_url, status_code=303)
    response = _save(request, db, edited, text, source.hash)
    if isinstance(response, RedirectResponse):
        leave_notice(request, gettext(PUBLISHED))
        return RedirectResponse(lesson_url, status_code=303)
    return response


@router.post("/licoes/{slug}/rascunho/descartar", name="lesson_draft_discard")
def discard(request: Request, edited: EditedLessonDep, db: SessionDep):
    """Throw away the instructor's unpublished draft and show the file again."""
    assert edited.instructor.id is not None  # a stored account
    editor.discard_draft(db, edited.path.name, edited.instructor.id)
    db.commit()
    editor_url = urls_of(request).path("lesson_editor", slug=edited.slug)
    return RedirectResponse(editor_url, status_code=303)


@router.get("/licoes/{slug}/historico", response_class=HTMLResponse, name="lesson_history")
def history(request: Request, edited: EditedLessonDep, db: SessionDep):
    """Every revision of the lesson's file, newest first, each with its diff to the one before.

    It writes nothing: a file changed outside the editor shows first as the file on disk, not
    recorded yet (the next save records it).
    """
    return _history_page(request, db, edited, _read(edited.path))


def _history_page(
    request: Request,
    db,
    edited: EditedLesson,
    source: Source,
    error: str | None = None,
    refused: int | None = None,
    status_code: int = 200,
):
    rows = editor.history(db, edited.path, edited.slug, source)
    entries = [
        (
            row,
            diff_lines(
                row.previous.text if row.previous else "",
                row.revision.text,
                gettext("revision %(num)s") % {"num": row.previous.id}
                if row.previous
                else gettext("empty"),
                gettext("file on disk")
                if row.pending
                else gettext("revision %(num)s") % {"num": row.revision.id},
            ),
        )
        for row in rows
    ]
    context = {
        "slug": edited.slug,
        "path": edited.path,
        "entries": entries,
        "current_hash": source.hash,
        "current_draft": editor.is_draft(source.text),
        "error": error,
        "refused": refused,
    }
    return render(request, "lesson_history.html", context, status_code=status_code)


@router.post(
    "/licoes/{slug}/historico/{revision_id}/restaurar",
    response_class=HTMLResponse,
    name="lesson_restore",
)
def restore(
    request: Request,
    edited: EditedLessonDep,
    revision_id: RowId,
    db: SessionDep,
    versao: HashField,
    confirmo: Annotated[str, Form(max_length=10)] = "",
):
    """Publish an old revision again, as a new revision (409 if the file changed meanwhile).

    A restore that would take the lesson offline (a draft revision over a published file) or
    publish it (the other way round) needs ``confirmo=sim``: without it, 422 and the history
    again, with the reason, and nothing written.
    """
    old = db.get(LessonRevision, revision_id)
    if old is None or old.file_name != edited.path.name:
        raise HTTPException(status_code=404, detail=gettext(NO_REVISION))
    source = _read(edited.path)
    if editor.is_draft(old.text) != editor.is_draft(source.text) and confirmo != "sim":
        reason = CONFIRM_UNPUBLISH if editor.is_draft(old.text) else CONFIRM_PUBLISH
        error = gettext(reason) % {"num": old.id}
        return _history_page(
            request, db, edited, source, error=error, refused=old.id, status_code=422
        )
    return _save(request, db, edited, old.text, versao, editor.RESTORED, old.id)


@router.get("/licoes/nova", response_class=HTMLResponse, name="lesson_new")
def new_form(request: Request, instructor: InstructorDep):
    """The form for a new lesson: only its title."""
    return render(request, "lesson_new.html", {"title": "", "error": None})


@router.post("/licoes/nova", response_class=HTMLResponse, name="lesson_create")
def create(
    request: Request,
    instructor: InstructorDep,
    titulo: Annotated[str, Form(max_length=MAX_TITLE)] = "",
):
    """Create a lesson from the template, as ``curso nova`` does, and open it in the editor."""
    try:
        path = editor.create_lesson(request.app.state.live_course, titulo)
    except TitleError as exc:
        return render(
            request, "lesson_new.html", {"title": titulo, "error": str(exc)}, status_code=422
        )
    slug = editor.new_lesson_slug(path)
    return RedirectResponse(urls_of(request).path("lesson_editor", slug=slug), status_code=303)


@router.get("/imagens", response_class=HTMLResponse, name="image_upload")
def image_form(request: Request, instructor: InstructorDep):
    """The form to send an image to the lessons' ``imagens/`` folder."""
    return render(request, "image_upload.html", {"saved": None, "error": None})


@router.post("/imagens", response_class=HTMLResponse, name="image_upload_save")
def image_save(
    request: Request,
    instructor: InstructorDep,
    imagem: Annotated[UploadFile | None, File()] = None,
):
    """Keep an uploaded PNG, JPEG, WebP or GIF image and show the Markdown to paste.

    The body was already capped by the front door (:mod:`app.web.security`); the type is read from
    the bytes (:func:`app.authoring.image_upload.save_image`). A refused file gets the form
    again with
    the reason: 413 (over 2 MB), 415 (not one of the four types) or 422 (no file).
    """
    data = b""
    name = ""
    if imagem is not None:
        data = imagem.file.read(image_upload.MAX_IMAGE_BYTES + 1)
        name = imagem.filename or ""
    try:
        saved = image_upload.save_image(request.app.state.settings.lessons_dir, name, data)
    except image_upload.ImageRefused as refused:
        context = {"saved": None, "error": str(refused)}
        return render(request, "image_upload.html", context, status_code=refused.status)
    return render(request, "image_upload.html", {"saved": saved, "error": None}, status_code=201)
