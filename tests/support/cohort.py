"""A seeded database: ten learners with known first tries, for the dashboard and item analysis."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlmodel import Session

from app.learning.mastery import concept_tags, record_in_mastery
from app.learning.tallies.write import record_in_tallies
from app.platform.models import Attempt, Learner, WalkRecord
from tests.support.lessons import GOOD, HEADER, TREE

NOW = datetime.now(UTC)


def question(qid: str, key: str) -> str:
    options = "".join(
        f"    - id: {o}\n      text: Opção {o.upper()} de {qid}\n      explanation: Explicação de "
        f"{o} em {qid}.\n"
        for o in "abc"
    )
    return (
        f"- id: {qid}\n  kind: single\n  prompt: Pergunta {qid}?\n  options:\n{options}"
        f"  answer: [{key}]\n"
    )


ITEMS = (
    GOOD.replace("slug: decode-prefill", "slug: itens")
    .replace("order: 1", "order: 2")
    .replace("title: Decode e prefill", "title: Itens")
    .split("```quiz")[0]
    + "```quiz\n"
    + "".join(
        question(q, k)
        for q, k in [("facil", "a"), ("boa", "b"), ("media", "c"), ("ruim", "a"), ("dificil", "b")]
    )
    + "```\n"
)


TREES = HEADER.replace("order: 1", "order: 3") + TREE


# The option each of the learners L0..L9 chose on the first try at each question of "itens".
# Course scores (right on the first try): L0 4; L1 L2 L6 L9 3; L3 L4 L5 L7 L8 2.
# Ranked by score, ties by learner id: L0 L1 L2 | L6 L9 L3 L4 | L5 L7 L8,
# so k = 27% of 10, rounded = 3: the top group is L0 L1 L2, the bottom group L5 L7 L8.
FIRST_TRIES = {
    "facil": "aaaaaaaaaa",  # key a, all right: facility 10/10 = 100%; D = (3 - 3) / 3 = 0
    "boa": "bbbbbbaacc",  # key b, L0-L5 right: 6/10 = 60%; top 3, bottom 1 (L5): D = 2/3
    "media": "cccaaacbbb",  # key c, L0 L1 L2 L6 right: 4/10 = 40%; top 3, bottom 0: D = 1
    "ruim": "cccccbaaaa",  # key a, L6-L9 right: 40%; top 0, bottom 2 (L7 L8): D = -2/3;
    # its option c was chosen by the whole top group and nobody in the bottom one
    "dificil": "baaaaaaaab",  # key b, L0 and L9 right: 2/10 = 20%; top 1 (L0), bottom 0: D = 1/3
}


LEARNERS = [f"{i:02d}" + "0" * 30 for i in range(10)]


def write_cohort_lessons(folder: Path) -> None:
    """The cohort's course: "decode-prefill", "itens" and a lesson with the tree "mini"."""
    folder.mkdir(exist_ok=True)
    (folder / "01-decode.md").write_text(GOOD, encoding="utf-8")
    (folder / "02-itens.md").write_text(ITEMS, encoding="utf-8")
    (folder / "03-arvore.md").write_text(TREES, encoding="utf-8")


def seed_cohort(engine, course) -> None:
    """Store the cohort's learners, attempts and walks (see FIRST_TRIES)."""
    recent, old = NOW - timedelta(days=2), NOW - timedelta(days=20)

    def attempt(lid: str, slug: str, qid: str, option: str, when: datetime, version: str = ""):
        question = course.get(slug).questions[qid]
        return Attempt(
            learner_id=lid, lesson_slug=slug, question_id=qid, chosen=option,
            question_hash=version or question.content_hash, correct=option in question.answer,
            created_at=when,
        )  # fmt: skip

    attempts = [
        attempt(lid, "itens", qid, option, (old if n >= 8 else recent) + timedelta(minutes=row))
        for row, (qid, chosen) in enumerate(FIRST_TRIES.items())
        for n, (lid, option) in enumerate(zip(LEARNERS, chosen, strict=True))
    ]
    # Later attempts: counted as attempts, never as first tries.
    attempts += [
        attempt(LEARNERS[7], "itens", "boa", "b", NOW - timedelta(hours=1)),
        attempt(LEARNERS[0], "itens", "ruim", "a", NOW - timedelta(hours=1)),
    ]
    # An older version of "boa": out of the item figures, but it counts for completion.
    attempts.append(attempt(LEARNERS[9], "itens", "boa", "b", old - timedelta(days=1), "antiga"))
    attempts += [
        attempt(lid, "decode-prefill", "fase-banda", option, recent)
        for lid, option in zip(LEARNERS[:4], "bbba", strict=True)
    ]
    walks = [
        WalkRecord(learner_id=lid, tree_id="mini", path=path, result_id=result, created_at=when)
        for lid, path, result, when in [
            (LEARNERS[0], "cpu", "r-cpu", recent),
            (LEARNERS[1], "gpu,one", "r-cpu", recent),
            (LEARNERS[1], "gpu,many", "r-vllm", recent),
            ("x" * 32, "tpu", "r-velho", NOW - timedelta(days=40)),
        ]
    ]
    learners = [Learner(id=lid, created_at=old) for lid in [*LEARNERS, "x" * 32]]
    with Session(engine) as db:
        db.add_all(learners)
        db.commit()
        db.add_all(attempts + walks)
        db.flush()
        record_in_tallies(db, attempts)  # what the app's write path does
        record_in_mastery(db, concept_tags(course), attempts)
        db.commit()
