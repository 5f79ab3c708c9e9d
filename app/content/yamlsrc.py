"""YAML parsing that remembers where each value came from.

Validation errors from pydantic name a path such as ``(0, "options", 2, "text")``;
:func:`position_of` turns that path into the line and column of the YAML node that
holds it; the helpers at the end turn YAML and validation errors into
:class:`ContentError` values located in the lesson file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from yaml.nodes import MappingNode, Node, SequenceNode

from app.content.errors import ContentError


@dataclass(frozen=True)
class YamlSource:
    """Parsed YAML plus its node tree.

    Attributes:
        data: the plain Python value (``yaml.safe_load`` semantics).
        node: the composed node tree, for line look-ups; ``None`` for an empty document.
    """

    data: Any
    node: Node | None


FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlSyntaxError(Exception):
    """YAML that does not parse.

    Attributes:
        line: 0-based line inside the parsed text.
        message: the problem, in Portuguese.
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
    try:
        try:
            # libyaml (C) parses about ten times faster than PyYAML's Python parser...
            node = yaml.compose(text, Loader=FAST_LOADER)
            data = yaml.load(text, Loader=FAST_LOADER)  # noqa: S506 (a SafeLoader)
        except yaml.YAMLError:
            # ...but only the Python parser's messages match the hints below.
            node = yaml.compose(text, Loader=yaml.SafeLoader)
            data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        # The context mark points at what was left open (a "[" or a key); that is
        # where the author has to look, not the end of the text.
        mark = exc.context_mark or exc.problem_mark
        line, col = (mark.line, mark.column) if mark else (0, 0)
        raise YamlSyntaxError(line, f"YAML inválido: {_explain(exc)}", col) from exc
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(0, f"YAML inválido: {exc}") from exc
    duplicate = _first_duplicate_key(node)
    if duplicate is not None:
        mark = duplicate.start_mark
        raise YamlSyntaxError(mark.line, f"YAML inválido: a chave `{duplicate.value}` aparece duas vezes", mark.column)
    return YamlSource(data, node)


def _first_duplicate_key(node: Node | None) -> Node | None:
    """Return the second occurrence of a repeated mapping key, anywhere in the tree."""
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        if isinstance(current, MappingNode):
            seen: set[str] = set()
            for key, value in current.value:
                if isinstance(key.value, str):
                    if key.value in seen:
                        return key
                    seen.add(key.value)
                stack.append(value)
        elif isinstance(current, SequenceNode):
            stack.extend(current.value)
    return None


_YAML_HINTS = (
    ("found character '\\t'", "há uma tabulação; em YAML, indente só com espaços"),
    ("mapping values are not allowed here", "há `: ` dentro de um texto sem aspas; ponha o texto entre aspas"),
    ("could not find expected ':'", "falta `:` depois de um campo (ou um texto de várias linhas precisa de `|`)"),
    ("expected <block end>", "a indentação não bate com a das linhas anteriores"),
    ("expected ',' or ']'", "uma lista `[...]` não foi fechada com `]`"),
    ("expected ',' or '}'", "um mapeamento `{...}` não foi fechado com `}`"),
    ("found unexpected end of stream", "um texto entre aspas não foi fechado"),
    ("found undefined alias", "`*` no começo de um valor; ponha o texto entre aspas"),
    ("found character that cannot start any token", "um valor começa com um caractere reservado (`@`, `` ` ``, `%`); ponha-o entre aspas"),
)


def _explain(exc: yaml.MarkedYAMLError) -> str:
    detail = " ".join(filter(None, [exc.context, exc.problem]))
    for needle, hint in _YAML_HINTS:
        if needle in detail:
            return hint
    return detail or "erro de sintaxe"


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
    if isinstance(node, SequenceNode) and isinstance(step, int):
        return (None, node.value[step]) if 0 <= step < len(node.value) else None
    if isinstance(node, MappingNode):
        for key, value in node.value:
            if key.value == str(step):
                return key, value
    return None


_MESSAGES = {
    "missing": "campo obrigatório ausente: `{field}`",
    "extra_forbidden": "campo desconhecido: `{field}`",
    "string_type": "`{field}` deve ser um texto",
    "int_type": "`{field}` deve ser um número inteiro",
    "int_parsing": "`{field}` deve ser um número inteiro",
    "int_from_float": "`{field}` deve ser um número inteiro",
    "list_type": "`{field}` deve ser uma lista",
    "dict_type": "esperava um mapeamento (`chave: valor`) em `{field}`",
    "model_type": "esperava um mapeamento (`chave: valor`) em `{field}`",
    "model_attributes_type": "esperava um mapeamento (`chave: valor`) em `{field}`",
    "finite_number": "`{field}` deve ser um número finito",
    "float_parsing": "`{field}` deve ser um número",
    "float_type": "`{field}` deve ser um número",
    "greater_than_equal": "`{field}` deve ser maior ou igual a {ge}",
    "string_too_short": "`{field}` não pode ficar vazio",
    "too_short": "`{field}` precisa de pelo menos {min_length} item(ns)",
    "literal_error": "`{field}` deve ser um destes valores: {expected}",
    "enum": "`{field}` deve ser um destes valores: {expected}",
    "string_pattern_mismatch": (
        "`{field}` só aceita letras minúsculas sem acento, números e hífens (ex.: `minha-licao`)"
    ),
}


def pydantic_messages(exc: ValidationError) -> list[tuple[tuple[int | str, ...], str]]:
    """Translate a pydantic error into ``(path, message in Portuguese)`` pairs."""
    out = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        field = _field_name(loc)
        template = _MESSAGES.get(err["type"])
        ctx = err.get("ctx") or {}
        if template:
            values = {k: str(v).replace("' or '", "' ou '") for k, v in ctx.items()}
            message = template.format(field=field, **values)
        else:
            detail = str(ctx.get("error", err["msg"])).removeprefix("Value error, ")
            message = f"`{field}`: {detail}"
        out.append((loc, message))
    return out


def _field_name(loc: tuple[int | str, ...]) -> str:
    names = [str(p) for p in loc if isinstance(p, str)]
    return names[-1] if names else "valor"


Locator = Callable[..., tuple[int, int]]


def locator(source: YamlSource, first_line: int) -> Locator:
    """Return ``at(*path)``: the 1-based file ``(line, column)`` of the node at ``path``.

    Args:
        source: the parsed YAML.
        first_line: 1-based file line of the YAML text's first line.
    """

    def at(*path: int | str) -> tuple[int, int]:
        line, col = position_of(source.node, path)
        return first_line + line, col + 1

    return at


def syntax_problem(file: Path, first_line: int, exc: YamlSyntaxError) -> ContentError:
    """The :class:`ContentError` for YAML that does not parse, at its file line and column."""
    return ContentError(file, first_line + exc.line, exc.message, exc.col + 1)


def validation_problems(
    file: Path, first_line: int, source: YamlSource, exc: ValidationError
) -> list[ContentError]:
    """One :class:`ContentError` per pydantic error, each at the node it names."""
    at = locator(source, first_line)
    return [ContentError.at(file, at(*loc), message) for loc, message in pydantic_messages(exc)]
