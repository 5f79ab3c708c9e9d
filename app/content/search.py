"""Full-text search over the lessons, in its own SQLite FTS5 database.

The index is built from the lesson files, one row per section (the text under a
``##`` or ``###`` heading, plus an opening section with the title, summary and
objectives). It never touches the learner database, so it works whichever
database holds learner data, and it is rebuilt when a lesson file changes.

Every word is stored twice: as its search key (:func:`app.content.text.term_key`:
no case, no accents, stemmed) and folded without stemming. A query word matches
either form as a prefix, so "decodificacao", "DECODIFICAÇÃO" and its NFD form all
find "decodificação", "kernel" finds "kernels" and "quantização" finds
"quantizações", and results come as the learner types.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from html.parser import HTMLParser
from typing import Any

from app.content.course import Course
from app.content.lessons import Lesson
from app.content.markdown import plain_text
from app.content.text import fold, nfc, term_key, words

MAX_RESULTS = 20
MAX_CACHED_QUERIES = 512
MAX_QUERY_WORDS = 8
SNIPPET_WORDS = 28
SCHEMA = """
CREATE VIRTUAL TABLE section USING fts5(
    lesson_slug UNINDEXED, lesson_title UNINDEXED, position UNINDEXED, anchor UNINDEXED,
    title UNINDEXED, body UNINDEXED, title_terms, body_terms,
    tokenize = 'unicode61 remove_diacritics 2'
)
"""


@dataclass(frozen=True)
class Section:
    """A searchable piece of a lesson.

    Attributes:
        anchor: the heading's id ("" for the lesson's opening).
        title: the heading's text (the lesson title for the opening).
        text: the section's plain text, in NFC.
    """

    anchor: str
    title: str
    text: str


@dataclass(frozen=True)
class Hit:
    """One search result.

    Attributes:
        position: the lesson's number in the course (1-based).
        anchor: the section's id on the lesson page.
        snippet_html: an escaped excerpt with the matching words in ``<mark>``.
    """

    lesson_slug: str
    lesson_title: str
    position: int
    title: str
    anchor: str
    snippet_html: str


class _SectionText(HTMLParser):
    """Collects the text under each heading of rendered lesson HTML.

    Skipped: SVG drawings (their data is repeated in a table) and glossary popovers
    (a definition belongs to the glossary, not to the section where a term first appears).
    """

    SKIP = {"svg", "script", "style"}
    BLOCKS = {
        "p",
        "li",
        "td",
        "th",
        "tr",
        "div",
        "br",
        "pre",
        "blockquote",
        "figcaption",
        "caption",
        "summary",
        "dt",
        "dd",
    }

    def __init__(self, title: str):
        super().__init__(convert_charrefs=True)
        self.sections: list[list[Any]] = [["", title, []]]  # [anchor, title, text chunks]
        self._heading: str | None = None
        self._skip_depth = 0
        self._stack: list[bool] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        skip = tag in self.SKIP or "popover" in attributes
        self._stack.append(skip)
        if skip:
            self._skip_depth += 1
        elif tag in self.BLOCKS:
            self.sections[-1][2].append(" ")
        elif tag in ("h2", "h3") and attributes.get("id"):
            self._heading = attributes["id"]
            self.sections.append([self._heading, "", []])

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h2", "h3"):
            self._heading = None
        elif tag in self.BLOCKS:
            self.sections[-1][2].append(" ")
        if self._stack and self._stack.pop():
            self._skip_depth -= 1

    def handle_data(self, data: str) -> None:
        if self._skip_depth:
            return
        if self._heading is not None:
            self.sections[-1][1] += data
        else:
            self.sections[-1][2].append(data)


def lesson_sections(lesson: Lesson) -> list[Section]:
    """Split a lesson into sections: its opening (title, summary, objectives, intro) and each
    heading.
    """
    html = "".join(part for part in lesson.parts if isinstance(part, str))
    parser = _SectionText(lesson.meta.title_text)
    parser.sections[0][2].extend(
        f"{line} "
        for line in (lesson.meta.summary_text, *map(plain_text, lesson.meta.objectives_html))
    )
    parser.feed(html)
    parser.close()
    return [
        Section(anchor, nfc(" ".join(title.split())), nfc(" ".join("".join(chunks).split())))
        for anchor, title, chunks in parser.sections
    ]


def index_terms(text: str) -> str:
    """The indexed form of ``text``: each word's key, and its folded form when different."""
    out: list[str] = []
    for word in words(nfc(text)):
        key, folded = term_key(word.text), fold(word.text)
        out.append(key)
        if folded != key:
            out.append(folded)
    return " ".join(out)


@dataclass(frozen=True)
class Query:
    """A parsed query: for each word, its key and folded form (``prefix``: match word starts)."""

    terms: tuple[tuple[str, str, bool], ...]

    @classmethod
    def parse(cls, raw: str) -> Query:
        """Parse what the learner typed (any case, accents or Unicode form)."""
        found = words(nfc(raw))[:MAX_QUERY_WORDS]
        return cls(tuple((term_key(w.text), fold(w.text), len(w.text) >= 3) for w in found))

    def fts(self) -> str:
        """The FTS5 MATCH expression: every word must match, as key or folded form."""
        parts = []
        for key, folded, prefix in self.terms:
            star = "*" if prefix else ""
            options = dict.fromkeys((key, folded))  # ordered, without repeats
            parts.append("(" + " OR ".join(f'"{o}"{star}' for o in options) + ")")
        return " AND ".join(parts)

    def matches(self, word: str) -> bool:
        """True when ``word`` (as written in a lesson) is one of the query's words."""
        return _matches(self.terms, word)


@lru_cache(maxsize=1 << 14)  # snippets test every word of each result's section; words repeat
def _matches(terms: tuple[tuple[str, str, bool], ...], word: str) -> bool:
    key, folded = term_key(word), fold(word)
    for term_key_, term_folded, prefix in terms:
        for form, wanted in ((key, term_key_), (folded, term_folded), (folded, term_key_)):
            if form == wanted or (prefix and form.startswith(wanted)):
                return True
    return False


def snippet(text: str, query: Query, size: int = SNIPPET_WORDS) -> str:
    """An escaped excerpt of ``text`` around its first match, matches wrapped in ``<mark>``."""
    found = words(text)
    hits = [i for i, w in enumerate(found) if query.matches(w.text)]
    marked = set(hits)
    if not found:
        return ""
    first = hits[0] if hits else 0
    start = max(0, first - size // 3)
    end = min(len(found), start + size)
    begin = found[start].start if start else 0
    finish = found[end - 1].end if end < len(found) else len(text)
    out, cursor = [], begin
    for i in range(start, end):
        word = found[i]
        out.append(escape(text[cursor : word.start], quote=False))
        out.append(
            f"<mark>{escape(word.text, quote=False)}</mark>"
            if i in marked
            else escape(word.text, quote=False)
        )
        cursor = word.end
    out.append(escape(text[cursor:finish], quote=False))
    return ("… " if begin else "") + "".join(out).strip() + (" …" if finish < len(text) else "")


class _WordMarker(HTMLParser):
    """Finds where the text of an HTML fragment holds a query's words (:func:`mark_words`).

    Skipped as the search skips them, and as a reader cannot see them: code drawn as SVG,
    scripts, controls (buttons, inputs, text areas), heading links, form hints, words already
    marked, glossary popovers and anything ``hidden``. A glossary term's button is the term's
    visible text, so it is marked (its popover, the definition, is not).
    """

    SKIP_TAGS = frozenset({"script", "style", "svg", "button", "input", "textarea", "mark"})
    VOID = frozenset(
        {
            "area",
            "base",
            "br",
            "col",
            "embed",
            "hr",
            "img",
            "input",
            "link",
            "meta",
            "source",
            "wbr",
        }
    )

    def __init__(self, source: str, query: Query):
        super().__init__(convert_charrefs=False)
        self.query = query
        self.found: list[tuple[int, int]] = []  # (start, end) offsets in ``source``
        self._line_starts = [0]
        for i, char in enumerate(source):
            if char == "\n":
                self._line_starts.append(i + 1)
        self._stack: list[tuple[str, bool, bool]] = []  # (tag, skipped, in a form)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        skipped, in_form = self._stack[-1][1:] if self._stack else (False, False)
        in_form = in_form or tag == "form"
        skipped = (
            skipped
            or (tag in self.SKIP_TAGS and "term-button" not in classes)
            or "popover" in attributes
            or "hidden" in attributes
            or "heading-link" in classes
            or (in_form and "hint" in classes)
        )
        self._stack.append((tag, skipped, in_form))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._stack) - 1, -1, -1):  # tolerant: closes what it left open
            if self._stack[depth][0] == tag:
                del self._stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        if self._stack and self._stack[-1][1]:
            return
        line, column = self.getpos()
        offset = self._line_starts[line - 1] + column
        self.found.extend(
            (offset + word.start, offset + word.end)
            for word in words(data)
            if self.query.matches(word.text)
        )


def mark_words(html: str, raw_query: str) -> str:
    """``html`` (a lesson's body) with each word of ``raw_query`` in ``<mark>``, as the search
    matched it (:meth:`Query.matches`), where a reader can see it (:class:`_WordMarker`).

    Everything else is kept byte for byte; no words, nothing marked.
    """
    query = Query.parse(raw_query)
    if not query.terms:
        return html
    marker = _WordMarker(html, query)
    marker.feed(html)
    marker.close()
    out, cursor = [], 0
    for start, end in marker.found:
        out.append(html[cursor:start])
        out.append(f"<mark>{html[start:end]}</mark>")
        cursor = end
    out.append(html[cursor:])
    return "".join(out)


class SearchIndex:
    """The search index of the course as it is now, rebuilt when the course changes.

    The course comes from ``current`` (the app's :class:`~app.content.live.LiveCourse`), so
    the index holds exactly the lessons being served, and a search looks at no file.
    Thread-safe: queries and rebuilds share one lock.

    Args:
        current: returns the course as it is now; a new object means the course changed.
    """

    def __init__(self, current: Callable[[], Course]):
        self._current = current
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._course: Course | None = None
        # Results by query, for the index as it is: a class searching the same words gets the
        # snippets built once. Emptied whenever the index is rebuilt.
        self._results: OrderedDict[tuple[Query, int], list[Hit]] = OrderedDict()
        self._client: tuple[Course, ClientIndex] | None = None
        self._digest: tuple[Course, str] | None = None

    def client(self) -> ClientIndex:
        """The browser's copy of the index (:func:`client_index`), built once per course version
        (when the browser first asks for it: pages name it by :meth:`client_digest` only)."""
        course = self._current()
        digest = self.client_digest()
        with self._lock:
            if self._client is None or self._client[0] is not course:
                self._client = (course, ClientIndex(client_index(course), digest))
            return self._client[1]

    def client_digest(self) -> str:
        """The fingerprint in the browser index's address (:func:`client_digest`), once per
        course version; it reads the sections' text, not the stemmer, so a page names the
        index without loading the stemmer (a warm start stays light)."""
        course = self._current()
        with self._lock:
            if self._digest is None or self._digest[0] is not course:
                self._digest = (course, client_digest(course))
            return self._digest[1]

    def search(self, raw: str, limit: int = MAX_RESULTS) -> list[Hit]:
        """The sections that contain every word of ``raw``, best first."""
        query = Query.parse(raw)
        if not query.terms:
            return []
        with self._lock:
            db = self._fresh()
            cached = self._results.get((query, limit))
            if cached is not None:
                self._results.move_to_end((query, limit))
                return list(cached)
        hits = self._query(db, query, limit)
        with self._lock:
            if self._db is db:
                self._results[(query, limit)] = hits
                while len(self._results) > MAX_CACHED_QUERIES:
                    self._results.popitem(last=False)
        return list(hits)

    def _query(self, db: sqlite3.Connection, query: Query, limit: int) -> list[Hit]:
        with self._lock:
            rows = db.execute(
                "SELECT lesson_slug, lesson_title, position, anchor, title, body FROM section "
                "WHERE section MATCH ? ORDER BY bm25(section, 0, 0, 0, 0, 0, 0, 8.0, 1.0), "
                "position LIMIT ?",
                (query.fts(), limit),
            ).fetchall()
        return [
            Hit(
                slug,
                lesson_title,
                position,
                title,
                anchor,
                snippet(body, query) or escape(title, quote=False),
            )
            for slug, lesson_title, position, anchor, title, body in rows
        ]

    def _fresh(self) -> sqlite3.Connection:
        course = self._current()
        if self._db is None or course is not self._course:
            self._db = build_index(course)
            self._course = course
            self._results.clear()
        return self._db


def build_index(course: Course) -> sqlite3.Connection:
    """Build an FTS5 index of every section of every lesson in ``course``.

    The index is a temporary file, deleted as soon as it is open: its pages stay in the
    operating system's cache, shared and reclaimable, instead of in each worker's memory
    (with 300 lessons an in-memory index added about 25 MB to every worker).
    """
    handle, path = tempfile.mkstemp(prefix="curso-busca-", suffix=".db")
    os.close(handle)
    try:
        db = sqlite3.connect(path, check_same_thread=False)
        db.execute("PRAGMA journal_mode=OFF")  # rebuilt from the lessons, never recovered
        db.execute("PRAGMA synchronous=OFF")
    finally:
        os.unlink(path)
    db.execute(SCHEMA)
    rows = []
    for position, lesson in enumerate(course.lessons, start=1):
        for section in lesson_sections(lesson):
            rows.append(
                (
                    lesson.slug,
                    lesson.meta.title_text,
                    position,
                    section.anchor,
                    section.title,
                    section.text,
                    index_terms(section.title),
                    index_terms(section.text),
                )
            )
    db.executemany("INSERT INTO section VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    return db


@dataclass(frozen=True)
class ClientIndex:
    """The index the browser searches (``static/js/search-index.js``), as served.

    Attributes:
        content: UTF-8 JSON (:func:`client_index`).
        digest: :func:`client_digest`, the fingerprint in its address.
    """

    content: bytes
    digest: str


# Bump when client_index's format or the search keys (app.content.text.term_key) change: the
# digest reads only the sections, and browsers keep an index for a year under its address.
CLIENT_FORMAT = "1"


def client_digest(course: Course) -> str:
    """10 hex digits of a SHA-256 over what :func:`client_index` is built from (each lesson's
    slug and title, each section's anchor, title and text) and :data:`CLIENT_FORMAT`."""
    digest = hashlib.sha256(CLIENT_FORMAT.encode())
    for lesson in course.lessons:
        parts: list[Any] = [lesson.slug, lesson.meta.title_text]
        parts += [[s.anchor, s.title, s.text] for s in lesson_sections(lesson)]
        digest.update(json.dumps(parts, ensure_ascii=False).encode())
    return digest.hexdigest()[:10]


def client_index(course: Course) -> bytes:
    """The search index as JSON for the browser, so it can search as the server does.

    ``{"lessons": [[slug, title], ...], "sections": [[lesson, anchor, title, text], ...],
    "keys": {folded: key}}``: ``lesson`` is an index into ``lessons`` (the course's order),
    the sections are :func:`lesson_sections` in the order of the server's rows, and ``keys``
    holds every word of the titles and texts whose search key (:func:`term_key`) differs from
    its folded form. The browser indexes each word as :func:`index_terms` does from these,
    and stems only the words typed (a port of the same Snowball stemmer), so both sides
    find the same sections.
    """
    lessons: list[list[str]] = []
    sections: list[list[Any]] = []
    keys: dict[str, str] = {}
    for number, lesson in enumerate(course.lessons):
        lessons.append([lesson.slug, lesson.meta.title_text])
        for section in lesson_sections(lesson):
            sections.append([number, section.anchor, section.title, section.text])
            for text in (section.title, section.text):
                for word in words(text):
                    key, folded = term_key(word.text), fold(word.text)
                    if key != folded:
                        keys[folded] = key
    document = {"lessons": lessons, "sections": sections, "keys": dict(sorted(keys.items()))}
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
