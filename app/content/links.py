"""Links and images in lesson bodies: where each one is, and whether it leads anywhere.

:func:`extract_links` runs once per file version and records every link and image
of the body with its line and column. :func:`check_links` runs over the whole
course, because a link may point at another lesson or at one of its headings.
Its findings are warnings: the lesson is still served, and ``curso check --strict``
makes them fatal.

Rules, all relative to the lesson's address (``/licoes/<slug>``):

- ``#anchor`` must be an id on the page: a heading, a question (``pergunta-<id>``),
  a tree (``arvore-<id>``), a chart (``grafico-...``) or the page's own ids;
- ``/licoes/<slug>`` must be a lesson, and ``/licoes/<slug>#anchor`` one of its ids;
- ``/arvores/<id>`` must be a decision tree of the course;
- a link to a lesson's ``.md`` file works on GitHub but not on the site;
- an image must be a file under ``imagens/`` in the lessons folder (served at
  ``/licoes/imagens/``, only the types of :data:`IMAGE_TYPES`) or under ``static/``;
  images from other sites are blocked by the Content-Security-Policy.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin, urlsplit

from app.content import paths
from app.content.errors import ContentError
from app.content.markdown import Heading, markdown, slugify
from app.content.page_ids import CHROME_IDS, question_anchor, tree_anchor
from app.i18n import gettext

if TYPE_CHECKING:
    from markdown_it.token import Token

    from app.content.lessons import Lesson

IMAGES_DIR = "imagens"
IMAGES_URL = paths.LESSONS_PREFIX + "imagens/"
# The only files served from the lessons' images folder (an HTML or script file there would
# run as the course itself): suffix -> media type.
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".svg": "image/svg+xml",
}
PAGE_IDS = CHROME_IDS
# The first segment of a lesson's and a tree's path (app/content/paths.py).
_LESSONS = paths.LESSONS_PREFIX.strip("/")
_TREES = paths.TREES_PATH.strip("/")
_ID_RE = re.compile(r'\bid="([^"]+)"')
_EXTERNAL = ("http:", "https:", "mailto:")


@dataclass(frozen=True)
class Link:
    """A link or an image in a lesson body.

    Attributes:
        href: the address as markdown-it normalised it (percent-encoded).
        line: 1-based line in the lesson file.
        col: 1-based column where the address starts on that line.
        image: True for ``![alt](src)``.
        written: the address as the author wrote it, before a heading's text in its
            fragment was turned into the heading's id (same as ``href`` for images).
    """

    href: str
    line: int
    col: int
    image: bool = False
    written: str = ""


def extract_links(
    body: str, body_line: int, tokens: Sequence[Token] | None = None
) -> tuple[Link, ...]:
    """Find every link and image of a lesson body.

    Args:
        body: the Markdown after the front matter (LF line endings).
        body_line: 1-based file line of the body's first line.
        tokens: the body already parsed by :func:`app.content.markdown.markdown` (parsed here
            if not).

    Returns:
        The links in document order; the special fences (quiz, trees, charts) hold none.
    """
    lines = body.split("\n")
    found = []
    for token in markdown().parse(body, {}) if tokens is None else tokens:
        if token.type != "inline" or not token.map:
            continue
        cursor = (token.map[0], 0)
        for child in token.children or ():
            if child.type not in ("link_open", "image"):
                continue
            href = str(child.attrGet("src" if child.type == "image" else "href") or "")
            shown = str(child.meta.get("written", href)) if child.meta else href
            cursor = _locate(lines, shown, cursor, token.map[1])
            written = str(child.meta.get("written", href)) if child.meta else href
            found.append(
                Link(href, body_line + cursor[0], cursor[1] + 1, child.type == "image", written)
            )
    return tuple(found)


def _locate(lines: list[str], href: str, start: tuple[int, int], end: int) -> tuple[int, int]:
    """Where ``href`` is written, at or after ``start`` and before line ``end`` (0-based)."""
    candidates = [c for c in dict.fromkeys((href, unquote(href))) if c]
    line, col = start
    for number in range(line, min(end, len(lines))):
        text = lines[number]
        hits = [text.find(c, col if number == line else 0) for c in candidates]
        hits = [hit for hit in hits if hit >= 0]
        if hits:
            return number, min(hits)
    return start


def page_ids(lesson: Lesson) -> frozenset[str]:
    """Every id a link can reach on the lesson's page: headings, widgets and the page's own."""
    ids = set(PAGE_IDS)
    for part in lesson.parts:
        if isinstance(part, str):
            ids.update(_ID_RE.findall(part))
    ids.update(question_anchor(qid) for qid in lesson.questions)
    ids.update(tree_anchor(tid) for tid in lesson.trees)
    return frozenset(ids)


def check_links(
    lessons: Sequence[Lesson],
    folder: Path,
    tree_ids: Collection[str],
    static_dir: Path | None = None,
) -> list[ContentError]:
    """Check every link and image of ``lessons`` against the course.

    Args:
        lessons: the lessons served.
        folder: the lessons folder (images live in its ``imagens/``).
        static_dir: the app's ``static/`` folder, for ``/static/...`` images (``None``: unchecked).

    Returns:
        One warning per link or image that leads nowhere.
    """
    anchors = {lesson.slug: page_ids(lesson) for lesson in lessons}
    files = {lesson.path.name: lesson.slug for lesson in lessons}
    headings = {lesson.slug: lesson.headings for lesson in lessons}
    problems = []
    for lesson in lessons:
        for link in lesson.links:
            message = (
                _image_problem(link.href, folder, static_dir)
                if link.image
                else _link_problem(link.href, lesson.slug, anchors, files, tree_ids, folder)
                or _ambiguous(link, lesson.slug, headings)
            )
            if message:
                problems.append(ContentError(lesson.path, link.line, message, link.col, "warning"))
    return problems


def _ambiguous(link: Link, slug: str, headings: dict[str, tuple[Heading, ...]]) -> str | None:
    """A warning when a link by a heading's text matches several headings of its lesson.

    The link leads to the first of them (the one whose id is the text's slug); a link
    written with another one's id (``#etapa-3``) matches no heading's text and is not ambiguous.
    """
    written = link.written or link.href
    if written.startswith(_EXTERNAL) or written.startswith("//"):
        return None
    target = urlsplit(urljoin(paths.lesson(slug), written))
    parts = [unquote(p) for p in target.path.split("/") if p]
    fragment = unquote(target.fragment)
    if not fragment or parts[:1] != [_LESSONS] or len(parts) != 2 or parts[1] not in headings:
        return None
    base = slugify(fragment)
    same = [h for h in headings[parts[1]] if slugify(h.text) == base]
    if len(same) < 2:
        return None
    ids = ", ".join(f"`#{h.anchor}`" for h in same)
    return gettext(
        "the link `%(link)s` matches %(num)s headings with the same text (%(ids)s) and leads to "
        "the first; link to the id of the one you mean, or give the headings different texts"
    ) % {"link": unquote(written), "num": len(same), "ids": ids}


def _link_problem(
    href: str,
    slug: str,
    anchors: dict[str, frozenset[str]],
    files: dict[str, str],
    tree_ids: Collection[str],
    folder: Path,
) -> str | None:
    if not href or href.startswith(_EXTERNAL) or href.startswith("//"):
        return None
    written = unquote(href)
    target = urlsplit(urljoin(paths.lesson(slug), href))
    fragment = unquote(target.fragment)
    if target.path.endswith(".md"):
        name = PurePosixPath(unquote(target.path)).name
        if name in files:
            where = paths.lesson(files[name], fragment)
            return gettext(
                "the link `%(link)s` points to the lesson's file; on the site, use `%(where)s`"
            ) % {"link": written, "where": where}
        missing = gettext("the link `%(link)s` points to a file that does not exist in %(folder)s/")
        return missing % {"link": written, "folder": folder.name}
    parts = [unquote(p) for p in target.path.split("/") if p]
    if parts[:1] == [_LESSONS] and len(parts) == 2:
        if parts[1] not in anchors:
            nowhere = gettext("the link `%(link)s` leads to no lesson of the course")
            return nowhere % {"link": written}
        if fragment and fragment not in anchors[parts[1]]:
            if parts[1] == slug:
                return gettext("the link `%(link)s` leads to no heading of this lesson") % {
                    "link": written
                }
            return gettext("the link `%(link)s` leads to no heading of the lesson `%(lesson)s`") % {
                "link": written,
                "lesson": parts[1],
            }
    elif parts[:1] == [_TREES] and len(parts) == 2 and parts[1] not in (*tree_ids, "comparar"):
        return gettext("the link `%(link)s` leads to no decision tree of the course") % {
            "link": written
        }
    return None


def _image_problem(src: str, folder: Path, static_dir: Path | None) -> str | None:
    written = unquote(src)
    if src.startswith(("http:", "https:", "//")):
        return gettext(
            "the image `%(image)s` comes from another site, and the course's security policy "
            "blocks outside images; copy it to %(folder)s/"
        ) % {"image": written, "folder": f"{folder.name}/{IMAGES_DIR}"}
    if src.startswith("data:"):
        return None
    path = unquote(urlsplit(urljoin(paths.lesson("licao"), src)).path)
    if path.startswith(IMAGES_URL):
        if PurePosixPath(path).suffix.lower() not in IMAGE_TYPES:
            return gettext(
                "the image `%(image)s` is not PNG, JPEG, GIF, WebP, AVIF or SVG, the only "
                "types the site serves from %(folder)s/"
            ) % {"image": written, "folder": f"{folder.name}/{IMAGES_DIR}"}
        return _missing(
            written,
            folder / IMAGES_DIR,
            path.removeprefix(IMAGES_URL),
            folder.name + "/" + IMAGES_DIR,
        )
    if path.startswith("/static/") and static_dir is not None:
        return _missing(written, static_dir, path.removeprefix("/static/"), "static")
    if path.startswith("/static/"):
        return None
    return gettext(
        "the image `%(image)s` is outside %(folder)s/, the images folder published with the "
        "lessons; move it there and write `%(example)s`"
    ) % {
        "image": written,
        "folder": f"{folder.name}/{IMAGES_DIR}",
        "example": IMAGES_DIR + "/" + gettext("name") + ".png",
    }


def _missing(written: str, root: Path, relative: str, shown: str) -> str | None:
    target = (root / relative).resolve()
    if not target.is_relative_to(root.resolve()):
        return gettext("the image `%(image)s` leaves the folder %(folder)s/") % {
            "image": written,
            "folder": shown,
        }
    if not target.is_file():
        return gettext("the image `%(image)s` does not exist (I looked in %(where)s)") % {
            "image": written,
            "where": f"{shown}/{relative}",
        }
    return None
