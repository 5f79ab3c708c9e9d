"""Lesson pages for visitors, rendered and compressed once, with each visitor's CSRF token
spliced in.

A visitor who has stored nothing (no learner id, not signed in) sees the same lesson page as
every other visitor except for one thing: the CSRF token that their forms and htmx headers
carry (asgi-csrf's double-submit token, one per browser). So the page is rendered once per
course version, lesson and theme with a placeholder where the token goes, split there, and
each part compressed once. A request joins the parts around its own token:

- ``deflate`` (RFC 1950, the zlib format): each part is an independent run of deflate blocks
  ending on a byte boundary (``Z_SYNC_FLUSH``); the token goes between them as a *stored*
  block (RFC 1951 §3.2.4, five bytes of header); the Adler-32 of the whole page is combined
  from the parts' checksums in constant time (zlib's ``adler32_combine``). The work per
  request is proportional to the token, not to the page.
- ``gzip`` (RFC 1952), for clients that do not take ``deflate``: the same blocks; its CRC-32 is
  computed over the page (zlib's C code, tens of microseconds for a lesson).
- no encoding: the parts joined around the token.

The same splice fills a second kind of hole: the quiz forms' idempotency keys
(:data:`FORM_KEY_PLACEHOLDER`), with a random prefix drawn for each response. So every page
view's forms carry keys of their own, as a page rendered for the request would: a visitor's
first answer makes their learner with that key (:func:`app.learning.store.claim_learner`), and
no two page views share one.

The ``ETag`` is the page version plus a digest of the token, so a browser revalidating with the
same CSRF cookie gets ``304 Not Modified`` and keeps a page whose token still matches.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import struct
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from app.platform.sessions import SESSION_COOKIE
from app.web.templating import FORM_KEY_FIELD

# Where the token goes while the page is rendered once: URL-safe characters (like a real
# token), so no template filter escapes or changes it, and never found in lesson text.
PLACEHOLDER = "csrf-cache-placeholder-9b1e6c0f2d7a4e58"
# Where a page view's own prefix of the forms' idempotency keys goes (see :func:`with_key_holes`).
FORM_KEY_PLACEHOLDER = "formkey-cache-placeholder-4c7d21a9e3b05f68"
_HOLE = re.compile(
    b"(" + re.escape(PLACEHOLDER.encode()) + b"|" + re.escape(FORM_KEY_PLACEHOLDER.encode()) + b")"
)
ADLER_BASE = 65521
ZLIB_HEADER = b"\x78\xda"  # deflate, 32 KiB window, best compression (RFC 1950 §2.2)
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # deflate, no name, no time, unknown OS
COMPRESS_LEVEL = 9  # once per page version: the smallest bytes are worth the one-off time


def adler32_combine(adler1: int, adler2: int, len2: int) -> int:
    """The Adler-32 of ``A + B`` from the Adler-32 of ``A``, of ``B`` and ``len(B)``.

    A port of zlib's ``adler32_combine`` (adler32.c), which Python's ``zlib`` does not expose.

    Args:
        adler1: the checksum of the first bytes.
        adler2: the checksum of the second bytes.
        len2: how many second bytes there are.

    Returns:
        The checksum of both, as ``zlib.adler32`` would compute it.
    """
    rem = len2 % ADLER_BASE
    sum1 = adler1 & 0xFFFF
    sum2 = (rem * sum1) % ADLER_BASE
    sum1 += (adler2 & 0xFFFF) + ADLER_BASE - 1
    sum2 += ((adler1 >> 16) & 0xFFFF) + ((adler2 >> 16) & 0xFFFF) + ADLER_BASE - rem
    if sum1 >= ADLER_BASE:
        sum1 -= ADLER_BASE
    if sum1 >= ADLER_BASE:
        sum1 -= ADLER_BASE
    if sum2 >= ADLER_BASE << 1:
        sum2 -= ADLER_BASE << 1
    if sum2 >= ADLER_BASE:
        sum2 -= ADLER_BASE
    return sum1 | (sum2 << 16)


def stored_block(data: bytes) -> bytes:
    """``data`` as non-final stored deflate blocks (each at most 65,535 bytes), byte-aligned."""
    out = []
    for start in range(0, len(data), 0xFFFF):
        chunk = data[start : start + 0xFFFF]
        out.append(b"\x00" + struct.pack("<HH", len(chunk), len(chunk) ^ 0xFFFF) + chunk)
    return b"".join(out)


WINDOW = 32 * 1024  # how far back a deflate match may reach (RFC 1951 §3.2.5)


def deflated_parts(parts: list[bytes], fill_lengths: list[int], shared: bool = True) -> list[bytes]:
    """Each part as a run of raw deflate blocks ending on a byte boundary, the last one final.

    A part may refer back to everything before it in the page, as one deflate stream would,
    though what goes in the holes between the parts differs per response: each part is
    compressed with the preceding page as its preset dictionary (``zdict``), the holes in it
    filled with NUL bytes of the fill's length. The inflater's window holds the real fill at
    those places, but a match never reaches into them: a match is a run of equal bytes, and
    the page holds no NUL (checked by :class:`SplicedPage`). Compressed apart, a lesson page's
    40 parts were half as large again as the page in one stream.

    Args:
        parts: the page split at its holes.
        fill_lengths: the length of what fills each hole (one fewer than the parts).
        shared: refer back across holes; False compresses each part on its own (a page that
            holds NUL bytes).
    """
    out = []
    history = b""
    last = len(parts) - 1
    for i, part in enumerate(parts):
        if history and shared:
            compressor = zlib.compressobj(
                COMPRESS_LEVEL, zlib.DEFLATED, -15, zdict=history[-WINDOW:]
            )
        else:
            compressor = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15)
        out.append(
            compressor.compress(part)
            + compressor.flush(zlib.Z_FINISH if i == last else zlib.Z_SYNC_FLUSH)
        )
        if i < last:
            history = (history + part + b"\0" * fill_lengths[i])[-WINDOW:]
    return out


def with_key_holes(html: bytes) -> bytes:
    """``html`` with each quiz form's key made of :data:`FORM_KEY_PLACEHOLDER` and the form's
    position in the page (filled per response by :class:`SplicedPage`)."""
    count = iter(range(1_000_000))
    return FORM_KEY_FIELD.sub(
        lambda m: m.group(1) + FORM_KEY_PLACEHOLDER.encode() + b'-%d"' % next(count), html
    )


def new_form_key_prefix() -> bytes:
    """A random prefix for one response's form keys (22 URL-safe characters)."""
    return secrets.token_urlsafe(16).encode()


class SplicedPage:
    """One rendered page, split where the token and the form-key prefix go, each part
    compressed once.

    Args:
        html: the page as rendered with :data:`PLACEHOLDER` for the token and
            :data:`FORM_KEY_PLACEHOLDER` for the form-key prefix (UTF-8 bytes).
    """

    def __init__(self, html: bytes) -> None:
        pieces = _HOLE.split(html)
        self.parts = pieces[0::2]
        self.is_key = [hole == FORM_KEY_PLACEHOLDER.encode() for hole in pieces[1::2]]
        self.adlers = [zlib.adler32(part) for part in self.parts]
        self.version = hashlib.blake2b(html, digest_size=12).hexdigest()
        # The parts compressed for fills of given lengths (token, key): every token asgi-csrf
        # signs has one length, and every key prefix another, so one entry in practice.
        self._deflated: dict[tuple[int, int], list[bytes]] = {}
        self._shared_window = b"\0" not in html

    def deflated(self, token: bytes, key: bytes) -> list[bytes]:
        """The compressed parts for fills of these lengths (built on first use, then kept)."""
        lengths = (len(token), len(key))
        parts = self._deflated.get(lengths)
        if parts is None:
            fills = [len(fill) for fill in self._fills(token, key)]
            parts = deflated_parts(self.parts, fills, shared=self._shared_window)
            if len(self._deflated) < 4:  # odd lengths (a forged cookie) are not kept
                self._deflated[lengths] = parts
        return parts

    def _fills(self, token: bytes, key: bytes) -> list[bytes]:
        return [key if is_key else token for is_key in self.is_key]

    def identity(self, token: bytes, key: bytes = b"") -> bytes:
        """The page with ``token`` (and the form-key prefix ``key``) in place, uncompressed."""
        out = [self.parts[0]]
        for fill, part in zip(self._fills(token, key), self.parts[1:], strict=True):
            out += [fill, part]
        return b"".join(out)

    def deflate(self, token: bytes, key: bytes = b"") -> bytes:
        """The page with ``token`` (and ``key``) in place, in the zlib format
        (``Content-Encoding: deflate``).
        """
        blocks = {token: stored_block(token), key: stored_block(key)}
        adlers = {token: zlib.adler32(token), key: zlib.adler32(key)}
        deflated_parts = self.deflated(token, key)
        out = [ZLIB_HEADER, deflated_parts[0]]
        adler = self.adlers[0]
        for fill, deflated, part, part_adler in zip(
            self._fills(token, key),
            deflated_parts[1:],
            self.parts[1:],
            self.adlers[1:],
            strict=True,
        ):
            out += [blocks[fill], deflated]
            adler = adler32_combine(adler, adlers[fill], len(fill))
            adler = adler32_combine(adler, part_adler, len(part))
        out.append(struct.pack(">I", adler))
        return b"".join(out)

    def gzip(self, token: bytes, key: bytes = b"") -> bytes:
        """The page with ``token`` (and ``key``) in place, in the gzip format
        (``Content-Encoding: gzip``).
        """
        blocks = {token: stored_block(token), key: stored_block(key)}
        deflated_parts = self.deflated(token, key)
        out = [GZIP_HEADER, deflated_parts[0]]
        crc = zlib.crc32(self.parts[0])
        size = len(self.parts[0])
        for fill, deflated, part in zip(
            self._fills(token, key), deflated_parts[1:], self.parts[1:], strict=True
        ):
            out += [blocks[fill], deflated]
            crc = zlib.crc32(part, zlib.crc32(fill, crc))
            size += len(fill) + len(part)
        out.append(struct.pack("<II", crc, size & 0xFFFFFFFF))
        return b"".join(out)


@dataclass(frozen=True)
class Encoding:
    """A response encoding: its ``Content-Encoding`` value (``""`` for none) and its builder."""

    name: str
    build: Callable[[SplicedPage, bytes, bytes], bytes]


ENCODINGS = {
    "deflate": Encoding("deflate", SplicedPage.deflate),
    "gzip": Encoding("gzip", SplicedPage.gzip),
    "": Encoding("", SplicedPage.identity),
}


def chosen_encoding(accept_encoding: str) -> Encoding:
    """``deflate`` when the client takes it, else ``gzip``, else none (``q=0`` refuses one)."""
    accepted = set()
    for item in accept_encoding.lower().split(","):
        name, _, params = item.strip().partition(";")
        if params.replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000"):
            continue
        accepted.add(name.strip())
    for name in ("deflate", "gzip"):
        if name in accepted:
            return ENCODINGS[name]
    return ENCODINGS[""]


class PageCache:
    """Visitor pages by (lesson, theme) for one course version; emptied when the course changes.

    Rendering happens at most once per key even when many requests miss at once (a lock per
    cache; a class of 200 opening the same lesson renders it once).
    """

    def __init__(self) -> None:
        self.course: object | None = None
        self.pages: dict[tuple[str, str], SplicedPage] = {}
        self.lock = threading.Lock()

    def peek(self, course: object, key: tuple[str, str]) -> SplicedPage | None:
        """The cached page for ``key`` built from ``course``, or ``None``."""
        return self.pages.get(key) if self.course is course else None

    def get(self, course: object, key: tuple[str, str], render: Callable[[], bytes]) -> SplicedPage:
        """The cached page for ``key``, rendering it with ``render()`` on a miss.

        Args:
            course: the course the page was built from (identity: a reload makes a new one).
            key: the lesson slug and the theme.
            render: builds the page's HTML with :data:`PLACEHOLDER` as the token.

        Returns:
            The page.
        """
        page = self.pages.get(key) if self.course is course else None
        if page is not None:
            return page
        with self.lock:
            if self.course is not course:
                self.pages, self.course = {}, course
            page = self.pages.get(key)
            if page is None:
                page = self.pages[key] = SplicedPage(render())
        return page


class LearnerPages:
    """Learners' lesson pages by (course version, lesson, theme, learner, state version).

    A learner's page changes when they answer, walk a tree or move their place, and every
    such change moves their :attr:`~app.learning.state.LearnerState.version`; so a page is
    rendered again only then. At most :attr:`size` pages are kept (least recently used go;
    ``cachetools``), so memory stays bounded however many learners come.
    """

    size = 256

    def __init__(self) -> None:
        from cachetools import LRUCache

        self.pages: LRUCache = LRUCache(maxsize=self.size)
        self.lock = threading.Lock()

    def get(self, course: object, key: tuple, render: Callable[[], bytes]) -> SplicedPage:
        """The cached page for ``key`` (with ``course``'s identity), rendering it on a miss."""
        full = (id(course), *key)
        with self.lock:
            entry = self.pages.get(full)
        if entry is not None and entry[0] is course:
            return entry[1]
        page = SplicedPage(render())
        with self.lock:
            self.pages[full] = (course, page)
        return page


def respond(request: Request, page: SplicedPage, headers: dict[str, str]) -> Response:
    """The visitor's response: their token spliced in, or ``304`` when their copy is current.

    Args:
        request: the request; its ``csrftoken`` (asgi-csrf) is the visitor's token, and taking
            it makes asgi-csrf set the cookie for a visitor who has none.
        page: the cached page.
        headers: ``Vary``, ``Cache-Control`` and the like, for both answers.
    """
    token = request.scope["csrftoken"]().encode()
    etag = f'W/"{page.version}-{hashlib.blake2b(token, digest_size=6).hexdigest()}"'
    headers = {**headers, "ETag": etag}
    if etag in {tag.strip() for tag in request.headers.get("if-none-match", "").split(",")}:
        return Response(status_code=304, headers=headers)
    encoding = chosen_encoding(request.headers.get("accept-encoding", ""))
    if encoding.name:
        headers["Content-Encoding"] = encoding.name
    body = encoding.build(page, token, new_form_key_prefix())
    return Response(body, headers=headers, media_type="text/html")


# Sent with every cached lesson page (private: each carries its reader's token).
VISITOR_HEADERS = {
    "Vary": "HX-Request, HX-History-Restore-Request, Cookie, Accept-Encoding",
    "Cache-Control": "private, no-cache",
}
SESSION_COOKIE_NAME = SESSION_COOKIE.encode()


class VisitorPages:
    """ASGI middleware: a visitor's lesson page straight from the cache, before any routing.

    It sits just inside asgi-csrf (which gives the request its token) and answers
    ``GET /licoes/<slug>`` without a query string from a browser with no session cookie, when
    that page is cached for the current course version. Anything else, and every first
    request for a page, goes on to the lesson route, which renders and caches it.

    Args:
        app: the ASGI app inside.
        state: the app's ``state`` (``live_course``, ``page_cache``).
        headers: ``theme`` reads the chosen theme from a request; ``response_headers`` are
            the ones the lesson route sends with a cached page.
    """

    def __init__(
        self, app, state, theme: Callable[[Request], str], response_headers: dict[str, str]
    ):
        self.app = app
        self.state = state
        self.theme = theme
        self.response_headers = response_headers
        self.lesson_prefix = state.urls.prefix("lesson")  # the stack is built after the routes

    async def __call__(self, scope, receive, send) -> None:
        """Answer from the cache when the request allows it, else pass it on."""
        if self._eligible(scope):
            request = Request(scope)
            course = self.state.live_course.current()
            key = (scope["path"][len(self.lesson_prefix) :], self.theme(request))
            page = self.state.page_cache.peek(course, key)
            if page is not None:
                await respond(request, page, self.response_headers)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _eligible(self, scope) -> bool:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["query_string"]:
            return False
        path = scope["path"]
        if not path.startswith(self.lesson_prefix) or "/" in path[len(self.lesson_prefix) :]:
            return False
        for name, value in scope["headers"]:
            if name == b"cookie" and SESSION_COOKIE_NAME + b"=" in value:
                return False
        return True
