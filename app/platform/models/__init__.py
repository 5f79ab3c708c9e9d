"""The tables (SQLModel), one module per feature; only Alembic creates them (``migrations/``).

Each module defines its models and, next to them, the SQLAlchemy Core handle of every table
that Core statements use (``ATTEMPT``, ``FIRST_TRY``...). Importing this package registers
every table on ``SQLModel.metadata`` (what Alembic compares with the database), and every
name is importable from here.
"""

from app.platform.models.accounts import (
    ACCOUNT,
    Account,
    RateLimit,
    WebSession,
)
from app.platform.models.authoring import (
    LessonDraft,
    LessonRename,
    LessonRevision,
)
from app.platform.models.base import table, utcnow
from app.platform.models.classes import (
    CLASS_DUE,
    ClassDue,
    ClassMember,
    Classroom,
    ClassStaff,
)
from app.platform.models.learners import (
    ATTEMPT,
    HINT_REVEAL,
    LEARNER,
    REVIEW_CARD,
    WALK,
    Attempt,
    AttemptBase,
    HintReveal,
    Learner,
    PoolDrawRecord,
    ReviewCard,
    WalkRecord,
)
from app.platform.models.lti import (
    LTI_SCORE,
    LTI_STATE,
    LtiContext,
    LtiDeployment,
    LtiKey,
    LtiPlatform,
    LtiScore,
    LtiState,
    LtiUser,
)
from app.platform.models.mastery import (
    KEPT_MASTERY,
    MASTERY_TAG,
    MASTERY_TALLY,
    KeptMastery,
    MasteryTag,
    MasteryTally,
)
from app.platform.models.tallies import (
    FIRST_TRY,
    LEARNER_TALLY,
    LESSON_TALLY,
    QUESTION_TALLY,
    SCORE_TALLY,
    TALLY_BASIS,
    FirstTry,
    LearnerTally,
    LessonTally,
    QuestionTally,
    ReportCache,
    ScoreTally,
    TallyBasis,
)

__all__ = [
    "ACCOUNT",
    "ATTEMPT",
    "Account",
    "Attempt",
    "AttemptBase",
    "CLASS_DUE",
    "LTI_STATE",
    "ClassDue",
    "ClassMember",
    "ClassStaff",
    "Classroom",
    "FIRST_TRY",
    "FirstTry",
    "HINT_REVEAL",
    "HintReveal",
    "PoolDrawRecord",
    "KEPT_MASTERY",
    "KeptMastery",
    "LEARNER",
    "LEARNER_TALLY",
    "LESSON_TALLY",
    "Learner",
    "LearnerTally",
    "LessonDraft",
    "LessonRename",
    "LessonRevision",
    "LessonTally",
    "LtiContext",
    "LtiDeployment",
    "LtiKey",
    "LtiPlatform",
    "LTI_SCORE",
    "LtiScore",
    "LtiState",
    "LtiUser",
    "MASTERY_TAG",
    "MASTERY_TALLY",
    "MasteryTag",
    "MasteryTally",
    "QUESTION_TALLY",
    "QuestionTally",
    "REVIEW_CARD",
    "RateLimit",
    "ReportCache",
    "ReviewCard",
    "SCORE_TALLY",
    "ScoreTally",
    "TALLY_BASIS",
    "TallyBasis",
    "WALK",
    "WalkRecord",
    "WebSession",
    "table",
    "utcnow",
]
