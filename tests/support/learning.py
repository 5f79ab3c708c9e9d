"""The repository's course and answering its questions over HTTP, as a learner's browser does."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient

from app.content.course import load_course
from app.content.variants import instance
from tests.support.app import REPO_LESSONS, query
from tests.support.html import HX, csrf_from, soup, text

COURSE = load_course(REPO_LESSONS)


KERNELS = COURSE.get("kernels")


def stored(settings) -> list[tuple]:
    rows = query(
        settings, "SELECT lesson_slug, question_id, chosen, correct FROM attempt ORDER BY id"
    )
    return [(slug, qid, chosen, int(correct)) for slug, qid, chosen, correct in rows]


def version_of(html: str, qid: str) -> str:
    """The question version that the answer form of question ``qid`` on a page carries."""
    return _hidden(soup(html, only=f"pergunta-{qid}"), qid, "versao")


def key_of(html: str, qid: str) -> str:
    """The idempotency key of the answer form of question ``qid`` on a page."""
    return _hidden(soup(html, only=f"pergunta-{qid}"), qid, "chave")


def answer_form(page: str, qid: str, token: str | None = None, **fields) -> dict:
    """The answer form of question ``qid`` on ``page`` as a browser sends it: the page's CSRF
    token (or ``token``), the form's key and version, then ``fields`` (``opcao=...``)."""
    return {
        "csrftoken": token or csrf_from(page),
        "chave": key_of(page, qid),
        "versao": version_of(page, qid),
        **fields,
    }


def _hidden(form, qid: str, name: str) -> str:
    node = form.select_one(f'#pergunta-{qid} input[name="{name}"]')
    assert node, f"a pergunta {qid} não mostra o formulário"
    return node["value"]


def answer(
    client: TestClient,
    slug: str,
    qid: str,
    options: list[str] | dict,
    htmx: bool = True,
    token: str | None = None,
    key: str | None = None,
    form_of: str | None = None,
):
    """Answer question ``qid``: ``options`` are option ids, or the form fields of another kind
    (see :func:`right_form` and :func:`wrong_form`). ``token`` and ``key`` replace the form's,
    or ``form_of`` gives an earlier page whose form's token and key are sent."""
    if form_of is not None:
        token, key = csrf_from(form_of), key_of(form_of, qid)
    page = client.get(f"/licoes/{slug}?refazer={qid}").text
    fields = options if isinstance(options, dict) else {"opcao": options}
    form = soup(page, only=f"pergunta-{qid}")
    data = {
        "csrftoken": token or csrf_from(page),
        "chave": key or _hidden(form, qid, "chave"),
        "versao": _hidden(form, qid, "versao") if form.select_one(f"#pergunta-{qid}") else "",
        **fields,
    }
    variant = form.select_one(f'#pergunta-{qid} input[name="variante"]')
    if variant is not None:  # a numeric question with variants: the numbers it showed
        data.setdefault("variante", variant["value"])
    issued = form.select_one(f'#pergunta-{qid} input[name="emitida"]')
    if issued is not None:  # when the page was sent (an answer kept offline is never before)
        data.setdefault("emitida", issued["value"])
    return client.post(
        f"/licoes/{slug}/perguntas/{qid}",
        data=data,
        headers=HX if htmx else {},
        follow_redirects=False,
    )


def right_form(question) -> list[str] | dict:
    """The right answer to ``question`` of any kind, as :func:`answer` takes it."""
    if question.kind == "numeric":
        return {"valor": str(question.numeric.value).replace(".", ",")}
    if question.kind == "ordering":
        return {"posicao": [f"{item}={n}" for n, item in enumerate(question.order, start=1)]}
    return sorted(question.answer)


def shown_questions(client: TestClient, lesson) -> list:
    """The questions of ``lesson`` its page shows this client, in page order: its quiz
    questions and, in place of each pool, the questions drawn for them (a bank question that
    was not drawn has no place on the page)."""
    page = soup(client.get(f"/licoes/{lesson.slug}").text)
    shown = [node["id"].removeprefix("pergunta-") for node in page.select(".question[id]")]
    return [lesson.questions[qid] for qid in shown if qid in lesson.questions]


def finish(client: TestClient, lesson) -> list:
    """Answer right every question of ``lesson`` that its page shows this client: the lesson
    done. A quiz question first, so that the pools show the learner's own draw; the questions
    answered, in page order."""
    opener = next(q for q in lesson.questions.values() if q.id not in lesson.pooled)
    answer(client, lesson.slug, opener.id, right_answer(client, lesson.slug, opener))
    questions = shown_questions(client, lesson)
    for question in questions:
        if question.id != opener.id:
            answer(client, lesson.slug, question.id, right_answer(client, lesson.slug, question))
    return questions


def right_answer(client: TestClient, slug: str, question) -> list[str] | dict:
    """The right answer to ``question`` as the page shows it to this client now: for a
    question with variants, the right value of the numbers its form shows."""
    if question.variants is None:
        return right_form(question)
    page = client.get(f"/licoes/{slug}?refazer={question.id}").text
    token = _hidden(soup(page, only=f"pergunta-{question.id}"), question.id, "variante")
    index = int(token.partition(".")[0])
    return right_form(instance(question, question.variants.point(index)))


def wrong_form(question) -> list[str] | dict:
    """A wrong answer to ``question`` of any kind, as :func:`answer` takes it."""
    if question.kind == "numeric":
        return {"valor": str(question.numeric.value * 1000)}
    if question.kind == "ordering":
        order = list(reversed(question.order))
        return {"posicao": [f"{item}={n}" for n, item in enumerate(order, start=1)]}
    return [wrong_option(question)]


def wrong_option(question) -> str:
    return next(o.id for o in question.options if o.id not in question.answer)


def card(client: TestClient, slug: str) -> dict[str, str]:
    """What the progress page shows for one lesson."""
    node = soup(client.get("/progresso")).select_one(f'.progress-card[data-licao="{slug}"]')
    return {
        "status": text(node.select_one(".status")),
        "right": text(node.select_one(".stat-right")),
        "first": text(node.select_one(".stat-first")),
        "attempts": text(node.select_one(".stat-attempts")),
    }


def read_csv(response) -> list[dict[str, str]]:
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert response.headers["content-disposition"].startswith("attachment; filename=")
    assert response.content.startswith(b"\xef\xbb\xbf"), "o BOM do UTF-8, para o Excel"
    return list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))


def let_time_pass(settings, ago: timedelta = timedelta(minutes=1)) -> None:
    """Make every review card due ``ago`` before now: what the clock does once their intervals
    have passed. Answers are stamped with the real time, so the cards move, not the clock."""
    from sqlalchemy import update

    from app.platform.db import make_engine
    from app.platform.models import REVIEW_CARD

    engine = make_engine(settings.database_url)
    try:
        with engine.begin() as connection:
            connection.execute(update(REVIEW_CARD).values(due=datetime.now(UTC) - ago))
    finally:
        engine.dispose()


def store_walk(settings, learner_id: str, tree_id: str, path: str, result_id: str) -> None:
    """Store a finished walk of a decision tree (``path``: the values chosen, comma-separated),
    made on 1 May 2026, as the tree step does."""
    query(
        settings,
        "INSERT INTO walk (learner_id, tree_id, path, result_id, created_at)"
        " VALUES (:learner, :tree, :path, :result, '2026-05-01 10:00:00')",
        learner=learner_id,
        tree=tree_id,
        path=path,
        result=result_id,
    )
