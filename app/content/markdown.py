"""Markdown rendering for lessons: CommonMark + tables + callouts + heading anchors + code.

Raw HTML written in a lesson is escaped (``html=False``) and markdown-it's link
validation drops ``javascript:``, ``vbscript:``, ``file:`` and ``data:`` URLs.
Fenced blocks whose language is one the caller of :func:`render_document` names (the
lesson loader names the keys of :data:`app.content.blocks.BLOCKS`) are not rendered as
code: they leave a placeholder that the loader replaces with live parts; other fenced
blocks are highlighted on the server with Pygments.

Heading anchors, link fragments and every other id come from :func:`slugify`:
a link written with a heading's text (``[veja](<#Decode vs. prefill>)``) reaches
that heading, and a repeated heading gets ``-2``, ``-3``... (see :class:`Slugger`).
``:::`` boxes come from :mod:`app.content.boxes`. Labels derived from lesson text use
:func:`plain_text` of the rendered HTML.

When :func:`render_document` gets a glossary, the first use of each of its terms
in body text (not in headings, links or code) becomes the glossary's ``<dfn>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from html import escape
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Protocol
from urllib.parse import unquote

from slugify import slugify as _slugify

from app.content.boxes import PROBLEMS_KEY, box_rule
from app.content.page_ids import CHROME_IDS
from app.i18n import N_, gettext

# markdown-it and Pygments are imported by the functions that render: a page served from
# rendered lessons (the disk cache, app/content/lesson_cache.py) never loads them.
if TYPE_CHECKING:
    from collections.abc import Collection, Iterator

    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.rules_core import StateCore
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

    from app.content.glossary import Match, Term

# Callout kinds and their default titles (message ids; the text comes from the catalog).
CALLOUTS = {"tip": N_("Tip"), "warning": N_("Careful"), "danger": N_("Danger")}
# The accessible name of the "#" link beside each heading.
HEADING_LINK_LABEL = N_("Link to this section")
# Ids the page's chrome uses (app/content/page_ids.py): a heading never takes one (its id gets
# ``-2``), and the check reports the heading.
RESERVED_IDS = CHROME_IDS
_PLACEHOLDER = "<!--curso-part:{index}-->"
_SPECIAL_KEY = "special_fences"  # the env's entry naming the fences kept out of the HTML
PLACEHOLDER_RE = re.compile(r"<!--curso-part:(\d+)-->")


def escape_html(text: str) -> str:
    """Escape ``&``, ``<``, ``>`` and ``"`` (not ``'``), as markdown-it's ``escapeHtml`` does.

    Defined here so that code which only escapes text does not import markdown-it.

    Returns:
        The text, safe inside HTML content and double-quoted attributes.
    """
    return escape(text, quote=False).replace('"', "&quot;")


def slugify(text: str) -> str:
    """Turn a heading or title into a URL slug.

    "Decodificação e Codificação — 1ª Aula" → ``decodificacao-e-codificacao-1a-aula``.
    Uses python-slugify (accents become their base letter).
    """
    return _slugify(text) or "secao"


@dataclass
class Slugger:
    """Hands out unique, stable ids from :func:`slugify`.

    Every heading's own slug is reserved first (:meth:`reserve`), so a heading always gets
    the slug of its text when no earlier heading has the same one; a repeated heading gets
    ``-2``, ``-3``..., skipping every slug reserved by another heading. With "Etapa",
    "Etapa", "Etapa 2" the ids are ``etapa``, ``etapa-3``, ``etapa-2``: a link written
    with the text "Etapa 2" reaches the heading "Etapa 2".

    Attributes:
        taken: ids already handed out.
        reserved: slugs of headings not handed out yet.
    """

    taken: set[str] = field(default_factory=set)
    reserved: set[str] = field(default_factory=set)

    def reserve(self, texts: list[str]) -> None:
        """Reserve the slug of each text, before any id is handed out."""
        self.reserved.update(slugify(text) for text in texts)

    def unique(self, text: str) -> str:
        """Return the slug of ``text``, suffixed with ``-2``, ``-3``... when already taken."""
        base = slugify(text)
        slug, number = base, 1
        while slug in self.taken or (slug != base and slug in self.reserved):
            number += 1
            slug = f"{base}-{number}"
        self.taken.add(slug)
        return slug


def link_target(href: str) -> str:
    """Rewrite the fragment of an internal link through :func:`slugify`.

    ``#Decodificação e Codificação`` → ``#decodificacao-e-codificacao``; an id that is
    already a slug is left as it is. External links are returned unchanged.
    """
    if not href.startswith(("#", "/")) or "#" not in href:
        return href
    path, _, fragment = href.partition("#")
    return f"{path}#{slugify(unquote(fragment))}" if fragment else href


@dataclass(frozen=True)
class Heading:
    """An entry of a lesson's table of contents.

    Attributes:
        level: 2 or 3 (``##`` or ``###``).
        anchor: the heading's ``id``.
        text: the heading's plain text (from its rendered HTML).
        line: 0-based line of the heading in the rendered text.
    """

    level: int
    anchor: str
    text: str
    line: int = 0


@dataclass(frozen=True)
class SpecialFence:
    """A fenced block kept out of the rendered HTML.

    Attributes:
        kind: the fence language, e.g. ``quiz``.
        content: the raw block text.
        line: 0-based line of the first content line, relative to the rendered text.
        nested: True when the fence sits inside a list, quote or callout.
    """

    kind: str
    content: str
    line: int
    nested: bool


@dataclass(frozen=True)
class RenderedMarkdown:
    """Result of :func:`render_document`.

    Attributes:
        html: the HTML, with a placeholder comment where each special fence was.
        headings: ``##``/``###`` headings in document order.
        fences: the special fences, in order; placeholder ``i`` stands for ``fences[i]``.
        problems: ``(0-based line, message)`` for Markdown the course cannot serve as meant.
        terms: slugs of the glossary terms marked in the text, in order of first use.
        tokens: the parsed tokens, so later passes (links) need not parse the text again.
    """

    html: str
    headings: tuple[Heading, ...]
    fences: tuple[SpecialFence, ...]
    problems: tuple[tuple[int, str], ...] = ()
    terms: tuple[str, ...] = ()
    tokens: tuple[Token, ...] = ()


class TermFinder(Protocol):
    """What :func:`render_document` needs from a glossary (see ``app/content/glossary.py``)."""

    def find(self, text: str) -> list[Match]:
        """Uses of terms in ``text``: objects with ``start``, ``end`` and ``term.slug``."""

    def html(self, term: Term, written: str) -> str:
        """The HTML that replaces the first use of ``term``, written as ``written``."""


def _render_callout(
    self: RendererHTML, tokens: list[Token], idx: int, _options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    if token.nesting != 1:
        return "</aside>\n"
    kind, _, title = token.info.strip().partition(" ")
    title_html = (
        render_inline(title.strip()) if title.strip() else escape_html(gettext(CALLOUTS[kind]))
    )
    return (
        f'<aside class="callout callout-{kind}" role="note" '
        f'aria-label="{escape_html(plain_text(title_html))}">\n'
        f'<p class="callout-title">{title_html}</p>\n'
    )


def _render_fence(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    kind = token.info.strip().split(" ", 1)[0]
    if kind in env.get(_SPECIAL_KEY, ()):
        fences = env.setdefault("fences", [])
        line = token.map[0] + 1 if token.map else 0
        fences.append(SpecialFence(kind, token.content, line, token.level > 0))
        return _PLACEHOLDER.format(index=len(fences) - 1) + "\n"
    return highlight_code(token.content, kind)


def highlight_code(code: str, language: str) -> str:
    """Highlight ``code`` with Pygments into ``<pre class="highlight">`` (CSS classes, no
    inline styles).

    An unknown or missing language is shown as plain text. The block is focusable so a
    keyboard can scroll it; ``static/js/copy-code.js`` adds the copy button.
    """
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language) if language else TextLexer()
    except ClassNotFound:
        lexer = TextLexer()
    body = highlight(code, lexer, HtmlFormatter(nowrap=True))
    label = f' data-lang="{escape_html(language)}"' if language else ""
    return (
        f'<div class="code-block"{label}><pre class="highlight" '
        f'tabindex="0"><code>{body}</code></pre></div>\n'
    )


def _heading_text(inline: Token) -> str:
    """A heading's plain text, from its rendered inline HTML (``**x**`` → ``x``)."""
    return plain_text(markdown().renderer.render(inline.children or [], markdown().options, {}))


def _anchor_headings(state: StateCore) -> None:
    """Give every ``##`` and ``###`` heading of a lesson body a unique, stable id from its text.

    Only :func:`render_document` asks for anchors (``env["anchors"]``): a quiz prompt or
    explanation rendered on its own must not hand out ids the page may already use.
    """
    if not state.env.get("anchors"):
        return
    slugger = Slugger(taken=set(CHROME_IDS))  # the page's own ids: "Busca topo" gets -2
    headings = [
        (token, state.tokens[i + 1])
        for i, token in enumerate(state.tokens)
        if token.type == "heading_open" and token.tag in ("h2", "h3")
    ]
    texts = [_heading_text(inline) for _, inline in headings]
    slugger.reserve(texts)
    for (token, _), text in zip(headings, texts, strict=True):
        token.attrSet("id", slugger.unique(text))
        token.meta["text"] = text


def _render_heading_open(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Open a ``##``/``###`` heading inside a ``div.heading-anchor`` that also holds its link."""
    token = tokens[idx]
    html = self.renderToken(tokens, idx, options, env)
    return f'<div class="heading-anchor">{html}' if token.attrGet("id") else html


def _render_heading_close(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Close the heading, then add its "#" link (beside the heading, not in its accessible name).

    The link's name is "Link para esta seção" and its description the heading itself; the
    "#" comes from CSS, so neither the search index nor a screen reader's heading list sees it.
    """
    html = self.renderToken(tokens, idx, options, env)
    anchor = tokens[idx - 2].attrGet("id") if idx >= 2 else None
    if not anchor:
        return html
    label = escape_html(gettext(HEADING_LINK_LABEL))
    anchor = escape_html(str(anchor))
    return (
        f'{html}<a class="heading-link" href="#{anchor}" aria-label="{label}"'
        f' aria-describedby="{anchor}"></a></div>\n'
    )


def _resolve_links(state: StateCore) -> None:
    """Send internal link fragments through :func:`slugify`, so heading text reaches the heading."""
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "link_open":
                written = str(child.attrGet("href") or "")
                child.meta["written"] = written
                child.attrSet("href", link_target(written))


def _mark_terms(state: StateCore) -> None:
    """Turn the first use of each glossary term in body text into the glossary's ``<dfn>``."""
    glossary = state.env.get("glossary")
    if glossary is None:
        return
    used: list[str] = state.env.setdefault("terms", [])
    in_heading = False
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            in_heading = token.type == "heading_open"
        elif token.type == "inline" and token.children and not in_heading:
            token.children = _mark_children(token.children, glossary, used)


def _mark_children(children: list[Token], glossary: TermFinder, used: list[str]) -> list[Token]:
    from markdown_it.token import Token

    out: list[Token] = []
    in_link = 0
    for child in children:
        in_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
        if child.type != "text" or in_link:
            out.append(child)
            continue
        cursor = 0
        for match in glossary.find(child.content):
            if match.term.slug in used:
                continue
            used.append(match.term.slug)
            written = child.content[match.start : match.end]
            out.append(Token("text", "", 0, content=child.content[cursor : match.start]))
            out.append(
                Token(
                    "glossary_term",
                    "",
                    0,
                    content=written,
                    meta={"html": glossary.html(match.term, written)},
                )
            )
            cursor = match.end
        out.append(Token("text", "", 0, content=child.content[cursor:]) if cursor else child)
    return out


@cache
def markdown() -> MarkdownIt:
    """Return the shared, configured markdown-it parser (built once)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    md.core.ruler.push("curso_anchors", _anchor_headings)
    md.core.ruler.push("curso_links", _resolve_links)
    md.core.ruler.push("curso_glossary", _mark_terms)
    md.add_render_rule(
        "glossary_term", lambda self, tokens, idx, options, env: tokens[idx].meta["html"]
    )
    md.block.ruler.before(
        "fence",
        "curso_box",
        box_rule(CALLOUTS),
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.add_render_rule("callout_open", _render_callout)
    md.add_render_rule("callout_close", _render_callout)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("heading_open", _render_heading_open)
    md.add_render_rule("heading_close", _render_heading_close)
    md.add_render_rule("table_open", _render_table_open)
    md.add_render_rule("table_close", _render_table_close)
    return md


def _render_table_open(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    # A wide table scrolls sideways inside its own box on a phone. The box is a focusable,
    # labelled region so a keyboard user can scroll it too (axe: scrollable-region-focusable);
    # its name comes from the column headers, numbered when two tables share them
    # (axe: landmark-unique).
    headers: list[str] = []
    for token in tokens[idx + 1 :]:
        if token.type == "thead_close":
            break
        if token.type == "inline":
            headers.append(plain_text(self.renderInline(token.children or [], options, env)))
    label = gettext("Table: %(columns)s") % {"columns": ", ".join(h for h in headers if h)}
    seen = env.setdefault("curso_table_labels", {})
    seen[label] = seen.get(label, 0) + 1
    if seen[label] > 1:
        label = f"{label} ({seen[label]})"
    opening = (
        f'<div class="table-scroll" role="region" tabindex="0" aria-label="{escape_html(label)}">'
    )
    return opening + self.renderToken(tokens, idx, options, env)


def _render_table_close(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


def render_document(
    text: str, glossary: TermFinder | None = None, special: Collection[str] = ()
) -> RenderedMarkdown:
    """Render a lesson body.

    Args:
        text: Markdown source (LF line endings, NFC).
        glossary: terms to mark on their first use, if any.
        special: the languages of the fences kept out of the HTML, each replaced by a
            placeholder; the lint checks that each is closed and spelled in lowercase.

    Returns:
        The HTML, the headings for the table of contents, the special fences and the terms used.
    """
    md = markdown()
    env: EnvType = {"anchors": True, _SPECIAL_KEY: special}
    if glossary is not None:
        env["glossary"] = glossary
    tokens = md.parse(text, env)
    html = md.renderer.render(tokens, md.options, env)
    lint = _lint(tokens, text.split("\n"), special)
    problems = tuple(sorted([*lint, *env.get(PROBLEMS_KEY, [])]))
    fences = tuple(env.get("fences", []))
    return RenderedMarkdown(
        html, _headings(tokens), fences, problems, tuple(env.get("terms", [])), tuple(tokens)
    )


def _base_anchor(token: Token) -> str | None:
    """The id a ``heading_open`` token would take from its text alone (before any ``-2``)."""
    if "text" in token.meta:
        return slugify(token.meta["text"])
    anchor = token.attrGet("id")
    return None if anchor is None else str(anchor)


def _lint(
    tokens: list[Token], lines: list[str], special: Collection[str]
) -> Iterator[tuple[int, str]]:
    # Links and #anchors are checked course-wide, as warnings, by app/content/links.py.
    for i, token in enumerate(tokens):
        line = token.map[0] if token.map else 0
        if token.type == "fence":
            yield from _lint_fence(token, line, lines, special)
        elif token.type == "heading_open" and token.tag == "h1":
            yield (
                line,
                gettext(
                    "use `##` and `###` in the lesson body; the title (`#`) comes from the "
                    "header's `title` field"
                ),
            )
        elif token.type == "heading_open" and _base_anchor(token) in RESERVED_IDS:
            yield (
                line,
                gettext(
                    "the heading makes the anchor `#%(id)s`, which the page already uses; "
                    "change the heading's text"
                )
                % {"id": _base_anchor(token)},
            )
        elif (
            token.type == "inline"
            and tokens[i - 1].type == "paragraph_open"
            and any(row.lstrip().startswith(":::") for row in token.content.split("\n"))
        ):
            # a `:::` line left as text: an unknown kind, or a closing line with no box open
            offset = next(
                n
                for n, row in enumerate(token.content.split("\n"))
                if row.lstrip().startswith(":::")
            )
            kinds = ", ".join(f"`{k}`" for k in CALLOUTS)
            yield (
                line + offset,
                gettext(
                    "unknown or malformed `:::` box; the kinds are %(kinds)s, and it closes with "
                    "a `:::` line"
                )
                % {"kinds": kinds},
            )


def _lint_fence(
    token: Token, line: int, lines: list[str], special: Collection[str]
) -> Iterator[tuple[int, str]]:
    kind = token.info.strip().split(" ", 1)[0]
    normalized = kind.lower().replace("_", "-")
    if normalized in special and kind != normalized:
        yield (
            line,
            gettext("`%(kind)s` block: write `%(normalized)s`, in lowercase and with a hyphen")
            % {"kind": kind, "normalized": normalized},
        )
    closing = lines[token.map[1] - 1].strip() if token.map and token.map[1] - 1 < len(lines) else ""
    if (
        kind in special
        and token.map
        and (token.map[1] - token.map[0] < 2 or not closing.startswith(token.markup))
    ):
        yield (
            line,
            gettext(
                "the `%(kind)s` block was not closed (the %(fence)s line at its end is missing)"
            )
            % {"kind": kind, "fence": token.markup},
        )


def render_block(text: str) -> str:
    """Render a Markdown fragment (a quiz prompt or explanation) to HTML."""
    html: str = markdown().render(text)
    return html


def render_inline(text: str) -> str:
    """Render one line of Markdown without a wrapping ``<p>`` (an option's text)."""
    html: str = markdown().renderInline(text)
    return html


def _headings(tokens: list[Token]) -> tuple[Heading, ...]:
    return tuple(
        Heading(
            int(token.tag[1]), str(token.attrGet("id")), token.meta["text"], (token.map or [0])[0]
        )
        for token in tokens
        if token.type == "heading_open" and token.tag in ("h2", "h3") and "text" in token.meta
    )


class _TextCollector(HTMLParser):
    """Collects the text of an HTML fragment (entities decoded), for :func:`plain_text`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)


@lru_cache(maxsize=1 << 12)  # the item checks and labels ask for the same fragments again
def plain_text(html: str) -> str:
    """The text a reader hears from rendered HTML: tags dropped, entities decoded, spaces joined.

    Labels, titles, ``aria-label`` values and live-region announcements derived from lesson
    text are taken from the text's rendered HTML through this function (never from the
    Markdown source): ``A latência &lt; 100 ms e a vazão &gt; 50`` → ``A latência < 100 ms
    e a vazão > 50``; ``<strong>mais de uma</strong>`` → ``mais de uma``. Uses the standard
    library's :class:`html.parser.HTMLParser`.

    Args:
        html: HTML produced by :func:`render_inline` or :func:`render_block`.

    Returns:
        The text, with runs of whitespace collapsed to one space and no space at either end.
    """
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    return " ".join("".join(collector.chunks).split())


def inline_text(text: str) -> str:
    """The plain text of a one-line Markdown text (``plain_text(render_inline(text))``)."""
    return plain_text(render_inline(text))
