"""The LMS grade of a lesson with pools and hints (issue 39): ``scoreMaximum`` counts a pool
as the questions it draws, by the rule of app/learning/rules.py, and the grade comment says
"com dica" for a question answered right only after a hint."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import Session

from app.content.course import load_course
from app.learning.mastery import concept_tags
from app.learning.progress import lesson_shape_total
from app.learning.rules import HINTED, NO_HELP
from app.learning.state import NewAnswer
from app.learning.writer import store_now
from app.lti.launch import GradedLaunch
from app.lti.scores import ScoreOrder, queue_scores, score_order
from app.lti.tool import register_platform
from app.platform.db import make_engine
from tests.support.app import db_rows
from tests.support.learning import COURSE, KERNELS
from tests.support.pools import BANK_IDS, course_folder, pool_lesson

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
        LEARNER,
        slug,
        question.id,
        question.content_hash,
        chosen,
        correct,
        None,
        f"chave-{n:04d}-xxxxxxxxxxxxxxxx",
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
