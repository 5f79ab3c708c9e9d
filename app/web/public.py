"""The JSON shapes the API returns (``/api/progresso``, ``/meus-dados/exportar``), and how
each is built from what the learning floor reads. The routes return these, never a table row.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Annotated

from pydantic import BeforeValidator, Field
from pydantic.dataclasses import dataclass
from sqlmodel import SQLModel

from app.learning.grading import LessonProgress
from app.learning.learners import LearnerData
from app.learning.progress import CourseProgress
from app.learning.state import LearnerState
from app.platform.models import AttemptBase, utcnow


def _comma_split(value: object) -> object:
    return [item for item in value.split(",") if item] if isinstance(value, str) else value


CommaList = Annotated[list[str], BeforeValidator(_comma_split)]
"""A list stored comma-joined (``walk.path``, ``pool_draw.question_ids``), exported as a list."""


class WalkPublic(SQLModel):
    """A finished decision-tree walk, as the API and the export show it."""

    tree_id: str
    path: CommaList
    result_id: str
    created_at: datetime


@dataclass(frozen=True)
class LessonProgressPublic(LessonProgress):
    """One lesson's progress for the current learner, with the lesson's title."""

    title: Annotated[str, Field(description="The lesson's title, as the course lists it.")]


class PlacePublic(SQLModel):
    """Where "Continuar de onde parei" leads."""

    lesson_slug: str
    section: str | None
    url: str


class ProgressPublic(SQLModel):
    """The current learner's progress (``GET /api/progresso``).

    Attributes:
        percent: questions answered right at least once, as a share of the course, 0 to 100.
        lessons: every current lesson, in course order.
        walks: finished decision-tree walks, newest first.
        resume: where the learner was, or ``null``.
    """

    percent: int
    lessons: list[LessonProgressPublic]
    walks: list[WalkPublic]
    resume: PlacePublic | None


class LearnerPublic(SQLModel):
    """The learner row as exported."""

    id: str
    created_at: datetime
    place_lesson: str | None
    place_section: str | None
    place_at: datetime | None


class AccountPublic(SQLModel):
    """An account as exported: the password hash stays out (only it is never shown)."""

    username: str
    created_at: datetime
    password: str = "guardada apenas como hash argon2, que não é exportado"


class AttemptPublic(AttemptBase):
    """An attempt as exported: every stored field but the internal ids."""

    idempotency_key: str | None
    variant: str = ""  # a numeric question's variant: its parameters (JSON), or ""


class PoolDrawPublic(SQLModel):
    """A draw of a question pool, as exported ("Meus dados")."""

    lesson_slug: str
    pool_id: str
    number: int
    seed: str
    question_ids: CommaList
    created_at: datetime


class SessionPublic(SQLModel):
    """A session as exported (its id, a secret, stays out)."""

    expires_at: datetime


class MembershipPublic(SQLModel):
    """A class the learner is in, as "Meus dados" exports it."""

    class_name: str
    joined_at: datetime


class ReviewCardPublic(SQLModel):
    """A review card as exported ("Meus dados")."""

    lesson_slug: str
    question_id: str
    question_hash: str
    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None


class HintPublic(SQLModel):
    """A hint opened, as exported ("Meus dados")."""

    lesson_slug: str
    question_id: str
    question_hash: str
    hint: int
    worked: bool
    created_at: datetime
    answered: bool


class LearnerExport(SQLModel):
    """Everything stored about one learner ("Meus dados", LGPD access)."""

    exported_at: datetime
    learner: LearnerPublic | None
    account: AccountPublic | None
    attempts: list[AttemptPublic]
    walks: list[WalkPublic]
    sessions: list[SessionPublic]
    classes: list[MembershipPublic] = []
    review_cards: list[ReviewCardPublic] = []
    hints: list[HintPublic] = []
    draws: list[PoolDrawPublic] = []


def progress_public(
    progress: CourseProgress, state: LearnerState, resume_url: str = ""
) -> ProgressPublic:
    """The JSON shape of a learner's progress (lessons, finished walks, place); ``resume_url``
    is the link to ``progress.resume``."""
    lessons = [
        LessonProgressPublic(**asdict(p), title=lesson.meta.title_text)
        for lesson, p in progress.rows
    ]
    resume = progress.resume
    return ProgressPublic(
        percent=progress.percent,
        lessons=lessons,
        walks=[WalkPublic.model_validate(walk, from_attributes=True) for walk in state.walks],
        resume=PlacePublic(lesson_slug=resume.lesson.slug, section=resume.section, url=resume_url)
        if resume
        else None,
    )


def learner_export(data: LearnerData | None) -> LearnerExport:
    """The JSON shape of "Meus dados"; ``None`` (a visitor who stored nothing) gives empty parts."""
    if data is None:
        return LearnerExport(
            exported_at=utcnow(), learner=None, account=None, attempts=[], walks=[], sessions=[]
        )
    learner, account = data.learner, data.account
    return LearnerExport(
        exported_at=utcnow(),
        learner=LearnerPublic.model_validate(learner, from_attributes=True) if learner else None,
        account=AccountPublic(username=account.username, created_at=account.created_at)
        if account
        else None,
        attempts=[AttemptPublic.model_validate(a, from_attributes=True) for a in data.attempts],
        walks=[WalkPublic.model_validate(walk, from_attributes=True) for walk in data.walks],
        sessions=[SessionPublic(expires_at=s.expires_at) for s in data.sessions],
        classes=[MembershipPublic(class_name=name, joined_at=when) for name, when in data.classes],
        hints=[
            HintPublic(
                lesson_slug=h.lesson_slug,
                question_id=h.question_id,
                question_hash=h.question_hash,
                hint=h.hint,
                worked=h.worked,
                created_at=h.created_at,
                answered=h.attempt_id is not None,
            )
            for h in data.hints
        ],
        review_cards=[
            ReviewCardPublic.model_validate(card, from_attributes=True)
            for card in data.review_cards
        ],
        draws=[PoolDrawPublic.model_validate(d, from_attributes=True) for d in data.draws],
    )
