"""The lesson editor in the browser: edit, preview, publish, history, restore, new lesson.

Every route needs an instructor (:data:`app.web.deps.InstructorDep`) and answers 404 when
``CURSO_WEB_EDITOR`` is off. The rules live in :mod:`app.authoring.editor`; a route parses the form,
calls one of them and renders. Saving is a plain form POST (it works without JavaScript);
the live preview is an htmx POST that returns the ``_editor_preview.html`` fragment, and
the same route renders the whole editor for the "Pré-visualizar" button without JavaScript.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse

from app.authoring import editor, image_upload
from app.content.scaffold import TitleError
from app.content.sourcefile import NotUtf8, Source, diff_lines, read_source
from app.platform.i18n import N_, gettext
from app.platform.models import Account, LessonRevision
from app.web.deps import CourseDep, InstructorDep, RowId, SessionDep
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
MAX_TEXT = 1_000_000
MAX_TITLE = 200


async def editor_enabled(request: Request) -> None:
    """Refuse every editor route with 404 when ``CURSO_WEB_EDITOR`` is off."""
    if not request.app.state.settings.web_editor:
        raise HTTPException(status_code=404, detail=gettext(EDITOR_OFF))


router = APIRouter(prefix="/instrutor", dependencies=[Depends(editor_enabled)])
TextField = Annotated[str, Form(alias="texto", max_length=MAX_TEXT)]
HashField = Annotated[str, Form(alias="versao", max_length=64)]


def _path(course, slug: str) -> Path:
    path = editor.lesson_path(course, slug)
    if path is None:
        raise HTTPException(status_code=404, detail=gettext(NO_LESSON))
    return path


def _read(path: Path) -> Source:
    try:
        return read_source(path)
    except NotUtf8:
        raise HTTPException(
            status_code=422, detail=gettext(NOT_UTF8) % {"file": path.name}
        ) from None
    except FileNotFoundError:
        raise HTTPException(status_code=404, detail=gettext(NO_LESSON)) from None


def _editor_page(
    request: Request,
    slug: str,
    path: Path,
    text: str,
    base_hash: str,
    *,
    status_code: int = 200,
    **extra,
):
    """Render the editor with ``text`` in the textarea and its live check and preview."""
    lesson, problems = editor.preview(request.app.state.live_course, path, text)
    context = {
        "slug": slug,
        "path": path,
        "text": text,
        "base_hash": base_hash,
        "lesson": lesson,
        "problems": problems,
        "level": 2,
        **extra,
    }
    return render(request, "editor.html", context, status_code=status_code)


@router.get("/licoes/{slug}/editar", response_class=HTMLResponse, name="lesson_editor")
def edit(
    request: Request,
    slug: str,
    course: CourseDep,
    db: SessionDep,
    instructor: InstructorDep,
    publicada: RowId | None = None,
):
    """The editor: the file's text (or the instructor's unpublished draft), its check and preview.

    Loading the page records the file as a revision "alterado fora do editor" when it changed
    on disk since the last revision. ``?publicada=<id>`` says that revision was just published.
    """
    path = _path(course, slug)
    source = _read(path)
    editor.note_outside_change(db, path, slug, source)
    db.commit()
    assert instructor.id is not None  # a stored account
    draft = editor.get_draft(db, path.name, instructor.id)
    text, base = (draft.text, draft.base_hash) if draft else (source.text, source.hash)
    return _editor_page(
        request,
        slug,
        path,
        text,
        base,
        draft=draft,
        published=publicada,
        stale_draft=bool(draft and draft.base_hash != source.hash),
    )


@router.post("/licoes/{slug}/previa", response_class=HTMLResponse, name="lesson_editor_preview")
def preview(
    request: Request,
    slug: str,
    course: CourseDep,
    instructor: InstructorDep,
    texto: TextField,
    versao: HashField = "",
):
    """The check and preview of the text typed, without saving it.

    With htmx, only the ``_editor_preview.html`` fragment; without JavaScript (the
    "Pré-visualizar" button), the whole editor with the text kept in the textarea.
    """
    path = _path(course, slug)
    if wants_fragment(request):
        lesson, problems = editor.preview(request.app.state.live_course, path, texto)
        context = {"slug": slug, "path": path, "lesson": lesson, "problems": problems, "level": 2}
        return render(request, "_editor_preview.html", context)
    return _editor_page(request, slug, path, texto, versao)


@router.post("/licoes/{slug}/editar", response_class=HTMLResponse, name="lesson_editor_save")
def save(
    request: Request,
    slug: str,
    course: CourseDep,
    db: SessionDep,
    instructor: InstructorDep,
    texto: TextField,
    versao: HashField,
):
    """Publish the text: 303 back to the editor; 409 with a diff if the file changed since it
    was loaded; 422 when the text has errors (kept as a draft, not published).
    """
    path = _path(course, slug)
    return _save(request, db, instructor, slug, path, texto, versao)


def _save(
    request: Request,
    db,
    instructor: Account,
    slug: str,
    path: Path,
    text: str,
    base_hash: str,
    origin: str = editor.EDITOR,
    restored_from: int | None = None,
):
    live = request.app.state.live_course
    try:
        result = editor.save(db, live, path, text, base_hash, instructor, origin, restored_from)
    except editor.Conflict as conflict:
        diff = diff_lines(conflict.current.text, text, gettext("file now"), gettext("your text"))
        return _editor_page(
            request,
            slug,
            path,
            text,
            conflict.current.hash,
            status_code=409,
            conflict=diff,
        )
    except NotUtf8:
        raise HTTPException(
            status_code=422, detail=gettext(NOT_UTF8) % {"file": path.name}
        ) from None
    if not result.published:
        return _editor_page(request, slug, path, text, base_hash, status_code=422, refused=True)
    revision = result.revision
    assert revision is not None  # a published save has its revision
    new_slug = revision.lesson_slug
    return RedirectResponse(
        urls_of(request).lesson_editor(new_slug) + f"?publicada={revision.id}",
        status_code=303,
    )


@router.post("/licoes/{slug}/rascunho/descartar", name="lesson_draft_discard")
def discard(
    request: Request, slug: str, course: CourseDep, db: SessionDep, instructor: InstructorDep
):
    """Throw away the instructor's unpublished draft and show the file again."""
    path = _path(course, slug)
    assert instructor.id is not None  # a stored account
    editor.discard_draft(db, path.name, instructor.id)
    db.commit()
    return RedirectResponse(urls_of(request).lesson_editor(slug), status_code=303)


@router.get("/licoes/{slug}/historico", response_class=HTMLResponse, name="lesson_history")
def history(
    request: Request, slug: str, course: CourseDep, db: SessionDep, instructor: InstructorDep
):
    """Every revision of the lesson's file, newest first, each with its diff to the one before."""
    path = _path(course, slug)
    source = _read(path)
    editor.note_outside_change(db, path, slug, source)
    db.commit()
    rows = editor.history(db, path.name)
    diffs = {
        row.revision.id: diff_lines(
            row.previous.text if row.previous else "",
            row.revision.text,
            gettext("revision %(num)s") % {"num": row.previous.id}
            if row.previous
            else gettext("empty"),
            gettext("revision %(num)s") % {"num": row.revision.id},
        )
        for row in rows
    }
    context = {
        "slug": slug,
        "path": path,
        "rows": rows,
        "diffs": diffs,
        "current_hash": source.hash,
    }
    return render(request, "lesson_history.html", context)


@router.post(
    "/licoes/{slug}/historico/{revision_id}/restaurar",
    response_class=HTMLResponse,
    name="lesson_restore",
)
def restore(
    request: Request,
    slug: str,
    revision_id: RowId,
    course: CourseDep,
    db: SessionDep,
    instructor: InstructorDep,
    versao: HashField,
):
    """Publish an old revision again, as a new revision (409 if the file changed meanwhile)."""
    path = _path(course, slug)
    old = db.get(LessonRevision, revision_id)
    if old is None or old.file_name != path.name:
        raise HTTPException(status_code=404, detail=gettext(NO_REVISION))
    return _save(request, db, instructor, slug, path, old.text, versao, editor.RESTORED, old.id)


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
    return RedirectResponse(urls_of(request).lesson_editor(slug), status_code=303)


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

    The body was already capped by :class:`app.web.security.RequestGuard`; the type is read from
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
