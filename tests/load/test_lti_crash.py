"""A crash under LTI load loses no grade: after ``kill -9``, a restart and the queue's delivery,
every learner's grade in the LMS equals the course's (issue 34, item 5), on SQLite and
PostgreSQL. All traffic goes to the two servers this test starts on 127.0.0.1; every loop is
bounded in time."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import httpx
import pytest

from app.content.variants import instance
from app.learning.progress import lesson_shape_total
from app.platform.models import utcnow
from tests.support.app import BACKENDS, create_postgres_database, db_rows, drop_postgres_database
from tests.support.cli import curso
from tests.support.html import csrf_from, soup
from tests.support.learning import KERNELS, right_form
from tests.support.lti_platform import course_and_lms, launch

QUESTIONS = list(KERNELS.questions.values())
LEARNERS = 12
HX = {"HX-Request": "true"}


@pytest.fixture(params=BACKENDS)
def lms(request, tmp_path):
    database_url = create_postgres_database() if request.param == "postgresql" else ""
    try:
        with course_and_lms(tmp_path, database_url) as pair:
            yield pair
    finally:
        if database_url:
            drop_postgres_database(database_url)


def answer_all(client: httpx.Client, base: str, page_url: str, stop: threading.Event) -> None:
    """Answer the lesson's questions right, one after the other, until ``stop`` or a failure
    (the server killed under the request)."""
    for question in QUESTIONS:
        if stop.is_set():
            return
        try:
            url = httpx.URL(base + page_url).copy_merge_params({"refazer": question.id})
            page = client.get(url).text
            node = soup(page).select_one(f"#pergunta-{question.id}")
            if node is None and question.id in KERNELS.pooled:
                continue  # a pool's question not drawn for this learner
            hidden = {i["name"]: i["value"] for i in node.select("form > input[type=hidden]")}
            shown = question
            if question.variants is not None:  # the numbers this form shows
                index = int(hidden["variante"].partition(".")[0])
                shown = instance(question, question.variants.point(index))
            fields = right_form(shown)
            fields = fields if isinstance(fields, dict) else {"opcao": fields}
            data = {**hidden, "csrftoken": csrf_from(page), **fields}
            client.post(base + node.select_one("form")["action"], data=data, headers=HX)
        except (httpx.HTTPError, AttributeError, TypeError):
            return  # the server is gone


def test_kill_9_under_lti_load_leaves_every_lms_grade_equal_to_the_courses(lms):
    tool, platform = lms
    users = [f"crash-{n}" for n in range(LEARNERS)]
    clients = [httpx.Client(timeout=30) for _ in users]
    pages = []
    for user, client in zip(users, clients, strict=True):
        opened = launch(client, platform, user=user, licao="kernels")
        assert opened.status_code == 303
        pages.append(opened.headers["location"])
    stop = threading.Event()
    threads = [
        threading.Thread(target=answer_all, args=(client, tool.url, page, stop), daemon=True)
        for client, page in zip(clients, pages, strict=True)
    ]
    for thread in threads:
        thread.start()
    # Crash in the middle: once answers are being stored (bounded wait), then a moment more.
    deadline = time.monotonic() + 30
    stored = "SELECT count(*) FROM attempt"
    while db_rows(tool.settings, stored) == [(0,)] and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    tool.kill()
    stop.set()
    for thread in threads:
        thread.join(30)
    for client in clients:
        client.close()

    tool.start()  # a restart on the same database (on another port); its sender wakes
    platform.stop()  # the LMS fetches the tool's keys from where the tool is now
    platform.tool_url = tool.url
    platform.start()
    # A score the killed sender held stays claimed for its lease (lti.LEASE, 2 minutes), so
    # that no other sender posts it meanwhile; the test moves that clock instead of waiting.
    expired = utcnow() - timedelta(seconds=1)
    db_rows(tool.settings, "UPDATE lti_score SET claimed_until = ? WHERE claim <> ''", expired)
    done = curso(tool.settings, "lti", "enviar", "--todos")
    assert done.returncode == 0, done.stderr
    course = dict(
        db_rows(
            tool.settings,
            "SELECT u.sub, count(DISTINCT a.question_id) FROM attempt a"
            " JOIN lti_user u ON u.learner_id = a.learner_id"
            " WHERE a.correct AND a.lesson_slug = 'kernels' GROUP BY u.sub",
        )
    )
    assert course, "answers were stored before the crash"
    total = lesson_shape_total(KERNELS)  # a pool counts its draw
    assert any(0 < right < total for right in course.values()), "killed mid-lesson"
    deadline = time.monotonic() + 60
    while True:
        newest: dict[str, tuple[str, float]] = {}
        for score in platform.gradebook()["scores"]:
            user, when = score["userId"], score["timestamp"]
            if user in course and (user not in newest or when > newest[user][0]):
                newest[user] = (when, score["scoreGiven"])
        lms_grades = {user: given for user, (_when, given) in newest.items()}
        if lms_grades == course or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert lms_grades == course, "a nota do AVA é a do curso, para cada aluno"
    pending = db_rows(tool.settings, "SELECT count(*) FROM lti_score WHERE status <> 'sent'")
    assert pending == [(0,)]
