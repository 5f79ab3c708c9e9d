"""The course glossary: ``lessons/glossario.yml``, a list of terms and short definitions.

The first time a lesson uses a term, the lesson shows it as a ``<dfn>`` whose button
opens the definition in a popover (keyboard and touch alike, no JavaScript). Terms
are matched by their search keys (:func:`app.content.text.term_key`), so "kernels"
is a use of "kernel" and "KV-cache" of "KV cache". The format is documented in
``lessons/README.md``; every problem is reported with its ``file:line``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field, TypeAdapter, ValidationError

from app.content import paths
from app.content.errors import ContentError
from app.content.markdown import escape_html, render_inline, slugify
from app.content.page_ids import definition_anchor, term_anchor
from app.content.text import Word, collation_key, nfc, term_key, text_keys, words
from app.content.yamlsrc import (
    YamlSource,
    YamlSpec,
    YamlSyntaxError,
    line_of,
    parse_yaml,
    pydantic_messages,
)
from app.i18n import gettext

GLOSSARY_FILE = "glossario.yml"
MAX_DEFINITION_CHARS = 320
_JOINER = re.compile(r"[\s\-]+")


class EntrySpec(YamlSpec):
    """One glossary entry as written in YAML."""

    term: str = Field(min_length=1, max_length=60)
    definition: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)


_ENTRIES = TypeAdapter(list[EntrySpec])


@dataclass(frozen=True)
class Term:
    """A glossary term.

    Attributes:
        term: the term as the glossary shows it.
        slug: its id on the glossary page and in lessons (``termo-<slug>``).
        definition_html: the short definition, inline HTML.
        forms: the key sequence of the term and of each alias.
        line: 1-based line of the entry in the glossary file.
    """

    term: str
    slug: str
    definition_html: str
    forms: tuple[tuple[str, ...], ...]
    line: int


@dataclass(frozen=True)
class Match:
    """A use of a term in a text: ``text[start:end]`` is ``term``."""

    start: int
    end: int
    term: Term


@dataclass(frozen=True)
class Glossary:
    """Every valid term, in Portuguese alphabetical order.

    Attributes:
        terms: the terms, sorted with :func:`collation_key`.
    """

    terms: tuple[Term, ...] = ()
    _by_first_key: dict[str, list[tuple[tuple[str, ...], Term]]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        for term in self.terms:
            for form in term.forms:
                self._by_first_key.setdefault(form[0], []).append((form, term))
        for candidates in self._by_first_key.values():
            candidates.sort(key=lambda item: -len(item[0]))  # longest form first

    def html(self, term: Term, written: str) -> str:
        """The first use of ``term`` in a lesson (see :func:`term_html`)."""
        return term_html(term, written)

    def get(self, slug: str) -> Term | None:
        """The term with ``slug``, or ``None``."""
        return next((t for t in self.terms if t.slug == slug), None)

    def find(self, text: str) -> list[Match]:
        """Every use of a term in NFC ``text``, left to right, longest first, never overlapping."""
        found = words(text)
        keys = [term_key(w.text) for w in found]
        matches, i = [], 0
        while i < len(found):
            match = self._match_at(text, found, keys, i)
            if match is None:
                i += 1
                continue
            form_length, term = match
            matches.append(Match(found[i].start, found[i + form_length - 1].end, term))
            i += form_length
        return matches

    def _match_at(
        self, text: str, found: list[Word], keys: list[str], i: int
    ) -> tuple[int, Term] | None:
        for form, term in self._by_first_key.get(keys[i], ()):
            end = i + len(form)
            if tuple(keys[i:end]) != form:
                continue
            joints = (text[found[j].end : found[j + 1].start] for j in range(i, end - 1))
            if all(_JOINER.fullmatch(joint) for joint in joints):
                return len(form), term
        return None


def term_html(term: Term, written: str) -> str:
    """The first use of ``term`` in a lesson: a ``<dfn>`` with a button that opens
    its definition.
    """
    return (
        f'<dfn class="term" id="{term_anchor(term.slug)}">'
        f'<button type="button" class="term-button" '
        f'popovertarget="{definition_anchor(term.slug)}">{escape_html(written)}</button></dfn>'
        f'<span class="term-popover" id="{definition_anchor(term.slug)}" popover>'
        f'<a class="term-link" href="{paths.glossary_term(term.slug)}">'
        f"{escape_html(term.term)}</a>: "
        f"{term.definition_html}</span>"
    )


def load_glossary(folder: Path, raw: bytes | None = None) -> tuple[Glossary, list[ContentError]]:
    """Read ``glossario.yml`` in ``folder``; a missing file is an empty glossary.

    Args:
        raw: the file's bytes when the caller already read them (they are then the bytes
            the lessons' cache key names); ``None`` reads the file.

    Returns:
        The valid terms and every problem found (an entry with a problem is left out).
    """
    path = folder / GLOSSARY_FILE
    if raw is None:
        if not path.is_file():
            return Glossary(), []
        raw = path.read_bytes()
    text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as read_text()
    return parse_glossary(nfc(text), path)


def parse_glossary(text: str, path: Path) -> tuple[Glossary, list[ContentError]]:
    """Validate the glossary YAML in ``text`` (from ``path``) and build its terms."""
    try:
        source = parse_yaml(text)
    except YamlSyntaxError as exc:
        return Glossary(), [ContentError(path, 1 + exc.line, exc.message)]
    if not isinstance(source.data, list):
        msg = gettext("the glossary must be a YAML list of terms (each one starts with `- term:`)")
        return Glossary(), [ContentError(path, 1, msg)]
    try:
        specs = _ENTRIES.validate_python(source.data)
    except ValidationError as exc:
        return Glossary(), [
            ContentError(path, 1 + line_of(source.node, loc), message)
            for loc, message in pydantic_messages(exc)
        ]
    terms, errors = [], []
    owners: dict[tuple[str, ...], str] = {}
    for index, spec in enumerate(specs):
        line = 1 + line_of(source.node, (index,))
        problems, forms = _check_entry(spec, index, source, path, owners)
        errors.extend(problems)
        if not problems:
            terms.append(
                Term(spec.term, slugify(spec.term), render_inline(spec.definition), forms, line)
            )
    terms.sort(key=lambda t: collation_key(t.term))
    return Glossary(tuple(terms)), errors


def _check_entry(
    spec: EntrySpec,
    index: int,
    source: YamlSource,
    path: Path,
    owners: dict[tuple[str, ...], str],
) -> tuple[list[ContentError], tuple[tuple[str, ...], ...]]:
    def at(*where: int | str) -> int:
        return 1 + line_of(source.node, (index, *where))

    errors: list[ContentError] = []
    if len(spec.definition) > MAX_DEFINITION_CHARS:
        msg = gettext(
            "the definition of `%(term)s` has %(num)s characters; the glossary keeps short "
            "definitions (up to %(max)s)"
        ) % {"term": spec.term, "num": len(spec.definition), "max": MAX_DEFINITION_CHARS}
        errors.append(ContentError(path, at("definition"), msg))
    forms: list[tuple[str, ...]] = []
    for where, written in (
        (("term",), spec.term),
        *((("aliases", i), a) for i, a in enumerate(spec.aliases)),
    ):
        form = tuple(text_keys(written))
        if not form:
            msg = gettext("`%(written)s` has no letters or digits") % {"written": written}
            errors.append(ContentError(path, at(*where), msg))
            continue
        if form in owners:
            msg = gettext("`%(written)s` is already in the glossary, under the term `%(term)s`") % {
                "written": written,
                "term": owners[form],
            }
            errors.append(ContentError(path, at(*where), msg))
            continue
        owners[form] = spec.term
        forms.append(form)
    return errors, tuple(forms)
