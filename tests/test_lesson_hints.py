"""Issue 39, item 6: the lessons' hardest questions carry progressive hints, and the questions
a pool draws count in concept mastery like the others (each bank question names what it tests).

"Hardest" is judged by content, for want of item analysis on real learners (the bench seeds
answer at random): several steps of reasoning (a tree walked in order, a formula applied), a
number to compute, an order to recall, or a misconception the texts themselves warn about."""

from __future__ import annotations

from tests.support.learning import COURSE

HINTED = {
    "kernels": {
        "por-que-o-decode-e-lento",
        "teto-do-decode",
        "cenario-cluster",  # two questions of the guide's tree, and H100 is not "2–4+ GPUs"
        "ganho-3090",  # a ratio, not a difference (the foreseen wrong values)
        "ganho-pro-6000",
        "teto-do-decode-variante",
        "ganho-variante",
        "kv-cache-variante",
        "ordem-da-arvore",  # six rows in the guide's order, which no principle gives away
        "exllama-divergencia",  # the guide and the article disagree: whose word is asked
    },
    "escolha-self-hosted": {
        "frota-mista",  # a mixed fleet: the hardware rule for AMD restricts
        "rag-em-producao",  # hardware, scale, workload, in the text's order
        "plano-de-migracao",  # hardware, scale, workload, in the text's order
        "dev-para-prod",  # the text's 'mesmos pesos' against practice, boxed in the lesson
        "ordem-das-decisoes",
    },
    "alem-do-ollama": {
        "quando-ir-alem",  # five options recalled from one sentence of the article
        "paged-attention",
        "alem-do-teto",  # lesson 1's ceiling and a feature the article only names
    },
}

# The reasons to host a model oneself (data sovereignty, fine-tuning, TCO) are no glossary term.
UNTAGGED = {("escolha-self-hosted", "por-que-hospedar")}


def test_the_hardest_questions_of_each_lesson_have_hints():
    hinted = {
        lesson.slug: {q.id for q in lesson.questions.values() if q.hints}
        for lesson in COURSE.lessons
    }
    assert hinted == HINTED


def test_a_worked_answer_is_always_the_last_of_at_least_two_hints():
    worked = [
        (lesson.slug, q.id, len(q.hints))
        for lesson in COURSE.lessons
        for q in lesson.questions.values()
        if any(h.worked for h in q.hints)
    ]
    assert worked
    assert [w for w in worked if w[2] < 2] == [], "a lighter hint comes before the worked one"


def test_every_bank_question_tests_a_glossary_concept():
    untagged = {
        (lesson.slug, qid)
        for lesson in COURSE.lessons
        for qid in lesson.pooled
        if not lesson.questions[qid].concepts
    }
    assert untagged == UNTAGGED
