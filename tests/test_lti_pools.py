"""The LMS grade of a lesson with pools and hints (issue 39): ``scoreMaximum`` counts a pool
as the questions it draws, by the rule of app/learning/rules.py, and the grade comment says
"com dica" for a question answered right only after a hint."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.content.course import load_course
from app.learning.mastery import concept_tags
from app.learning.progress import lesson_shape_total
from app.learning.rules import HINTED, NO_HELP
from app.learning.state import NewAnswer
from app.learning.writer import store_now
from app.lti.launch import GradedLaunch, launch_token
from app.lti.scores import ScoreOrder, queue_scores, score_order
from app.lti.tool import register_platform
from app.main import create_app
from app.platform.db import make_engine
from tests.support.app import TEST_SECRET, db_rows, make_settings
from tests.support.html import HX, soup
from tests.support.learning import COURSE, KERNELS
from tests.support.pools import BANK_IDS, VARIANT, course_folder, pool_lesson

LEARNER = "a" * 32


def launched(settings, course, slug: str) -> ScoreOrder:
    with Session(make_engine(settings.database_url)) as db:
        platform, _ = register_platform(
            db, "https://lms.example", "c", ["1"], *["https://lms.example/x"] * 3
        )
        assert platform.id is not None
        launch = GradedLaunch(
            platform.id, None, "sub-1", slug, "https://lms.example/lineitems/1", "", "link-1"
        )
    return score_order(launch, course, course.get(slug))


def answered(slug, question, correct: bool, n: int, order, help: int = NO_HELP) -> NewAnswer:
    chosen = sorted(question.answer)[0] if correct else "zz"
    return NewAnswer(
        slug,
        question.id,
        question.content_hash,
        chosen,
        correct,
        None,
        learner_id=LEARNER,
        key=f"chave-{n:04d}-xxxxxxxxxxxxxxxx",
        help=help,
        outbox=(order,),
    )


def test_a_pool_counts_as_its_draw_in_the_lms_grade(settings, tmp_path: Path):
    course = load_course(course_folder(tmp_path, pool_lesson()))
    lesson = course.get("decode-prefill")
    assert lesson_shape_total(lesson) == 1 + 3, "one quiz question and a pool of three"
    order = launched(settings, course, "decode-prefill")
    answers = [
        answered("decode-prefill", lesson.questions[qid], True, n, order)
        for n, qid in enumerate(BANK_IDS[:4])  # four of the bank right: the pool counts three
    ]
    engine = make_engine(settings.database_url)
    try:
        store_now(engine, answers, concept_tags(course), queue_scores)
    finally:
        engine.dispose()
    assert db_rows(settings, "SELECT score_given, score_maximum, comment FROM lti_score") == [
        (3.0, 4.0, "Acertou 3 de 4. 1 sem resposta.")
    ]


def test_the_grade_comment_says_com_dica_for_a_right_answer_after_a_hint(settings):
    order = launched(settings, COURSE, "kernels")
    questions = list(KERNELS.questions.values())
    first, second = questions[0], questions[1]
    engine = make_engine(settings.database_url)
    try:
        store_now(
            engine,
            [
                answered("kernels", first, True, 1, order, help=HINTED),
                answered("kernels", second, True, 2, order),
            ],
            concept_tags(COURSE),
            queue_scores,
        )
    finally:
        engine.dispose()
    label = dict(order.questions)[first.id]
    total = lesson_shape_total(KERNELS)  # a pool counts its draw
    assert db_rows(settings, "SELECT comment FROM lti_score") == [
        (f"Acertou 2 de {total}, com dica: {label}. {total - 2} sem resposta.",)
    ]


def test_other_questions_in_an_lms_tab_keep_the_tabs_launch(tmp_path: Path, database_url: str):
    """Found in review: "Outras perguntas" lost the tab's launch, so the new draw's answers
    went to every launch of the lesson in the session. The foot's form carries the launch, and
    the new draw's forms (htmx) or the page it goes back to (303) keep it."""
    settings = make_settings(tmp_path, course_folder(tmp_path, pool_lesson()), database_url)
    with TestClient(create_app(settings)) as client:

        def answer_the_draw(page_url: str) -> None:
            page = client.get(page_url).text
            for node in soup(page).select("#sorteio-decode-sorteio .question form"):
                fields = {i["name"]: i["value"] for i in node.select("input[type=hidden]")}
                client.post(node["action"], data={**fields, "opcao": ["a"]}, headers=HX)

        answer_the_draw("/licoes/decode-prefill")
        learner = db_rows(settings, "SELECT id FROM learner")[0][0]
        with Session(make_engine(settings.database_url)) as db:
            platform, _ = register_platform(
                db, "https://lms.example", "c", ["1"], *["https://lms.example/x"] * 3
            )
            assert platform.id is not None
        launch = GradedLaunch(platform.id, None, "sub-1", "decode-prefill", "", "", "link-1")
        token = launch_token(TEST_SECRET, launch, learner)
        tab = f"/licoes/decode-prefill?lancamento={token}"
        foot = soup(client.get(tab).text).select_one("form.pool-redraw")
        fields = {i["name"]: i["value"] for i in foot.select("input[type=hidden]")}
        assert fields["lancamento"] == token
        drawn = soup(client.post(foot["hx-post"], data=fields, headers=HX).text)
        forms = drawn.select("section.pool .question form")
        assert len(forms) == 3
        assert [f.select_one('input[name="lancamento"]')["value"] for f in forms] == [token] * 3
        answer_the_draw(tab)
        foot = soup(client.get(tab).text).select_one("form.pool-redraw")
        fields = {i["name"]: i["value"] for i in foot.select("input[type=hidden]")}
        back = client.post(foot["action"], data=fields, follow_redirects=False)
        assert back.status_code == 303
        assert back.headers["location"] == f"{tab}#sorteio-decode-sorteio"


def test_the_grade_comment_names_a_variant_question_by_its_values_not_its_first_variant(
    settings, tmp_path: Path
):
    """Found in review: the comment named a question with variants by its first variant's
    numbers ("936 GB/s lê 4 GB"), which the learner may never have seen. It names it as
    ``/progresso`` does, with each parameter as the values it takes."""
    course = load_course(course_folder(tmp_path, VARIANT))
    lesson = course.get("decode-prefill")
    order = launched(settings, course, "decode-prefill")
    engine = make_engine(settings.database_url)
    try:
        store_now(
            engine,
            [answered("decode-prefill", lesson.questions["teto-variante"], False, 1, order)],
            concept_tags(course),
            queue_scores,
        )
    finally:
        engine.dispose()
    assert db_rows(settings, "SELECT comment FROM lti_score") == [
        (
            "Acertou 0 de 2. Errou: “Uma GPU com 936 a 1.792 GB/s lê 4 a 16 GB de pesos por…”."
            " 1 sem resposta.",
        )
    ]
