"""The bottom floor: what learners read, in Brazilian Portuguese, from one gettext catalog (Babel).

It imports nothing of the app, so every floor above (content included) may use it.

Templates and Python code write English message ids (``_("Skip to content")``); the
Portuguese text lives only in ``app/locale/pt_BR/LC_MESSAGES/messages.po``, compiled
with Babel on first use. The app keeps the compiled ``.mo`` in its disk cache
(:func:`keep_compiled_catalog`), so a restart reads it with the standard library's
:mod:`gettext` instead of parsing the ``.po`` again. Dates are stored in UTC and shown
in pt-BR in the learner's time zone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from gettext import GNUTranslations
from io import BytesIO
from pathlib import Path
from typing import Any, Protocol, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones


class DiskCache(Protocol):
    """What the catalog needs of the app's disk cache (:class:`app.content.lesson_cache.LessonCache`
    fits): the catalog is the bottom floor, so it names no type above it."""

    def key(self, path: Path, raw: bytes) -> str: ...
    def get(self, key: str) -> Any: ...
    def put(self, key: str, load: Any) -> None: ...


LOCALE = "pt_BR"
CATALOG = Path(__file__).resolve().parent.parent / "locale" / LOCALE / "LC_MESSAGES" / "messages.po"
DEFAULT_TIMEZONE = "America/Sao_Paulo"
DATETIME_FORMAT = "d 'de' MMMM 'de' y, HH:mm"
SHORT_DATE_FORMAT = "d 'de' MMM"  # "3 de dez."
_compiled_catalogs: list[DiskCache] = []


def keep_compiled_catalog(cache: DiskCache) -> None:
    """Read and keep the compiled catalog in ``cache`` (keyed by the ``.po`` file's bytes).

    Call it before the first :func:`gettext` of the process (``create_app`` does); a
    catalog already loaded stays as it is.

    Args:
        cache: the app's disk cache (see :mod:`app.content.lesson_cache`).
    """
    _compiled_catalogs[:] = [cache]


@cache
def translations() -> GNUTranslations:
    """The pt-BR catalog, loaded once per process.

    Returns:
        The catalog: the compiled ``.mo`` from the disk cache when it holds one for this
        ``.po`` file, else compiled from the ``.po`` with Babel (and stored there).
    """
    source = CATALOG.read_bytes()
    cache = _compiled_catalogs[0] if _compiled_catalogs else None
    key = cache.key(CATALOG, source) if cache else ""
    compiled = cache.get(key) if cache else None
    if not isinstance(compiled, bytes):
        compiled = _compile(source)
        if cache:
            cache.put(key, compiled)
    return GNUTranslations(BytesIO(compiled))


def _compile(source: bytes) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file's bytes (Babel)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    catalog = read_po(BytesIO(source), locale=LOCALE)
    compiled = BytesIO()
    write_mo(compiled, catalog)
    return compiled.getvalue()


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


class LabeledEnum(StrEnum):
    """A :class:`~enum.StrEnum` whose members carry their catalog label: each member is written
    ``NAME = "value", N_("Label")``. The value alone is the member's string (what code, YAML
    and the templates compare), and :attr:`label` is what a learner reads."""

    _label: str

    def __new__(cls, value: str, label: str) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member._label = label
        return member

    @property
    def label(self) -> str:
        """The member as the learner reads it, in pt-BR, from the catalog."""
        return gettext(self._label)


@cache
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones())


@cache
def time_zone_choices() -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """Every IANA zone ``zoneinfo`` knows, as ``(group, ((zone, label), ...))`` for a select.

    Brazil's zones come first, named in pt-BR by their city and the time they keep
    ("São Paulo (Horário de Brasília)", CLDR through Babel), sorted by city; every other
    zone follows by its IANA name, sorted, with spaces for underscores.
    """
    from babel.core import get_global
    from babel.dates import get_timezone_location, get_timezone_name

    known = _known_zones()
    brazil = [zone for zone in get_global("territory_zones")["BR"] if zone in known]
    cities = []
    for zone in brazil:
        city = get_timezone_location(zone, locale=LOCALE, return_city=True)
        cities.append((zone, f"{city} ({get_timezone_name(zone, locale=LOCALE)})"))
    others = [(zone, zone.replace("_", " ")) for zone in sorted(known - set(brazil))]
    return (
        (gettext("Brazil"), tuple(sorted(cities, key=lambda choice: choice[1]))),
        (gettext("Other zones"), tuple(others)),
    )


def time_zone_label(zone: str) -> str:
    """How :func:`time_zone_choices` names ``zone`` ("São Paulo (Horário de Brasília)")."""
    for _group, choices in time_zone_choices():
        for name, label in choices:
            if name == zone:
                return label
    return zone


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
    from babel.dates import format_datetime

    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return format_datetime(moment, DATETIME_FORMAT, tzinfo=learner_zone(zone), locale=LOCALE)


def local_day(moment: datetime, zone: str | None) -> str:
    """A stored moment's day in pt-BR in the learner's zone, short: "3 de dez."."""
    from babel.dates import format_datetime

    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return format_datetime(moment, SHORT_DATE_FORMAT, tzinfo=learner_zone(zone), locale=LOCALE)
