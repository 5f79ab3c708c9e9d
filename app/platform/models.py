"""SQLModel tables. Only Alembic creates them (see ``migrations/``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal, Protocol

import sqlalchemy as sa
from sqlmodel import Field, Index, SQLModel, UniqueConstraint


def utcnow() -> datetime:
    """Return the current time in UTC, timezone-aware."""
    return datetime.now(UTC)


class Learner(SQLModel, table=True):
    """A person taking the course; anonymous until they sign up.

    Attributes:
        id: random hex id (32 characters), also held in the server-side session.
        created_at: first visit that stored anything, UTC.
        place_lesson: slug of the lesson the learner was last in (for "Continuar de onde parei").
        place_section: anchor of the section inside that lesson, or ``None`` for its top.
        place_at: when the place was recorded, UTC.
        birth_key: the idempotency key of the answer form whose first answer made this learner
            (a visitor's), unique; a double submit of that form finds the learner by it for
            :data:`app.learning.store.BIRTH_WINDOW` after ``created_at``, never later.
    """

    __tablename__ = "learner"  # spelled out: the dashboard reads the table by this name
    __table_args__ = (UniqueConstraint("birth_key", name="uq_learner_birth_key"),)

    id: str = Field(primary_key=True, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)
    place_lesson: str | None = Field(default=None, max_length=100)
    place_section: str | None = Field(default=None, max_length=200)
    place_at: datetime | None = None
    birth_key: str | None = Field(default=None, max_length=64)


class AttemptBase(SQLModel):
    """Fields shared by stored and public attempts.

    Attributes:
        lesson_slug: the lesson's ``slug``.
        question_id: the question's ``id`` inside that lesson.
        question_hash: content hash of the question version answered ("" before versions existed).
        chosen: chosen option ids, sorted, comma-separated (ids never hold commas).
        chosen: chosen option ids, sorted, comma-separated (ids never hold commas); for a
            ``numeric`` question the number ("4.41"), for ``ordering`` the item ids in the
            learner's order.
        correct: the grade given when the answer was submitted; never recomputed.
        created_at: submission time, UTC.
        credit: ``ordering``: the share of items in their right position, 0 to 1 ("right"
            still means fully right); ``None`` for other kinds.
        review: the answer was given on the spaced review page (``/revisar``), not in the
            lesson.
    """

    lesson_slug: str = Field(max_length=100)
    question_id: str = Field(max_length=100)
    question_hash: str = Field(default="", max_length=64)
    chosen: str = Field(max_length=1000)
    correct: bool
    created_at: datetime = Field(default_factory=utcnow)
    credit: float | None = None
    review: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})


class Attempt(AttemptBase, table=True):
    """One submitted answer to one quiz question by one learner.

    ``idempotency_key`` comes from the form: the same form sent twice stores one attempt
    (unique per learner).
    """

    __tablename__ = "attempt"  # spelled out: the dashboard reads the table by this name

    __table_args__ = (
        Index("ix_attempt_learner_lesson", "learner_id", "lesson_slug"),
        UniqueConstraint("learner_id", "idempotency_key", name="uq_attempt_learner_key"),
    )

    id: int | None = Field(default=None, primary_key=True)
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32)
    idempotency_key: str | None = Field(default=None, max_length=64)

    def chosen_ids(self) -> frozenset[str]:
        """Return the chosen option ids as a set."""
        return frozenset(filter(None, self.chosen.split(",")))


class WalkRecord(SQLModel, table=True):
    """A decision-tree walk the learner finished, as stored (table ``walk``).

    Not to be confused with :class:`app.content.walk.Walk`, a walk in progress through a tree.

    Attributes:
        learner_id: who walked it.
        tree_id: the tree's id.
        path: the chosen option values, joined by ``,``.
        result_id: the id of the result reached.
        created_at: when it was finished, UTC.
    """

    __tablename__ = "walk"

    id: int | None = Field(default=None, primary_key=True)
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32, index=True)
    tree_id: str = Field(max_length=100)
    path: str = Field(max_length=1000)
    result_id: str = Field(max_length=100)
    created_at: datetime = Field(default_factory=utcnow)


class Account(SQLModel, table=True):
    """An optional sign-in for a learner (username and argon2 password hash).

    Attributes:
        learner_id: the learner this account signs in as (one account per learner).
        username: lower-case, unique.
        password_hash: an argon2 hash (PHC string), never the password.
        created_at: sign-up time, UTC.
        is_instructor: may open the instructor pages (granted with ``curso instrutor``).
        is_admin: an instructor who sees every class, not only their own
            (``curso instrutor adicionar --admin``).
    """

    id: int | None = Field(default=None, primary_key=True)
    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", max_length=32, unique=True
    )
    username: str = Field(max_length=30, unique=True)
    password_hash: str = Field(max_length=255)
    created_at: datetime = Field(default_factory=utcnow)
    is_instructor: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    is_admin: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})


class ReviewCard(SQLModel, table=True):
    """The spaced review state of one question for one learner (an FSRS card).

    The columns are those of ``fsrs.Card``; :mod:`app.learning.review` turns rows into cards
    and back.

    Attributes:
        learner_id / lesson_slug / question_id: whose card, for which question.
        question_hash: the question version last answered; a card whose version is not the
            live one counts as new (due at once) and starts over on its next answer.
        state: FSRS state (1 learning, 2 review, 3 relearning).
        step: the learning step, or ``None`` in the review state.
        stability / difficulty: FSRS memory figures, ``None`` before the first rating.
        due: when the question is due for review, UTC.
        last_review: when it was last answered, UTC.
    """

    __tablename__ = "review_card"

    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    lesson_slug: str = Field(max_length=100, primary_key=True)
    question_id: str = Field(max_length=100, primary_key=True)
    question_hash: str = Field(default="", max_length=64)
    state: int
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: datetime
    last_review: datetime | None = None


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


class WebSession(SQLModel, table=True):
    """A server-side session (starsessions' store, see ``app/platform/sessions.py``).

    Attributes:
        id: the random session id held in the cookie.
        data: the session as JSON.
        learner_id: the learner in the session (no foreign key: anonymous learners have
            no row until their first answer); used to end every session of a deleted learner.
        expires_at: when the session may be dropped, UTC.
    """

    id: str = Field(primary_key=True, max_length=64)
    data: str
    learner_id: str | None = Field(default=None, max_length=32, index=True)
    expires_at: datetime = Field(index=True)


class StoredWalk(Protocol):
    """What :meth:`WalkPublic.from_walk` reads: a :class:`WalkRecord` row, or the learner
    state's ``WalkRow`` (:mod:`app.learning.state`)."""

    @property
    def tree_id(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def result_id(self) -> str: ...

    @property
    def created_at(self) -> datetime: ...


class WalkPublic(SQLModel):
    """A finished decision-tree walk, as the API and the export show it."""

    tree_id: str
    path: list[str]
    result_id: str
    created_at: datetime

    @classmethod
    def from_walk(cls, walk: StoredWalk) -> WalkPublic:
        """Build from a stored walk, splitting its path."""
        path = [value for value in walk.path.split(",") if value]
        return cls(
            tree_id=walk.tree_id, path=path, result_id=walk.result_id, created_at=walk.created_at
        )


class LessonProgressPublic(SQLModel):
    """One lesson's progress for the current learner.

    Attributes:
        slug: the lesson's slug.
        title: its title.
        status: ``não iniciada``, ``em andamento`` or ``concluída``.
        right: questions answered right at least once.
        total: questions the lesson has now.
        first_try_right: questions right on the first attempt.
        attempts: attempts on the lesson's current questions.
    """

    slug: str
    title: str
    status: Literal["não iniciada", "em andamento", "concluída"]
    right: int
    total: int
    first_try_right: int
    attempts: int


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


class AttemptPublic(AttemptBase):
    """An attempt as exported: every stored field but the internal ids."""

    idempotency_key: str | None


class AccountPublic(SQLModel):
    """An account as exported: the password hash stays out (only it is never shown)."""

    username: str
    created_at: datetime
    password: str = "guardada apenas como hash argon2, que não é exportado"


class LearnerPublic(SQLModel):
    """The learner row as exported."""

    id: str
    created_at: datetime
    place_lesson: str | None
    place_section: str | None
    place_at: datetime | None


class SessionPublic(SQLModel):
    """A session as exported (its id, a secret, stays out)."""

    expires_at: datetime


class MembershipPublic(SQLModel):
    """A class the learner is in, as "Meus dados" exports it."""

    class_name: str
    joined_at: datetime


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


class RateLimit(SQLModel, table=True):
    """A fixed-window counter of the ``limits`` library (see ``app/platform/ratelimit_store.py``).

    Attributes:
        key: what is counted, e.g. failed sign-ins of one username.
        count: hits in the current window.
        expires_at: when the window ends, in epoch seconds.
    """

    __tablename__ = "rate_limit"

    key: str = Field(primary_key=True, max_length=255)
    count: int
    expires_at: float = Field(index=True)


class ReportCache(SQLModel, table=True):
    """Figures computed from every attempt, kept for a while.

    See ``app/analytics/dashboard_cache.py``.

    Attributes:
        key: what was computed and for which version of the course's questions.
        computed_at: when, UTC.
        payload: the figures as JSON.
    """

    __tablename__ = "report_cache"

    key: str = Field(primary_key=True, max_length=80)
    computed_at: datetime
    payload: str


class LessonRevision(SQLModel, table=True):
    """One published version of a lesson file (the editor's history).

    Attributes:
        id: increasing number.
        file_name: the file's name in the lessons folder (the history follows the file,
            whose slug may change).
        lesson_slug: the lesson's slug when the revision was recorded.
        text: the whole text, LF line endings, no BOM (as the editor shows it).
        content_hash: SHA-256 (hex) of the file's bytes after the save.
        origin: ``editor`` (saved in the browser), ``restored`` (an old revision published
            again), ``outside`` (the file changed on disk outside the editor) or ``initial``
            (the file as the editor first found it).
        restored_from: for ``restored``, the revision published again.
        account_id: the instructor who saved it (``None`` for changes made outside the
            editor, or once the account is deleted).
        created_at: when it was recorded, UTC.
    """

    __tablename__ = "lesson_revision"

    id: int | None = Field(default=None, primary_key=True)
    file_name: str = Field(max_length=255, index=True)
    lesson_slug: str = Field(max_length=100)
    text: str = Field(sa_type=sa.Text)
    content_hash: str = Field(max_length=64)
    origin: str = Field(max_length=20)
    restored_from: int | None = None
    account_id: int | None = Field(default=None, foreign_key="account.id", ondelete="SET NULL")
    created_at: datetime = Field(default_factory=utcnow)


class LessonRename(SQLModel, table=True):
    """A lesson's slug changed in the editor: its learners' rows were moved with it, and its
    old addresses lead to the new one (see ``app/learning/renames.py``).

    Attributes:
        old_slug / new_slug: the slug before and after the publication.
        file_name: the lesson file, in the lessons folder.
        revision_id: the revision that published the new slug.
        learners: learners whose progress was carried over.
        created_at: when, UTC.
    """

    __tablename__ = "lesson_rename"

    id: int | None = Field(default=None, primary_key=True)
    old_slug: str = Field(max_length=100, index=True)
    new_slug: str = Field(max_length=100)
    file_name: str = Field(max_length=255)
    revision_id: int | None = Field(
        default=None, foreign_key="lesson_revision.id", ondelete="SET NULL"
    )
    learners: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class LessonDraft(SQLModel, table=True):
    """A text saved in the editor with errors, so not published; one per file and instructor.

    Attributes:
        file_name: the lesson file's name in the lessons folder.
        account_id: the instructor whose draft it is.
        text: the text as typed (LF line endings).
        base_hash: the hash of the file the instructor started from.
        updated_at: last save, UTC.
    """

    __tablename__ = "lesson_draft"
    __table_args__ = (UniqueConstraint("file_name", "account_id"),)

    id: int | None = Field(default=None, primary_key=True)
    file_name: str = Field(max_length=255)
    account_id: int = Field(foreign_key="account.id", ondelete="CASCADE")
    text: str = Field(sa_type=sa.Text)
    base_hash: str = Field(max_length=64)
    updated_at: datetime = Field(default_factory=utcnow)


class Classroom(SQLModel, table=True):
    """A class (turma): learners who join by a link, its instructors and its due dates.

    Attributes:
        name / description: as the instructor wrote them.
        join_code: the unguessable code of the join link (``secrets.token_urlsafe``);
            rotating it makes the old link stop working.
        time_zone: IANA zone in which due dates are entered and shown.
        created_at: UTC.
    """

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=120)
    description: str = Field(default="", max_length=1000)
    join_code: str = Field(max_length=64, unique=True)
    time_zone: str = Field(default="America/Sao_Paulo", max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class ClassStaff(SQLModel, table=True):
    """An instructor of a class."""

    __tablename__ = "class_staff"

    class_id: int = Field(foreign_key="classroom.id", ondelete="CASCADE", primary_key=True)
    account_id: int = Field(foreign_key="account.id", ondelete="CASCADE", primary_key=True)


class ClassMember(SQLModel, table=True):
    """A learner in a class (joined by the link, with an account).

    Attributes:
        joined_at: UTC.
    """

    __tablename__ = "class_member"

    class_id: int = Field(foreign_key="classroom.id", ondelete="CASCADE", primary_key=True)
    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    joined_at: datetime = Field(default_factory=utcnow)


class ClassDue(SQLModel, table=True):
    """A lesson's due date in a class, stored in UTC.

    Answers after it are accepted and counted as late.
    """

    __tablename__ = "class_due"

    class_id: int = Field(foreign_key="classroom.id", ondelete="CASCADE", primary_key=True)
    lesson_slug: str = Field(max_length=100, primary_key=True)
    due_at: datetime


class FirstTry(SQLModel, table=True):
    """A learner's history on one question version: the first attempt and the counts since.

    One row per learner × lesson × question × version, kept as each answer is written
    (see ``app/learning/aggregates.py``). "First" follows
    :data:`app.learning.rules.FIRST_TRY_ORDER`.

    Attributes:
        attempt_id: the first attempt's id.
        created_at: the first attempt's time, UTC.
        chosen / correct: the first attempt's answer and grade.
        attempts: every attempt at this version.
        rights: attempts at this version that were right.
        last_at: the latest attempt's time, UTC.
    """

    __tablename__ = "first_try"

    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    lesson_slug: str = Field(primary_key=True, max_length=100)
    question_id: str = Field(primary_key=True, max_length=100)
    question_hash: str = Field(primary_key=True, max_length=64)
    attempt_id: int
    created_at: datetime
    chosen: str = Field(max_length=1000)
    correct: bool
    attempts: int
    rights: int
    last_at: datetime


class QuestionTally(SQLModel, table=True):
    """Counters of one question version over every learner.

    Attributes:
        attempts: every attempt (retries included).
        learners: learners who answered it (one first try each).
        first_right: first tries that were right.
    """

    __tablename__ = "question_tally"

    lesson_slug: str = Field(primary_key=True, max_length=100)
    question_id: str = Field(primary_key=True, max_length=100)
    question_hash: str = Field(primary_key=True, max_length=64)
    attempts: int
    learners: int
    first_right: int


class TallyBasis(SQLModel, table=True):
    """The question versions the score-dependent counters count as current (one per question).

    When the course's versions differ, those counters are recounted from ``first_try``.
    """

    __tablename__ = "tally_basis"

    lesson_slug: str = Field(primary_key=True, max_length=100)
    question_id: str = Field(primary_key=True, max_length=100)
    question_hash: str = Field(max_length=64)


class LearnerTally(SQLModel, table=True):
    """One learner's figures for the dashboard.

    Attributes:
        last_at: the learner's latest attempt, UTC.
        score: first tries right at the basis versions (the course score that ranks learners).
        answers: the first tries at the basis versions, one line each, ``slug``, ``question
            id``, ``chosen`` and ``1``/``0`` (right or not) separated by tabs, in no set
            order (``app.learning.aggregates.decode_answers``); read for the learners on the edge of
            a 27% group.
    """

    __tablename__ = "learner_tally"
    __table_args__ = (Index("ix_learner_tally_score", "score", "learner_id"),)

    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    last_at: datetime
    score: int
    answers: str = Field(default="", sa_type=sa.Text)


class KeptMastery(SQLModel, table=True):
    """One learner's mastery of one concept, kept as answers are written.

    See ``app/learning/mastery.py`` for the rule and how the rows are kept.

    Attributes:
        concept: the glossary term's slug.
        recent: the last :data:`~app.learning.mastery.LAST_N` answers counted, newest first,
            one line each: time (UTC, ``YYYY-MM-DD HH:MM:SS.ffffff``), attempt id and ``1`` or
            ``0`` (right or not), separated by tabs.
        mastery: 0 to 1, by the rule, over ``recent``.
        answers: how many lines ``recent`` holds.
    """

    __tablename__ = "kept_mastery"

    learner_id: str = Field(
        foreign_key="learner.id", ondelete="CASCADE", primary_key=True, max_length=32
    )
    concept: str = Field(primary_key=True, max_length=100)
    recent: str = Field(sa_type=sa.Text)
    mastery: float
    answers: int


class MasteryTally(SQLModel, table=True):
    """One concept's mastery summed over learners, kept with :class:`KeptMastery`.

    Attributes:
        learners: learners with a ``kept_mastery`` row for the concept.
        answers: the sum of their ``answers``.
        units: the sum of their mastery in millionths of millionths (each learner's
            ``round(mastery × 10¹²)``; whole numbers, so adding and taking away never drifts).
    """

    __tablename__ = "mastery_tally"

    concept: str = Field(primary_key=True, max_length=100)
    learners: int
    answers: int
    units: int = Field(sa_type=sa.BigInteger)


class MasteryTag(SQLModel, table=True):
    """A concept tag of a current question, as :class:`KeptMastery` counts it.

    When the course's tags differ, the kept mastery is computed again from ``attempt``.
    """

    __tablename__ = "mastery_tag"

    lesson_slug: str = Field(primary_key=True, max_length=100)
    question_id: str = Field(primary_key=True, max_length=100)
    concept: str = Field(primary_key=True, max_length=100)


class LessonTally(SQLModel, table=True):
    """One lesson's completion counters over the basis versions.

    Attributes:
        started: learners who answered at least one of its questions.
        completed: learners who got every one of its questions right at least once.
    """

    __tablename__ = "lesson_tally"

    lesson_slug: str = Field(primary_key=True, max_length=100)
    started: int
    completed: int


class ScoreTally(SQLModel, table=True):
    """First tries at a basis version, counted by the learners' course score and answer.

    Attributes:
        score: the learners' course score.
        chosen: the first try's answer (option ids, comma-separated).
        learners: learners with that score whose first try was ``chosen``.
        rights: of them, first tries that were right.
    """

    __tablename__ = "score_tally"
    __table_args__ = (
        UniqueConstraint("lesson_slug", "question_id", "score", "chosen", name="uq_score_tally"),
    )

    id: int | None = Field(default=None, primary_key=True)
    lesson_slug: str = Field(max_length=100)
    question_id: str = Field(max_length=100)
    score: int
    chosen: str = Field(max_length=1000)
    learners: int
    rights: int


class LtiPlatform(SQLModel, table=True):
    """An LMS registered as an LTI 1.3 platform (``curso lti registrar``, ``/instrutor/lti``).

    Attributes:
        issuer / client_id: who signs launches (``iss``) and the tool's id there (``aud``).
        auth_url: the platform's OIDC authorization endpoint.
        token_url: its OAuth 2 token endpoint (grades are posted with its tokens).
        jwks_url: its public keys (launches are verified against them).
    """

    __tablename__ = "lti_platform"
    __table_args__ = (UniqueConstraint("issuer", "client_id", name="uq_lti_platform"),)

    id: int | None = Field(default=None, primary_key=True)
    issuer: str = Field(max_length=255)
    client_id: str = Field(max_length=255)
    auth_url: str = Field(max_length=1000)
    token_url: str = Field(max_length=1000)
    jwks_url: str = Field(max_length=1000)
    created_at: datetime = Field(default_factory=utcnow)


class LtiDeployment(SQLModel, table=True):
    """A deployment of the tool on a platform (a platform can have several)."""

    __tablename__ = "lti_deployment"

    platform_id: int = Field(foreign_key="lti_platform.id", ondelete="CASCADE", primary_key=True)
    deployment_id: str = Field(max_length=255, primary_key=True)


class LtiKey(SQLModel, table=True):
    """The tool's RSA key pair (``curso lti chaves`` makes a new one).

    Attributes:
        kid: the key id published in ``/lti/jwks.json``.
        private_pem: the private key, PEM.
        public_jwk: the public key as a JWK (JSON).
        created_at: UTC; the newest key signs.
        retired_at: when a newer key replaced it, UTC; it stays in the JWKS for the rotation
            window, then leaves it.
    """

    __tablename__ = "lti_key"

    kid: str = Field(primary_key=True, max_length=64)
    private_pem: str = Field(sa_type=sa.Text)
    public_jwk: str = Field(sa_type=sa.Text)
    created_at: datetime = Field(default_factory=utcnow)
    retired_at: datetime | None = None


class LtiState(SQLModel, table=True):
    """What the LTI library keeps between requests (OIDC state, nonces, launches, tokens).

    Kept in the database, not in a cookie's session: the launch arrives as a POST from the
    LMS, where the course's ``SameSite=Lax`` cookies are not sent. A nonce row is deleted
    when its launch is accepted, so an id_token is accepted once.
    """

    __tablename__ = "lti_state"

    key: str = Field(primary_key=True, max_length=255)
    value: str = Field(sa_type=sa.Text)
    expires_at: datetime = Field(index=True)


class LtiUser(SQLModel, table=True):
    """A person of a platform (``iss`` + ``sub``) and the course learner and account they are."""

    __tablename__ = "lti_user"

    platform_id: int = Field(foreign_key="lti_platform.id", ondelete="CASCADE", primary_key=True)
    sub: str = Field(max_length=255, primary_key=True)
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32)
    account_id: int = Field(foreign_key="account.id", ondelete="CASCADE")
    name: str = Field(default="", max_length=255)
    created_at: datetime = Field(default_factory=utcnow)


class LtiContext(SQLModel, table=True):
    """An LMS course (context) and the class (turma) made for it on its first launch."""

    __tablename__ = "lti_context"

    platform_id: int = Field(foreign_key="lti_platform.id", ondelete="CASCADE", primary_key=True)
    context_id: str = Field(max_length=255, primary_key=True)
    class_id: int = Field(foreign_key="classroom.id", ondelete="CASCADE")


class LtiScore(SQLModel, table=True):
    """A score waiting to be sent to the LMS gradebook, or sent (AGS), one per graded answer.

    Attributes:
        platform_id / class_id: where it goes, and the class of the LMS course.
        learner_id / user_sub: whose score, in the course and on the platform.
        lineitem_url: the gradebook column, when the launch named it; else it is found or
            made under ``lineitems_url`` by ``resource_link_id`` and ``lesson_slug``.
        score_given / score_maximum / comment / activity_progress / grading_progress: the
            AGS score.
        status: ``pending``, ``sending`` (taken by a sender until ``next_try_at``), ``sent`` or
            ``failed`` (still retried; ``last_error`` says why).
        tries / next_try_at: retries with exponential backoff.
    """

    __tablename__ = "lti_score"
    __table_args__ = (Index("ix_lti_score_status_next", "status", "next_try_at"),)

    id: int | None = Field(default=None, primary_key=True)
    platform_id: int = Field(foreign_key="lti_platform.id", ondelete="CASCADE")
    class_id: int | None = Field(default=None, foreign_key="classroom.id", ondelete="SET NULL")
    learner_id: str = Field(foreign_key="learner.id", ondelete="CASCADE", max_length=32)
    user_sub: str = Field(max_length=255)
    lineitem_url: str = Field(default="", max_length=1000)
    lineitems_url: str = Field(default="", max_length=1000)
    resource_link_id: str = Field(default="", max_length=255)
    lesson_slug: str = Field(max_length=100)
    lesson_title: str = Field(default="", max_length=255)
    score_given: float
    score_maximum: float
    comment: str = Field(default="", max_length=1000)
    activity_progress: str = Field(max_length=20)
    grading_progress: str = Field(max_length=20)
    created_at: datetime = Field(default_factory=utcnow)
    status: str = Field(default="pending", max_length=10)
    tries: int = 0
    next_try_at: datetime = Field(default_factory=utcnow)
    last_error: str = Field(default="", max_length=1000)
    sent_at: datetime | None = None
