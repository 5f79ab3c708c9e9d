"""Classes (turmas): create, join by an unguessable link, leave, staff, due dates, late answers.

An instructor sees only the classes they teach; an admin (``curso instrutor adicionar
--admin``) sees them all. Due dates are stored in UTC and entered and shown in the class's
time zone. An answer after the due date is accepted like any other and counted as late.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

import sqlalchemy as sa
from babel.dates import format_datetime, get_timezone_name
from sqlalchemy import ColumnElement, delete, func, true
from sqlmodel import Session, col, select

from app.i18n import LOCALE, N_, gettext
from app.platform.models import (
    Account,
    Attempt,
    ClassDue,
    ClassMember,
    Classroom,
    ClassStaff,
)

CODE_BYTES = 24  # 192 random bits, URL-safe: 32 characters
DUE_FORMAT = "dd/MM, HH:mm"
DUE_FORMAT_WITH_YEAR = "dd/MM/yyyy, HH:mm"  # a due date outside the current year
BAD_ZONE = N_("Choose one of the time zones in the list.")
LAST_STAFF = N_("A class needs at least one instructor: add another before removing “%(name)s”.")
NOT_STAFF = N_("“%(name)s” is not an instructor of this class.")
BAD_DATE = N_("Write the due date as day, month, year and time, for example 12/12/2026 23:59.")
SKIPPED_TIME = N_(
    "%(when)s does not exist in the class's time zone (%(zone)s): that night the clocks go "
    "forward one hour"
    " (daylight saving time). Choose another time, for example %(instead)s."
)


class BadDueDate(ValueError):
    """A due date that cannot be read; ``str(exc)`` is the message in Portuguese."""


@dataclass(frozen=True)
class MemberRow:
    """A learner in a class as its instructors see it.

    Attributes:
        username: the account's username (shown only to the class's own instructors).
        joined_at: UTC.
    """

    learner_id: str
    username: str
    joined_at: datetime


@dataclass(frozen=True)
class DueRow:
    """A lesson's due date in a class, with its answers on time and late.

    Attributes:
        due_at: UTC.
        on_time / late: answers of the class's learners to the lesson before / after it.
        late_learners: learners with at least one late answer.
    """

    lesson_slug: str
    due_at: datetime
    on_time: int
    late: int
    late_learners: int


def new_code() -> str:
    """An unguessable join code (``secrets.token_urlsafe``, 192 bits)."""
    return secrets.token_urlsafe(CODE_BYTES)


def zone_label(zone: str) -> str:
    """The zone's name in Portuguese, lower case after the first word: "horário de Brasília"."""
    name = get_timezone_name(ZoneInfo(zone), width="long", locale=LOCALE)
    return name[:1].lower() + name[1:]


def due_label(moment: datetime, zone: str, now: datetime | None = None) -> str:
    """A due date as learners read it: "até 12/12, 23:59 (horário de Brasília)", with the year
    ("até 12/01/2027, 23:59 ...") when it is not the current year in the zone.

    Args:
        moment: the due date (UTC; naive values are read as UTC).
        zone: the class's IANA zone.
        now: the current time (default: the clock), which says what the current year is.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    tz = ZoneInfo(zone)
    this_year = (now or datetime.now(UTC)).astimezone(tz).year
    pattern = DUE_FORMAT if moment.astimezone(tz).year == this_year else DUE_FORMAT_WITH_YEAR
    when = format_datetime(moment, pattern, tzinfo=tz, locale=LOCALE)
    return gettext("until %(when)s (%(zone)s)") % {"when": when, "zone": zone_label(zone)}


def parse_due(value: str, zone: str) -> datetime:
    """Read a ``datetime-local`` value (``2026-12-12T23:59``) in the class zone; return UTC.

    Raises:
        BadDueDate: the value is not a date and time, or a time the zone skips (the hour
            the clocks go forward for daylight saving time); the message says which time to
            choose instead.
    """
    try:
        local = datetime.fromisoformat(value.strip())
    except ValueError:
        raise BadDueDate(gettext(BAD_DATE)) from None
    if local.tzinfo is not None:
        raise BadDueDate(gettext(BAD_DATE))
    tz = ZoneInfo(zone)
    moment = local.replace(tzinfo=tz).astimezone(UTC)
    shown = moment.astimezone(tz)
    if shown.replace(tzinfo=None) != local:  # zoneinfo moves a skipped time by the gap
        pattern = DUE_FORMAT_WITH_YEAR.replace(",", "")
        raise BadDueDate(
            gettext(SKIPPED_TIME)
            % {
                "when": format_datetime(local, pattern, locale=LOCALE),
                "zone": zone_label(zone),
                "instead": format_datetime(shown, pattern, tzinfo=tz, locale=LOCALE),
            }
        )
    return moment


def create_class(db: Session, account: Account, name: str, description: str = "") -> Classroom:
    """Create a class taught by ``account``; committed."""
    classroom = Classroom(name=name.strip(), description=description.strip(), join_code=new_code())
    db.add(classroom)
    db.flush()
    assert classroom.id is not None and account.id is not None  # both stored (flushed)
    db.add(ClassStaff(class_id=classroom.id, account_id=account.id))
    db.commit()
    db.refresh(classroom)
    return classroom


def classes_of(db: Session, account: Account) -> list[Classroom]:
    """The classes ``account`` teaches (every class for an admin), newest first."""
    query = select(Classroom).order_by(col(Classroom.id).desc())
    if not account.is_admin:
        query = query.join(ClassStaff).where(ClassStaff.account_id == account.id)
    return list(db.exec(query).all())


def class_for(db: Session, account: Account, class_id: int) -> Classroom | None:
    """The class if ``account`` teaches it (or is an admin), else ``None``."""
    classroom = db.get(Classroom, class_id)
    if classroom is None or account.is_admin:
        return classroom
    staff = db.get(ClassStaff, (class_id, account.id))
    return classroom if staff is not None else None


def delete_class(db: Session, classroom: Classroom) -> None:
    """Delete a class with its staff, memberships and due dates; attempts stay. Committed.

    The rows go by ``ON DELETE CASCADE`` and are also deleted explicitly, so a database
    without foreign keys enforced keeps nothing either.
    """
    for table in (ClassMember, ClassStaff, ClassDue):
        db.exec(delete(table).where(col(table.class_id) == classroom.id))
    db.delete(classroom)
    db.commit()


def rotate_code(db: Session, classroom: Classroom) -> str:
    """Give the class a new join code (the old link stops working); committed."""
    classroom.join_code = new_code()
    db.add(classroom)
    db.commit()
    return classroom.join_code


def add_staff(db: Session, classroom: Classroom, account: Account) -> None:
    """Make an instructor account one of the class's instructors; committed."""
    assert classroom.id is not None and account.id is not None  # both stored
    if db.get(ClassStaff, (classroom.id, account.id)) is None:
        db.add(ClassStaff(class_id=classroom.id, account_id=account.id))
        db.commit()


class StaffError(ValueError):
    """A staff change refused; ``str(exc)`` is the pt-BR message."""


class BadTimeZone(ValueError):
    """A time zone that is not an IANA zone known to ``zoneinfo``; ``str(exc)`` is pt-BR."""


@cache
def time_zones() -> list[str]:
    """Every IANA time zone ``zoneinfo`` knows (from the ``tzdata`` package), sorted."""
    return sorted(available_timezones())


def set_time_zone(db: Session, classroom: Classroom, zone: str) -> None:
    """Change the zone in which the class's due dates are entered and shown; committed.

    Due dates stay the same instants (they are stored in UTC); only their display changes.

    Raises:
        BadTimeZone: ``zone`` is not in :func:`time_zones`.
    """
    if zone not in time_zones():
        raise BadTimeZone(gettext(BAD_ZONE))
    classroom.time_zone = zone
    db.add(classroom)
    db.commit()


def remove_staff(db: Session, classroom: Classroom, username: str) -> None:
    """Take ``username`` off the class's instructors; committed.

    Raises:
        StaffError: they are not one of its instructors, or they are the last one.
    """
    row = db.exec(
        select(ClassStaff)
        .join(Account, col(Account.id) == col(ClassStaff.account_id))
        .where(ClassStaff.class_id == classroom.id, Account.username == username)
    ).first()
    if row is None:
        raise StaffError(gettext(NOT_STAFF) % {"name": username})
    count = db.exec(
        select(func.count()).select_from(ClassStaff).where(ClassStaff.class_id == classroom.id)
    ).one()
    if count <= 1:
        raise StaffError(gettext(LAST_STAFF) % {"name": username})
    db.delete(row)
    db.commit()


def staff_of(db: Session, classroom: Classroom) -> list[str]:
    """Usernames of the class's instructors, sorted."""
    query = select(Account.username).join(ClassStaff).where(ClassStaff.class_id == classroom.id)
    return sorted(db.exec(query).all())


def by_code(db: Session, code: str) -> Classroom | None:
    """The class whose join code is ``code``, or ``None``."""
    return db.exec(select(Classroom).where(Classroom.join_code == code)).first()


def join(db: Session, classroom: Classroom, learner_id: str) -> bool:
    """Put the learner in the class; committed. Returns False if they were already in it."""
    assert classroom.id is not None  # a stored class
    if db.get(ClassMember, (classroom.id, learner_id)) is not None:
        return False
    db.add(ClassMember(class_id=classroom.id, learner_id=learner_id))
    db.commit()
    return True


def leave(db: Session, class_id: int, learner_id: str) -> None:
    """Take the learner out of the class (their attempts stay); committed."""
    db.exec(
        delete(ClassMember).where(
            col(ClassMember.class_id) == class_id, col(ClassMember.learner_id) == learner_id
        )
    )
    db.commit()


def memberships(db: Session, learner_id: str) -> list[tuple[Classroom, ClassMember]]:
    """The learner's classes with when they joined, oldest first."""
    query = (
        select(Classroom, ClassMember)
        .join(ClassMember)
        .where(ClassMember.learner_id == learner_id)
        .order_by(col(ClassMember.joined_at))
    )
    return list(db.exec(query).all())


def members(db: Session, classroom: Classroom) -> list[MemberRow]:
    """The class's learners with their usernames, by username."""
    query = (
        select(ClassMember.learner_id, Account.username, ClassMember.joined_at)
        .join(Account, col(Account.learner_id) == col(ClassMember.learner_id))
        .where(ClassMember.class_id == classroom.id)
        .order_by(col(Account.username))
    )
    return [MemberRow(*row) for row in db.exec(query).all()]


def set_due(db: Session, classroom: Classroom, lesson_slug: str, due_at: datetime) -> None:
    """Set (or move) a lesson's due date in the class, UTC; committed."""
    assert classroom.id is not None  # a stored class
    row = db.get(ClassDue, (classroom.id, lesson_slug)) or ClassDue(
        class_id=classroom.id, lesson_slug=lesson_slug, due_at=due_at
    )
    row.due_at = due_at
    db.add(row)
    db.commit()


def due_rows(db: Session, classroom: Classroom) -> list[DueRow]:
    """Each due date of the class with its members' answers on time and late, by date.

    An answer is late when it was stored after the due date; the counts come from one
    aggregate query.
    """
    late = col(Attempt.created_at) > col(ClassDue.due_at)
    # sqlmodel.select() is typed for at most 4 columns.
    query = (
        select(  # type: ignore[call-overload]
            ClassDue.lesson_slug,
            ClassDue.due_at,
            func.count(col(Attempt.id)).filter(~late),
            func.count(col(Attempt.id)).filter(late),
            func.count(func.distinct(Attempt.learner_id)).filter(late),
        )
        .select_from(ClassDue)
        .join(ClassMember, col(ClassMember.class_id) == col(ClassDue.class_id), isouter=True)
        .join(
            Attempt,
            (col(Attempt.learner_id) == col(ClassMember.learner_id))
            & (col(Attempt.lesson_slug) == col(ClassDue.lesson_slug)),
            isouter=True,
        )
        .where(ClassDue.class_id == classroom.id)
        .group_by(ClassDue.lesson_slug, ClassDue.due_at)
        .order_by(col(ClassDue.due_at))
    )
    return [DueRow(*row) for row in db.exec(query).all()]


@dataclass(frozen=True)
class LessonDue:
    """A lesson's due date in one of the learner's classes, as the learner reads it.

    Attributes:
        due_at: UTC.
        zone: the class's IANA zone, in which the date is shown.
    """

    class_name: str
    lesson_slug: str
    due_at: datetime
    zone: str

    @property
    def label(self) -> str:
        """ "até 12/12, 23:59 (horário de Brasília)" (see :func:`due_label`)."""
        return due_label(self.due_at, self.zone)

    def is_late(self, moment: datetime | None) -> bool:
        """Whether ``moment`` (UTC; naive values are read as UTC) is after the due date:
        an answer stored then is late, and a lesson not finished by then is overdue."""
        if moment is None:
            return False
        return as_utc(moment) > as_utc(self.due_at)


def as_utc(moment: datetime) -> datetime:
    """``moment`` with its zone; a naive value (as SQLite gives them back) is read as UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def class_learners(class_id: int) -> sa.Select[str]:
    """The ids of a class's learners, as a subquery for ``IN`` (rows of one column).

    SQLAlchemy's ``select``, not SQLModel's: executed alone it yields rows, not scalars.
    """
    return sa.select(col(ClassMember.learner_id)).where(col(ClassMember.class_id) == class_id)


def in_class(learner_column: ColumnElement[str], class_id: int | None) -> ColumnElement[bool]:
    """A filter keeping the rows of one class's learners (all rows when ``class_id`` is None)."""
    return true() if class_id is None else learner_column.in_(class_learners(class_id))
