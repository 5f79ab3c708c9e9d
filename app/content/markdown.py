"""Markdown rendering for lessons: CommonMark + tables + callouts + heading anchors.

Raw HTML written in a lesson is escaped (``html=False``) and markdown-it's link
validation drops ``javascript:``, ``vbscript:``, ``file:`` and ``data:`` URLs.
Fenced blocks whose language is one of :data:`SPECIAL_FENCES` are not rendered as
code: they leave a placeholder that the lesson loader replaces with live parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.container import container_plugin
from slugify import slugify as _slugify

CALLOUTS = {"tip": "Dica", "warning": "Cuidado", "danger": "Perigo"}
SPECIAL_FENCES = ("quiz", "decision-tree", "chart")
# Ids the page itself uses; a heading may not take them.
RESERVED_IDS = frozenset({"conteudo", "objetivos", "anuncio", "aviso-erro"})
_PLACEHOLDER = "<!--curso-part:{index}-->"
PLACEHOLDER_RE = re.compile(r"<!--curso-part:(\d+)-->")


def slugify(text: str) -> str:
    """Turn a heading or title into a URL slug.

    "Decodificação e Codificação — 1ª Aula" → ``decodificacao-e-codificacao-1a-aula``.
    Uses python-slugify (accents become their base letter).
    """
    return _slugify(text) or "secao"


@dataclass(frozen=True)
class Heading:
    """An entry of a lesson's table of contents.

    Attributes:
        level: 2 or 3 (``##`` or ``###``).
        anchor: the heading's ``id``.
        text: the heading's plain text.
    """

    level: int
    anchor: str
    text: str


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
    """

    html: str
    headings: tuple[Heading, ...]
    fences: tuple[SpecialFence, ...]
    problems: tuple[tuple[int, str], ...] = ()


def _render_callout(self, tokens: list[Token], idx: int, _options, env) -> str:
    token = tokens[idx]
    if token.nesting != 1:
        return "</aside>\n"
    kind, _, title = token.info.strip().partition(" ")
    title = title.strip() or CALLOUTS[kind]
    return (
        f'<aside class="callout callout-{kind}" role="note" aria-label="{escapeHtml(title)}">\n'
        f'<p class="callout-title">{escapeHtml(title)}</p>\n'
    )


def _render_fence(self, tokens: list[Token], idx: int, options, env) -> str:
    token = tokens[idx]
    kind = token.info.strip().split(" ", 1)[0]
    if kind in SPECIAL_FENCES:
        fences = env.setdefault("fences", [])
        line = token.map[0] + 1 if token.map else 0
        fences.append(SpecialFence(kind, token.content, line, token.level > 0))
        return _PLACEHOLDER.format(index=len(fences) - 1) + "\n"
    return self.fence(tokens, idx, options, env)


@cache
def markdown() -> MarkdownIt:
    """Return the shared, configured markdown-it parser (built once)."""
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    anchors_plugin(md, min_level=2, max_level=3, slug_func=slugify)
    for kind in CALLOUTS:
        container_plugin(md, kind, render=_render_callout)
    md.add_render_rule("fence", _render_fence)
    return md


def render_document(text: str) -> RenderedMarkdown:
    """Render a lesson body.

    Args:
        text: Markdown source (LF line endings).

    Returns:
        The HTML, the headings for the table of contents, and the special fences.
    """
    md = markdown()
    env: dict = {}
    tokens = md.parse(text, env)
    html = md.renderer.render(tokens, md.options, env)
    problems = tuple(_lint(tokens, text.split("\n")))
    return RenderedMarkdown(html, _headings(tokens), tuple(env.get("fences", [])), problems)


def _lint(tokens: list[Token], lines: list[str]):
    for i, token in enumerate(tokens):
        line = token.map[0] if token.map else 0
        if token.type == "fence":
            yield from _lint_fence(token, line, lines)
        elif token.type == "heading_open" and token.tag == "h1":
            yield line, "use `##` e `###` no corpo da lição; o título (`#`) vem do campo `title` do cabeçalho"
        elif token.type == "heading_open" and token.attrGet("id") in RESERVED_IDS:
            yield line, f"o título gera a âncora `#{token.attrGet('id')}`, que a página já usa; mude o texto do título"
        elif token.type == "inline" and token.content.startswith(":::") and tokens[i - 1].type == "paragraph_open":
            kinds = ", ".join(f"`{k}`" for k in CALLOUTS)
            yield line, f"caixa `:::` desconhecida ou malformada; os tipos são {kinds}, e ela fecha com uma linha `:::`"


def _lint_fence(token: Token, line: int, lines: list[str]):
    kind = token.info.strip().split(" ", 1)[0]
    normalized = kind.lower().replace("_", "-")
    if normalized in SPECIAL_FENCES and kind != normalized:
        yield line, f"bloco `{kind}`: escreva `{normalized}`, em minúsculas e com hífen"
    closing = lines[token.map[1] - 1].strip() if token.map and token.map[1] - 1 < len(lines) else ""
    if kind in SPECIAL_FENCES and (token.map[1] - token.map[0] < 2 or not closing.startswith(token.markup)):
        yield line, f"o bloco `{kind}` não foi fechado (falta a linha {token.markup} no fim)"


def render_block(text: str) -> str:
    """Render a Markdown fragment (a quiz prompt or explanation) to HTML."""
    return markdown().render(text)


def render_inline(text: str) -> str:
    """Render one line of Markdown without a wrapping ``<p>`` (an option's text)."""
    return markdown().renderInline(text)


def _headings(tokens: list[Token]) -> tuple[Heading, ...]:
    out = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag in ("h2", "h3"):
            inline = tokens[i + 1]
            text = "".join(
                child.content for child in inline.children or [] if child.type in ("text", "code_inline")
            )
            out.append(Heading(int(token.tag[1]), str(token.attrGet("id")), text))
    return tuple(out)
