"""YAML parsing that remembers where each value came from.

Validation errors from pydantic name a path such as ``(0, "options", 2, "text")``;
:func:`position_of` turns that path into the line and column of the YAML node that
holds it; the helpers at the end turn YAML and validation errors into
:class:`ContentError` values located in the lesson file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from app.content.errors import ContentError
from app.i18n import N_, gettext, ngettext

# PyYAML is imported by the functions that parse: lessons served from the disk cache
# (app/content/lesson_cache.py) need no YAML. Nodes are told apart by their ``id``
# ("scalar", "sequence", "mapping"), PyYAML's own tag for each node class.
if TYPE_CHECKING:
    import yaml
    from yaml.nodes import Node, ScalarNode


class YamlSpec(BaseModel):
    """The base of every model of what an author writes in YAML (a block, the front matter, the
    glossary, the engines), read strictly: a key the model does not name is an error, so a
    misspelt key is reported instead of ignored, and text loses its surrounding white space."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


@dataclass(frozen=True)
class YamlSource:
    """Parsed YAML plus its node tree.

    Attributes:
        data: the plain Python value (``yaml.safe_load`` semantics).
        node: the composed node tree, for line look-ups; ``None`` for an empty document.
    """

    data: Any
    node: Node | None


class YamlSyntaxError(Exception):
    """YAML that does not parse.

    Attributes:
        line: 0-based line inside the parsed text.
        message: the problem, in Portuguese (from the catalog).
        col: 0-based column on that line.
    """

    def __init__(self, line: int, message: str, col: int = 0):
        self.line = line
        self.message = message
        self.col = col
        super().__init__(message)


def parse_yaml(text: str) -> YamlSource:
    """Parse ``text`` safely and keep its node tree.

    Raises:
        YamlSyntaxError: with the 0-based line of the problem.
    """
    import yaml

    fast_loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        try:
            # libyaml (C) parses about ten times faster than PyYAML's Python parser...
            node, data = _compose_and_construct(text, fast_loader)
        except yaml.YAMLError:
            # ...but only the Python parser's messages match the hints below.
            node = yaml.compose(text, Loader=yaml.SafeLoader)
            data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = _where_to_look(exc)
        line, col = (mark.line, mark.column) if mark else (0, 0)
        raise YamlSyntaxError(line, _invalid(_explain(exc)), col) from exc
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(0, _invalid(_unknown(str(exc)))) from exc
    odd = _first_odd_integer(node)
    if odd is not None:
        mark = odd.start_mark
        detail = gettext(
            "YAML reads `%(written)s` as the number %(value)s (YAML 1.1: a leading 0 is octal, "
            "`0x` hexadecimal, `_` is ignored and `1:30` counts in base 60); write %(value)s, "
            'or `"%(written)s"` between quotes for a text'
        ) % {"written": odd.value, "value": yaml.safe_load(odd.value)}
        raise YamlSyntaxError(mark.line, _invalid(detail), mark.column)
    duplicate = _first_duplicate_key(node)
    if duplicate is not None:
        mark = duplicate.start_mark
        detail = gettext("the key `%(key)s` appears twice") % {"key": duplicate.value}
        raise YamlSyntaxError(mark.line, _invalid(detail), mark.column)
    return YamlSource(data, node)


def _compose_and_construct(
    text: str, loader_class: type[yaml.CSafeLoader] | type[yaml.SafeLoader]
) -> tuple[Node | None, Any]:
    """Parse ``text`` once into its node tree and the Python value built from it.

    The same steps as ``yaml.compose`` followed by ``yaml.load`` with ``loader_class``
    (``CSafeLoader``: ``safe_load``'s semantics), without parsing the text twice.
    """
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return node, data


# PyYAML's contexts whose mark is only where the enclosing list or mapping starts.
_ENCLOSING_BLOCK = ("while parsing a block collection", "while parsing a block mapping")


def _where_to_look(exc: yaml.MarkedYAMLError) -> yaml.Mark | None:
    """The mark of the line the author has to fix.

    Mostly the context mark: it points at what was left open (a ``[``, a quote, a key
    without its ``:``), not at the end of the text where the parser gave up. But in a block
    list or mapping the context mark is where that enclosing item starts, lines above a
    misindented line; there the problem mark names the line out of place.
    """
    if exc.context in _ENCLOSING_BLOCK:
        return exc.problem_mark or exc.context_mark
    return exc.context_mark or exc.problem_mark


def _invalid(detail: str) -> str:
    return gettext("invalid YAML: %(detail)s") % {"detail": detail}


def _unknown(detail: str) -> str:
    """A YAML problem we have no hint for: PyYAML's own words, in English, after ours."""
    if not detail:
        return gettext("syntax error")
    return gettext("syntax error (%(detail)s)") % {"detail": detail}


def _kind(node: Node | None) -> str | None:
    """``"scalar"``, ``"sequence"`` or ``"mapping"`` for a PyYAML node, else ``None``."""
    return getattr(node, "id", None)


_PLAIN_INTEGER = re.compile(r"[-+]?(0|[1-9][0-9]*)")


def _first_odd_integer(node: Node | None) -> ScalarNode | None:
    """The first unquoted integer not written in plain decimal (``010``, ``0x1f``, ``1_000``,
    ``1:30``).
    """
    # Any: nodes are told apart by their ``id`` (see above), which mypy cannot follow.
    stack: list[Any] = [node] if node is not None else []
    while stack:
        current = stack.pop(0)
        if _kind(current) == "scalar":
            if (
                current.style in (None, "")  # plain: None in PyYAML, "" in libyaml
                and current.tag == "tag:yaml.org,2002:int"
                and not _PLAIN_INTEGER.fullmatch(current.value)
            ):
                scalar: ScalarNode = current
                return scalar
        elif _kind(current) == "mapping":
            for key, value in current.value:
                stack.extend((key, value))
        elif _kind(current) == "sequence":
            stack.extend(current.value)
    return None


def _first_duplicate_key(node: Node | None) -> Node | None:
    """Return the second occurrence of a repeated mapping key, anywhere in the tree."""
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        if _kind(current) == "mapping":
            seen: set[str] = set()
            key: Node
            value: Node
            for key, value in current.value:
                if isinstance(key.value, str):
                    if key.value in seen:
                        return key
                    seen.add(key.value)
                stack.append(value)
        elif _kind(current) == "sequence":
            stack.extend(current.value)
    return None


# PyYAML's message (English) → what to do about it, from the catalog.
_YAML_HINTS = (
    ("found character '\\t'", N_("there is a tab; in YAML, indent with spaces only")),
    (
        "mapping values are not allowed here",
        N_("there is a `: ` inside an unquoted text; put the text between quotes"),
    ),
    (
        "could not find expected ':'",
        N_("a `:` is missing after a field (or a text of several lines needs `|`)"),
    ),
    ("expected <block end>", N_("the indentation does not match the one of the lines above")),
    ("expected ',' or ']'", N_("a list `[...]` was not closed with `]`")),
    ("expected ',' or '}'", N_("a mapping `{...}` was not closed with `}`")),
    ("found unexpected end of stream", N_("a quoted text was not closed")),
    ("found undefined alias", N_("`*` at the start of a value; put the text between quotes")),
    (
        "found character that cannot start any token",
        N_("a value starts with a reserved character (`@`, `` ` ``, `%`); put it between quotes"),
    ),
)


def _explain(exc: yaml.MarkedYAMLError) -> str:
    detail = " ".join(filter(None, [exc.context, exc.problem]))
    for needle, hint in _YAML_HINTS:
        if needle in detail:
            return gettext(hint)
    return _unknown(detail)


def line_of(node: Node | None, path: tuple[int | str, ...]) -> int:
    """Return the 0-based line of the deepest node reached by ``path`` (see :func:`position_of`)."""
    return position_of(node, path)[0]


def position_of(node: Node | None, path: tuple[int | str, ...]) -> tuple[int, int]:
    """Return the 0-based ``(line, column)`` of the deepest node reached by ``path``.

    Args:
        node: the root node.
        path: keys (``str``) and indexes (``int``), as in a pydantic error ``loc``.

    Returns:
        Where the key that holds the value at ``path`` starts (or the list item), or
        its nearest existing parent.
    """
    if node is None:
        return 0, 0
    current, mark = node, node.start_mark
    for step in path:
        found = _child(current, step)
        if found is None:
            break
        key, current = found
        mark = (key or current).start_mark
    return mark.line, mark.column


def _child(node: Node, step: int | str) -> tuple[Node | None, Node] | None:
    if _kind(node) == "sequence" and isinstance(step, int):
        return (None, node.value[step]) if 0 <= step < len(node.value) else None
    if _kind(node) == "mapping":
        for key, value in node.value:
            if key.value == str(step):
                return key, value
    return None


# pydantic's error type → the message, from the catalog (``too_short`` has a plural).
_MESSAGES = {
    "missing": N_("missing required field: `%(field)s`"),
    "extra_forbidden": N_("unknown field: `%(field)s`"),
    "string_type": N_("`%(field)s` must be a text"),
    "int_type": N_("`%(field)s` must be a whole number"),
    "int_parsing": N_("`%(field)s` must be a whole number"),
    "int_from_float": N_("`%(field)s` must be a whole number"),
    "list_type": N_("`%(field)s` must be a list"),
    "dict_type": N_("expected a mapping (`key: value`) in `%(field)s`"),
    "model_type": N_("expected a mapping (`key: value`) in `%(field)s`"),
    "model_attributes_type": N_("expected a mapping (`key: value`) in `%(field)s`"),
    "finite_number": N_("`%(field)s` must be a finite number"),
    "float_parsing": N_("`%(field)s` must be a number"),
    "float_type": N_("`%(field)s` must be a number"),
    "greater_than_equal": N_("`%(field)s` must be greater than or equal to %(ge)s"),
    "string_too_short": N_("`%(field)s` cannot be empty"),
    "string_too_long": N_("`%(field)s` may have at most %(max_length)s characters"),
    "bool_type": N_("`%(field)s` must be `true` or `false`"),
    "bool_parsing": N_("`%(field)s` must be `true` or `false`"),
    "literal_error": N_("`%(field)s` must be one of these values: %(expected)s"),
    "enum": N_("`%(field)s` must be one of these values: %(expected)s"),
    "string_pattern_mismatch": N_(
        "`%(field)s` takes only unaccented lowercase letters, digits and hyphens "
        "(e.g. `minha-licao`)"
    ),
}


def pydantic_messages(exc: ValidationError) -> list[tuple[tuple[int | str, ...], str]]:
    """Translate a pydantic error into ``(path, message in Portuguese)`` pairs."""
    out = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        field = _field_name(loc)
        ctx = err.get("ctx") or {}
        values = {k: str(v) for k, v in ctx.items()}
        if "expected" in values:  # "'a', 'b' or 'c'"
            word = gettext("or")
            values["expected"] = values["expected"].replace("' or '", "' " + word + " '")
        template = _MESSAGES.get(err["type"])
        if err["type"] == "too_short":
            count = int(ctx.get("min_length", 1))
            message = ngettext(
                "`%(field)s` needs at least %(num)s item",
                "`%(field)s` needs at least %(num)s items",
                count,
            ) % {"field": field, "num": count}
        elif template:
            message = gettext(template) % {"field": field, **values}
        elif err["type"] == "value_error":  # a validator's ValueError, already from the catalog
            detail = str(ctx.get("error", err["msg"])).removeprefix("Value error, ")
            message = gettext("`%(field)s`: %(detail)s") % {"field": field, "detail": detail}
        else:  # a rule without a message of ours: pydantic's own words, in English, after ours
            message = gettext("`%(field)s` is not valid (%(detail)s)") % {
                "field": field,
                "detail": err["msg"],
            }
        out.append((loc, message))
    return out


def _field_name(loc: tuple[int | str, ...]) -> str:
    names = [str(p) for p in loc if isinstance(p, str)]
    return names[-1] if names else gettext("value")


Locator = Callable[..., tuple[int, int]]
T = TypeVar("T")


def locator(source: YamlSource, first_line: int) -> Locator:
    """Return ``at(*path)``: the 1-based file ``(line, column)`` of the node at ``path``.

    Args:
        first_line: 1-based file line of the YAML text's first line.
    """

    def at(*path: int | str) -> tuple[int, int]:
        line, col = position_of(source.node, path)
        return first_line + line, col + 1

    return at


def is_mapping(data: Any) -> bool:
    """The block is a YAML mapping (a :func:`read_block` shape)."""
    return isinstance(data, dict)


def is_nonempty_list(data: Any) -> bool:
    """The block is a YAML list with an item at least (a :func:`read_block` shape)."""
    return isinstance(data, list) and bool(data)


def read_block(
    text: str,
    file: Path,
    first_line: int,
    validate: Callable[[Any], T],
    shape: tuple[Callable[[Any], bool], str] | None = None,
) -> tuple[T, Locator] | list[ContentError]:
    """Read a lesson's YAML block: parse it, check its top level, validate it, and locate it.

    Args:
        first_line: 1-based file line of the block's first YAML line.
        validate: pydantic's validation of the block's data (raises ``ValidationError``).
        shape: a test of the parsed data and the message (already translated) when it fails,
            at the block's first line; ``None``: pydantic's messages say it all.

    Returns:
        What ``validate`` gave with the block's :func:`locator`, or the problems: a syntax
        error, the shape's message, or one per pydantic error.
    """
    try:
        source = parse_yaml(text)
    except YamlSyntaxError as exc:
        return [syntax_problem(file, first_line, exc)]
    if shape is not None and not shape[0](source.data):
        return [ContentError(file, first_line, shape[1])]
    try:
        spec = validate(source.data)
    except ValidationError as exc:
        return validation_problems(file, first_line, source, exc)
    return spec, locator(source, first_line)


def syntax_problem(file: Path, first_line: int, exc: YamlSyntaxError) -> ContentError:
    """The :class:`ContentError` for YAML that does not parse, at its file line and column."""
    return ContentError(file, first_line + exc.line, exc.message, exc.col + 1)


def validation_problems(
    file: Path, first_line: int, source: YamlSource, exc: ValidationError
) -> list[ContentError]:
    """One :class:`ContentError` per pydantic error, each at the node it names.

    When the value at fault is a plain (unquoted) scalar that YAML 1.1 read as something
    other than a text (``no`` → false, ``3.10`` → 3.1, ``2024-01-01`` → a date), and the
    field does not want a number or a boolean, the message says so and asks for quotes.
    """
    at = locator(source, first_line)
    kinds = [err["type"] for err in exc.errors(include_url=False)]
    out = []
    for (loc, message), kind in zip(pydantic_messages(exc), kinds, strict=True):
        surprise = yaml_surprise(source.node, loc) if kind not in _WANTS_NUMBER_OR_BOOL else None
        out.append(ContentError.at(file, at(*loc), surprise or message))
    return out


# pydantic error types of fields that want a number or a boolean: there, YAML reading
# `3.10` as a number is what the author meant, and the usual message is the right one.
_WANTS_NUMBER_OR_BOOL = frozenset(
    {
        "int_type",
        "int_parsing",
        "int_from_float",
        "float_type",
        "float_parsing",
        "finite_number",
        "greater_than_equal",
        "bool_type",
        "bool_parsing",
    }
)
# YAML 1.1 tags of plain scalars that are not texts → how the message names them.
_SURPRISE_KINDS = {
    "tag:yaml.org,2002:bool": N_("a boolean (%(value)s)"),
    "tag:yaml.org,2002:int": N_("the number %(value)s"),
    "tag:yaml.org,2002:float": N_("the number %(value)s"),
    "tag:yaml.org,2002:timestamp": N_("a date (%(value)s)"),
    "tag:yaml.org,2002:null": N_("empty (null)"),
}


def scalar_at(node: Node | None, path: tuple[int | str, ...]) -> ScalarNode | None:
    """The scalar node reached by following all of ``path`` (keys and indexes), else ``None``."""
    current: Any = node  # Any: nodes are told apart by their ``id`` (see above)
    for step in path:
        found = _child(current, step) if current is not None else None
        if found is None:
            return None
        current = found[1]
    if _kind(current) != "scalar":
        return None
    scalar: ScalarNode = current
    return scalar


def yaml_surprise(node: Node | None, path: tuple[int | str, ...]) -> str | None:
    """Explain a value YAML 1.1 read as a non-text, when the value at ``path`` is one.

    PyYAML follows YAML 1.1: unquoted ``yes``/``no``/``on``/``off`` are booleans, ``3.10``
    is the number 3.1, ``010`` is 8, ``1:30`` is 90, ``2024-01-01`` a date and ``~`` null.

    Args:
        node: the document's root node.
        path: where pydantic found the problem.

    Returns:
        The message (from the catalog), or ``None`` when the value is a text, was quoted,
        or cannot be found.
    """
    scalar = scalar_at(node, path)
    if scalar is None or scalar.style not in (None, "") or scalar.tag not in _SURPRISE_KINDS:
        return None
    written = scalar.value
    if not written:  # an empty value is just missing, not a surprise
        return None
    import yaml

    value = yaml.safe_load(written)
    shown = ("true" if value else "false") if isinstance(value, bool) else str(value)
    what = gettext(_SURPRISE_KINDS[scalar.tag]) % {"value": shown}
    return gettext(
        "`%(field)s`: YAML read `%(written)s` as %(what)s, not as a text; write it between "
        'quotes: `"%(written)s"`'
    ) % {"field": _field_name(path), "written": written, "what": what}
