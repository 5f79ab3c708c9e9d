"""Accounts, merging an anonymous learner into an account, and "Meus dados" (no HTTP here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import delete, tuple_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.learning.mastery import recount_mastery
from app.learning.review import delete_cards, learner_cards, merge_cards
from app.learning.state import Place
from app.learning.store import ensure_learner, set_place
from app.learning.tallies.write import recount_learners
from app.platform.db import begin_write
from app.platform.models import (
    Account,
    Attempt,
    ClassMember,
    Classroom,
    ClassStaff,
    HintReveal,
    Learner,
    LessonDraft,
    LessonRevision,
    PoolDrawRecord,
    ReviewCard,
    WalkRecord,
    WebSession,
)
from app.platform.sessions import end_sessions_of


class UsernameTaken(ValueError):
    """The username already belongs to an account."""


def find_account(db: Session, username: str) -> Account | None:
    """Return the account with ``username`` (already lower-case), or ``None``."""
    return db.exec(select(Account).where(Account.username == username)).first()


def account_of(db: Session, learner_id: str) -> Account | None:
    """Return the account of ``learner_id``, or ``None`` for an anonymous learner."""
    return db.exec(select(Account).where(Account.learner_id == learner_id)).first()


def create_account(db: Session, learner_id: str, username: str, password_hash: str) -> Account:
    """Turn the (anonymous) learner into an account holder; their progress stays theirs.

    Every session of the learner ends, in the same transaction: an account is reached only
    through the session that signs up (rotated by the caller) and later sign-ins. A second
    session made by the first-answer join, or kept by whoever used this browser before, opens
    nothing after it; and the join window closes (``birth_key``).

    Args:
        db: an open session; this function commits it.
        learner_id: the learner signing up (their row is created if missing).
        username: the clean username.
        password_hash: the argon2 hash.

    Raises:
        UsernameTaken: another account has ``username`` (checked, and enforced by the database).
    """
    if find_account(db, username) is not None:
        raise UsernameTaken(username)
    begin_write(db)
    ensure_learner(db, learner_id)
    db.exec(update(Learner).where(col(Learner.id) == learner_id).values(birth_key=None))
    end_sessions_of(db, learner_id)
    account = Account(learner_id=learner_id, username=username, password_hash=password_hash)
    db.add(account)
    try:
        db.commit()
    except IntegrityError as exc:
        db.rollback()
        raise UsernameTaken(username) from exc
    db.refresh(account)
    return account


def replace_password_hash(db: Session, account: Account, password_hash: str) -> None:
    """Store a new hash for the same password (a rehash after a sign-in), and commit.

    Args:
        db: an open session; this function commits it.
        account: the account, loaded in ``db``.
        password_hash: the new argon2 hash.
    """
    begin_write(db)
    account.password_hash = password_hash
    db.add(account)
    db.commit()


def merge_learner(db: Session, source_id: str, target_id: str, place: Place | None) -> None:
    """Move everything of the anonymous learner ``source_id`` into ``target_id``, then drop it.

    Every attempt, walk and hint opened is kept; since the first try is the earliest attempt,
    where both answered the same question the earlier first try wins. Review cards move too;
    where both have one for the same question, the most recently reviewed wins. An attempt whose
    idempotency key the target already holds is the same form sent twice, and is stored once;
    so is a walk finished offline whose device key the target already holds.

    Args:
        db: an open session; this function commits it (one transaction).
        source_id: the anonymous learner of this browser.
        target_id: the account's learner.
        place: this browser's place, which becomes the account's place (``None`` keeps it).
    """
    if source_id == target_id or account_of(db, source_id) is not None:
        return  # two accounts are never merged
    begin_write(db)  # SQLite: a read transaction upgraded to a write may find the database locked
    target_keys = select(Attempt.idempotency_key).where(
        Attempt.learner_id == target_id, col(Attempt.idempotency_key).is_not(None)
    )
    db.exec(
        delete(Attempt).where(
            col(Attempt.learner_id) == source_id, col(Attempt.idempotency_key).in_(target_keys)
        )
    )
    # A walk finished offline and sent by both (its device's key) is kept once, the account's.
    target_walks = select(WalkRecord.idempotency_key).where(
        WalkRecord.learner_id == target_id, col(WalkRecord.idempotency_key).is_not(None)
    )
    db.exec(
        delete(WalkRecord).where(
            col(WalkRecord.learner_id) == source_id,
            col(WalkRecord.idempotency_key).in_(target_walks),
        )
    )
    # A pool the account already drew keeps the account's draws; the browser's others move.
    drawn = select(PoolDrawRecord.lesson_slug, PoolDrawRecord.pool_id).where(
        PoolDrawRecord.learner_id == target_id
    )
    db.exec(
        delete(PoolDrawRecord).where(
            col(PoolDrawRecord.learner_id) == source_id,
            tuple_(col(PoolDrawRecord.lesson_slug), col(PoolDrawRecord.pool_id)).in_(drawn),
        )
    )
    for table in (Attempt, WalkRecord, HintReveal, PoolDrawRecord):
        db.execute(
            update(table).where(col(table.learner_id) == source_id).values(learner_id=target_id)
        )
    merge_cards(db, source_id, target_id)
    if place is not None:
        set_place(db, target_id, place)
    recount_learners(db, [source_id, target_id])  # before the source row (and its counts) goes
    recount_mastery(db, [source_id, target_id])
    db.exec(delete(Learner).where(col(Learner.id) == source_id))
    end_sessions_of(db, source_id)
    db.commit()


@dataclass(frozen=True)
class LearnerData:
    """Everything stored about one learner, as rows (the web floor shapes it as JSON).

    Attributes:
        classes: ``(class name, joined at)`` of each class joined, oldest first.
        review_cards: soonest due first.
        hints: the hints opened, oldest first.
        draws: the draws of question pools, oldest first.
    """

    learner: Learner | None
    account: Account | None
    attempts: list[Attempt]
    walks: list[WalkRecord]
    sessions: list[WebSession]
    classes: list[tuple[str, datetime]]
    review_cards: list[ReviewCard]
    hints: list[HintReveal] = field(default_factory=list)
    draws: list[PoolDrawRecord] = field(default_factory=list)


def learner_data(db: Session, learner_id: str | None) -> LearnerData | None:
    """Gather everything stored about ``learner_id`` (LGPD access request); ``None`` for a
    visitor who stored nothing (no query runs). Attempts and walks oldest first."""
    if not learner_id:
        return None
    learner = db.get(Learner, learner_id)
    account = account_of(db, learner_id)
    attempts = db.exec(
        select(Attempt)
        .where(Attempt.learner_id == learner_id)
        .order_by(col(Attempt.created_at), col(Attempt.id))
    )
    walks = db.exec(
        select(WalkRecord)
        .where(WalkRecord.learner_id == learner_id)
        .order_by(col(WalkRecord.created_at))
    )
    sessions = db.exec(select(WebSession).where(WebSession.learner_id == learner_id))
    joined = db.exec(
        select(Classroom.name, ClassMember.joined_at)
        .join(ClassMember, col(ClassMember.class_id) == col(Classroom.id))
        .where(ClassMember.learner_id == learner_id)
        .order_by(col(ClassMember.joined_at))
    )
    return LearnerData(
        learner=learner,
        account=account,
        attempts=list(attempts),
        walks=list(walks),
        sessions=list(sessions),
        classes=[(name, when) for name, when in joined],
        review_cards=learner_cards(db, learner_id),
        hints=list(
            db.exec(
                select(HintReveal)
                .where(HintReveal.learner_id == learner_id)
                .order_by(col(HintReveal.created_at), col(HintReveal.id))
            )
        ),
        draws=list(
            db.exec(
                select(PoolDrawRecord)
                .where(PoolDrawRecord.learner_id == learner_id)
                .order_by(col(PoolDrawRecord.created_at), col(PoolDrawRecord.id))
            )
        ),
    )


def delete_learner(db: Session, learner_id: str) -> str | None:
    """Delete the learner, their attempts, hints opened, walks, review cards, class
    memberships, dashboard counters (taken out by the recount) and account (with its drafts
    and class staff places; the lesson revisions it published stay, without its name), and
    end all their sessions.

    These rows go by ``ON DELETE CASCADE`` (``SET NULL`` for revisions); they are also
    deleted explicitly, so a database without foreign keys enforced keeps nothing either.
    The sign-in counters that name the username live in the limiter's storage: the caller
    drops them (:meth:`app.platform.auth.SignInLimiter.forget`).

    Returns:
        The username of the deleted account, or ``None`` for an anonymous learner.
    """
    begin_write(db)
    account = account_of(db, learner_id)
    if account is not None:
        for staffed in (LessonDraft, ClassStaff):
            db.exec(delete(staffed).where(col(staffed.account_id) == account.id))
        db.exec(
            update(LessonRevision)
            .where(col(LessonRevision.account_id) == account.id)
            .values(account_id=None)
        )
    for table in (HintReveal, PoolDrawRecord, Attempt, WalkRecord, ClassMember, Account):
        db.exec(delete(table).where(col(table.learner_id) == learner_id))
    delete_cards(db, learner_id)
    recount_learners(db, [learner_id])  # takes the learner out of the dashboard's counters
    recount_mastery(db, [learner_id])  # and out of mastery per concept
    db.exec(delete(Learner).where(col(Learner.id) == learner_id))
    end_sessions_of(db, learner_id)
    db.commit()
    return account.username if account is not None else None
