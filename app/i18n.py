"""What learners read, in Brazilian Portuguese, from one gettext catalog (Babel).

Templates and Python code write English message ids (``_("Skip to content")``); the
Portuguese text lives only in ``app/locale/pt_BR/LC_MESSAGES/messages.po``, compiled
in memory on first use. Dates are stored in UTC and shown in pt-BR in the learner's
time zone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from io import BytesIO
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from babel.dates import format_datetime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LOCALE = "pt_BR"
CATALOG = Path(__file__).resolve().parent / "locale" / LOCALE / "LC_MESSAGES" / "messages.po"
DEFAULT_TIMEZONE = "America/Sao_Paulo"
DATETIME_FORMAT = "d 'de' MMMM 'de' y, HH:mm"


@cache
def translations() -> Translations:
    """The pt-BR catalog, compiled from the ``.po`` file once per process."""
    with CATALOG.open("rb") as handle:
        catalog = read_po(handle, locale=LOCALE)
    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled)


def gettext(message: str) -> str:
    """Return the pt-BR text of ``message`` (the id itself when the catalog lacks it)."""
    return translations().gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """Return the pt-BR singular or plural text for ``count``."""
    return translations().ngettext(singular, plural, count)


_ = gettext


def N_(message: str) -> str:
    """Mark ``message`` for the catalog without translating it yet (constants defined at import)."""
    return message


@cache
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones())


def learner_zone(name: str | None) -> ZoneInfo:
    """The learner's time zone from its IANA name, or São Paulo's for a missing or unknown one."""
    if name and name in _known_zones():
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return ZoneInfo(DEFAULT_TIMEZONE)


def local_datetime(moment: datetime, zone: str | None) -> str:
    """Show a stored moment in pt-BR in the learner's zone: "5 de março de 2026, 14:05".

    Args:
        moment: a UTC time; a naive one (as SQLite returns it) is read as UTC.
        zone: the learner's IANA time zone name.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return format_datetime(moment, DATETIME_FORMAT, tzinfo=learner_zone(zone), locale=LOCALE)
