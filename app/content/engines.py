"""Where each engine runs, and where the course's texts recommend it: ``lessons/engines.yml``,
and the check that no tree sends a learner to an engine on hardware it does not run on.

The table maps each value of the trees' ``hardware`` facet to a kind of hardware
(``hopper`` → ``nvidia``) and gives, for each engine, two things kept apart (format in
``lessons/README.md``, "Engines e hardware"):

- ``roda``: the kinds of hardware it runs on, a hardware fact, with ``roda_fonte`` citing
  the engine's documentation (a URL) or a course text that says it (words between “ ”);
- ``indicado``: per kind of hardware, the course texts that recommend it there, each
  quoted between “ ” with the text named. Advice, not a fact: a kind listed here must be
  one it runs on.

:func:`check_engines` walks every path of every tree from its start. A result that names
an engine while a hardware answer on the way to it is one the engine does not run on is an
``error`` at the result's line. A result that recommends an engine (a verdict other than
``avoid``) on hardware it runs on but no text recommends it for is only a ``note``. Without
the file there is no table and no check; a course with trees and a table also gets a
warning for an engine or a hardware value the table does not know. Pure code: no HTTP, no
database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field, ValidationError

from app.content.errors import ContentError, Level
from app.content.text import nfc
from app.content.trees import Tree, TreeOption, TreeResult
from app.content.yamlsrc import YamlSpec, YamlSyntaxError, line_of, parse_yaml, pydantic_messages
from app.i18n import gettext

ENGINES_FILE = "engines.yml"
HARDWARE_FACET = "hardware"
_QUOTE = re.compile(r"“[^”]+”")
_URL = re.compile(r"https?://\S+")


class EngineSpec(YamlSpec):
    """One engine as written in ``engines.yml``."""

    nomes: list[str] = Field(min_length=1)
    roda: list[str] = Field(min_length=1)
    roda_fonte: list[str] = Field(min_length=1)
    indicado: dict[str, list[str]] = Field(default_factory=dict)
    nota: str | None = None


class TableSpec(YamlSpec):
    """The whole ``engines.yml``."""

    hardware: dict[str, str] = Field(min_length=1)
    engines: dict[str, EngineSpec] = Field(min_length=1)


@dataclass(frozen=True)
class Engine:
    """An engine, the kinds of hardware it runs on, and those the texts recommend it for.

    Attributes:
        id: its key in the table.
        names: how trees write it in ``engines`` (compared without case).
        runs_on: kinds of hardware it runs on (``nvidia``, ``amd``, ``apple``...): a fact.
        recommended: kinds of hardware a course text recommends it for (a subset of
            ``runs_on``): advice.
    """

    id: str
    names: tuple[str, ...]
    runs_on: frozenset[str]
    recommended: frozenset[str] = frozenset()


@dataclass(frozen=True)
class EngineTable:
    """``engines.yml`` once validated.

    Attributes:
        hardware: facet value → kind of hardware.
        engines: the engines, by id.
    """

    path: Path
    hardware: dict[str, str] = field(default_factory=dict)
    engines: dict[str, Engine] = field(default_factory=dict)

    def find(self, name: str) -> Engine | None:
        """The engine a tree calls ``name``, or ``None``."""
        wanted = name.strip().casefold()
        return next(
            (e for e in self.engines.values() if wanted in {n.casefold() for n in e.names}),
            None,
        )


@dataclass(frozen=True)
class EngineLoad:
    """``engines.yml`` as read: the table (``None`` without a usable file) and its problems."""

    table: EngineTable | None = None
    problems: tuple[ContentError, ...] = ()


def parse_engines(raw: bytes, path: Path) -> EngineLoad:
    """Validate the table's bytes (from ``path``); its problems are errors at their lines."""
    try:
        text = nfc(raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n"))
    except UnicodeDecodeError as exc:
        return EngineLoad(None, (ContentError(path, 0, str(exc)),))
    table, errors = _parse(text, path)
    return EngineLoad(table, tuple(errors))


def _parse(text: str, path: Path) -> tuple[EngineTable | None, list[ContentError]]:
    try:
        source = parse_yaml(text)
    except YamlSyntaxError as exc:
        return None, [ContentError(path, 1 + exc.line, exc.message, exc.col + 1)]
    try:
        spec = TableSpec.model_validate(source.data)
    except ValidationError as exc:
        return None, [
            ContentError(path, 1 + line_of(source.node, loc), message)
            for loc, message in pydantic_messages(exc)
        ]

    def at(*where: int | str) -> int:
        return 1 + line_of(source.node, where)

    errors: list[ContentError] = []
    kinds = set(spec.hardware.values())
    owners: dict[str, str] = {}
    engines: dict[str, Engine] = {}
    for eid, entry in spec.engines.items():
        for i, kind in enumerate(entry.roda):
            if kind not in kinds:
                msg = gettext(
                    "the engine `%(engine)s` runs on `%(kind)s`, which is not a kind of "
                    "hardware of this table (`hardware:` maps to %(kinds)s)"
                ) % {"engine": eid, "kind": kind, "kinds": ", ".join(sorted(kinds))}
                errors.append(ContentError(path, at("engines", eid, "roda", i), msg))
        for i, said in enumerate(entry.roda_fonte):
            if not _QUOTE.search(said) and not _URL.search(said):
                msg = gettext(
                    "the `roda_fonte` of `%(engine)s` cites nothing: give the address of the "
                    "engine's documentation, or the words of a course text between “ ”"
                ) % {"engine": eid}
                errors.append(ContentError(path, at("engines", eid, "roda_fonte", i), msg))
        for kind, quotes in entry.indicado.items():
            if kind not in entry.roda:
                msg = gettext(
                    "`%(engine)s` is recommended for `%(kind)s`, but `roda` does not list it: "
                    "a text can only recommend an engine on hardware it runs on"
                ) % {"engine": eid, "kind": kind}
                errors.append(ContentError(path, at("engines", eid, "indicado", kind), msg))
            for i, quote in enumerate(quotes):
                if not _QUOTE.search(quote):
                    msg = gettext(
                        "the `indicado` of `%(engine)s` does not quote its text: write the "
                        "words of the text between “ ” and say which text it is"
                    ) % {"engine": eid}
                    errors.append(ContentError(path, at("engines", eid, "indicado", kind, i), msg))
        for i, name in enumerate(entry.nomes):
            key = name.casefold()
            if key in owners:
                msg = gettext("the name `%(name)s` is already used by `%(engine)s`") % {
                    "name": name,
                    "engine": owners[key],
                }
                errors.append(ContentError(path, at("engines", eid, "nomes", i), msg))
            owners.setdefault(key, eid)
        engines[eid] = Engine(
            eid, tuple(entry.nomes), frozenset(entry.roda), frozenset(entry.indicado)
        )
    return EngineTable(path, dict(spec.hardware), engines), errors


@dataclass(frozen=True)
class _Path:
    """A walk from a tree's start: ``(facet, value, option)`` per answer, hardware values."""

    steps: tuple[tuple[str, str, TreeOption], ...]
    hardware: frozenset[str] | None

    def described(self, hardware: str) -> str:
        """``hardware=amd → goal=max-performance``, naming the hardware value at fault."""
        return " → ".join(
            f"{facet}={hardware if facet == HARDWARE_FACET else value}"
            for facet, value, _ in self.steps
        )


def _paths(tree: Tree) -> Iterator[tuple[_Path, TreeResult]]:
    """Every path of ``tree`` from its start to a result (trees are DAGs: it ends)."""

    def walk(node: str, path: _Path) -> Iterator[tuple[_Path, TreeResult]]:
        if node in tree.results:
            yield path, tree.results[node]
            return
        question = tree.questions[node]
        for option in question.options:
            hardware = path.hardware
            if question.facet == HARDWARE_FACET:
                chosen = frozenset(option.values)
                hardware = chosen if hardware is None else hardware & chosen
            step = (question.facet, option.value, option)
            yield from walk(option.next, _Path((*path.steps, step), hardware))

    yield from walk(tree.start, _Path((), None))


def check_engines(trees: Iterable[Tree], table: EngineTable | None) -> list[ContentError]:
    """Walk every path of every tree against the engine table.

    Returns:
        At the result's line, once per result, engine and hardware value, with the first
        path found: an ``error`` for a result naming an engine the path's hardware does not
        run; a ``note`` for a result recommending (verdict other than ``avoid``) an engine
        on hardware no text recommends it for. ``warning`` problems for an engine the table
        does not list and a hardware value it does not map. None without a table.
    """
    if table is None:
        return []
    out: dict[tuple[object, ...], ContentError] = {}
    for tree in trees:
        for path, result in _paths(tree):
            for name in result.engines:
                engine = table.find(name)
                if engine is None:
                    key: tuple[object, ...] = (tree.id, result.id, name)
                    msg = gettext(
                        "the result `%(result)s` of the tree `%(tree)s` names `%(engine)s`, "
                        "which is not in %(file)s; add it with the hardware it runs on "
                        "(`roda`, `roda_fonte`)"
                    ) % {"result": result.id, "tree": tree.id, "engine": name, "file": ENGINES_FILE}
                    out.setdefault(key, _problem(tree.file, result.line, msg, "warning"))
                    continue
                for value in sorted(path.hardware or ()):
                    key = (tree.id, result.id, name, value)
                    kind = table.hardware.get(value)
                    if kind is None:
                        option = next(o for f, _, o in path.steps if f == HARDWARE_FACET)
                        msg = gettext(
                            "the tree `%(tree)s` has the hardware value `%(value)s`, which "
                            "%(file)s does not map to a kind of hardware"
                        ) % {"tree": tree.id, "value": value, "file": ENGINES_FILE}
                        out.setdefault(
                            (tree.id, value), _problem(tree.file, option.line, msg, "warning")
                        )
                    elif kind not in engine.runs_on:
                        msg = gettext(
                            "the tree `%(tree)s` leads to `%(engine)s` (result `%(result)s`) "
                            "through %(path)s, but %(file)s says %(engine)s runs only on "
                            "%(kinds)s, not on %(kind)s"
                        ) % _facts(tree, result, name, path, value, engine.runs_on, kind)
                        out.setdefault(key, _problem(tree.file, result.line, msg, "error"))
                    elif kind not in engine.recommended and result.verdict != "avoid":
                        msg = gettext(
                            "the tree `%(tree)s` recommends `%(engine)s` (result `%(result)s`) "
                            "through %(path)s; %(engine)s runs on %(kind)s, but no text in "
                            "%(file)s recommends it there (only on %(kinds)s): say in the "
                            "result whose advice it is"
                        ) % _facts(tree, result, name, path, value, engine.recommended, kind)
                        out.setdefault(key, _problem(tree.file, result.line, msg, "note"))
    return list(out.values())


def _facts(
    tree: Tree,
    result: TreeResult,
    name: str,
    path: _Path,
    value: str,
    kinds: frozenset[str],
    kind: str,
) -> dict[str, str]:
    return {
        "tree": tree.id,
        "engine": name,
        "result": result.id,
        "path": path.described(value),
        "file": ENGINES_FILE,
        "kinds": ", ".join(sorted(kinds)) or "—",
        "kind": kind,
    }


def _problem(file: Path, line: int, message: str, level: Level) -> ContentError:
    return ContentError(file, line, message, level=level)
