"""The splice codec: a page rendered once with holes, sent with each response's own fills.

A cached page (:mod:`app.web.page_cache`) is the same for every reader but for two things: the
CSRF token their forms and htmx headers carry (the signed double-submit token, one per
browser) and the prefix of the quiz forms' idempotency keys (new for every response, so no two
page views share a key: a visitor's first answer makes their learner with that key,
:func:`app.learning.writer._claim`). The page is rendered with :data:`TOKEN_HOLE` and
:data:`FORM_KEY_HOLE` in those places, split there, and each part compressed once. A response
joins the parts around its fills:

- ``deflate`` (RFC 1950, the zlib format): each part is an independent run of deflate blocks
  ending on a byte boundary (``Z_SYNC_FLUSH``); a fill goes between them as a *stored* block
  (RFC 1951 §3.2.4, five bytes of header); the Adler-32 of the whole page is the page's with
  zeros in the holes (kept) plus what the two fills add, each fill's share computed once from
  its own Adler-32 (:class:`AdlerBasis`). The work per response is proportional to the fills,
  not to the page or its number of holes.
- ``gzip`` (RFC 1952), for clients that do not take ``deflate``: the same blocks; its CRC-32 is
  computed over the page (zlib's C code, tens of microseconds for a lesson).
- no encoding: the parts joined around the fills.

Pure: bytes in, bytes out; nothing here knows HTTP or templates.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass

# Where the token goes while the page is rendered once: URL-safe characters (like a real
# token), so no template filter escapes or changes it, and never found in lesson text.
TOKEN_HOLE = "csrf-cache-placeholder-9b1e6c0f2d7a4e58"
# Where a page view's own prefix of the forms' idempotency keys goes (see :func:`with_key_holes`).
FORM_KEY_HOLE = "formkey-cache-placeholder-4c7d21a9e3b05f68"
_HOLE = re.compile(
    b"(" + re.escape(TOKEN_HOLE.encode()) + b"|" + re.escape(FORM_KEY_HOLE.encode()) + b")"
)
# A quiz form's idempotency key (``chave``): new on every render (see :func:`with_key_holes`).
FORM_KEY_FIELD = re.compile(rb'(name="chave" value=")[^"]*"')
ADLER_BASE = 65521
ZLIB_HEADER = b"\x78\xda"  # deflate, 32 KiB window, best compression (RFC 1950 §2.2)
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # deflate, no name, no time, unknown OS
COMPRESS_LEVEL = 9  # once per page version: the smallest bytes are worth the one-off time


@dataclass(frozen=True)
class AdlerBasis:
    """What the Adler-32 of a page with two kinds of fills needs besides the fills.

    Adler-32 (RFC 1950 §8.2) of ``n`` bytes ``b_i`` is ``A = 1 + Σ b_i`` and
    ``B = n + Σ (n - i)·b_i``, both mod 65,521. A fill ``f`` at offset ``o`` adds ``S(f)`` to
    ``A`` and ``(n - o)·S(f) - W(f)`` to ``B``, where ``S`` is its byte sum and ``W = Σ j·f_j``,
    both read off the fill's own Adler-32. So the page's is ``a``, ``b`` (the page with NUL
    bytes in the holes) plus, per kind of fill, its count times ``S`` and ``W``, and ``S``
    times the sum of ``n - o`` over its holes (``token_weight``, ``key_weight``).
    """

    a: int
    b: int
    token_count: int
    token_weight: int
    key_count: int
    key_weight: int

    @classmethod
    def of(cls, parts: list[bytes], is_key: list[bool], token_len: int, key_len: int):
        """The basis of a page split into ``parts``, for fills of these lengths."""
        fills = [key_len if key else token_len for key in is_key]
        total = sum(map(len, parts)) + sum(fills)
        adler, offset = 1, len(parts[0])
        adler = zlib.adler32(parts[0], adler)
        weights = {True: 0, False: 0}
        for key, length, part in zip(is_key, fills, parts[1:], strict=True):
            weights[key] += total - offset
            adler = zlib.adler32(part, zlib.adler32(bytes(length), adler))
            offset += length + len(part)
        return cls(
            adler & 0xFFFF,
            adler >> 16,
            is_key.count(False),
            weights[False] % ADLER_BASE,
            is_key.count(True),
            weights[True] % ADLER_BASE,
        )

    def adler32(self, token: bytes, key: bytes) -> int:
        """The Adler-32 of the page with ``token`` and ``key`` in its holes."""
        a, b = self.a, self.b
        for fill, count, weight in (
            (token, self.token_count, self.token_weight),
            (key, self.key_count, self.key_weight),
        ):
            own = zlib.adler32(fill)
            total = (own & 0xFFFF) - 1  # S(fill)
            weighted = len(fill) * (1 + total) - (own >> 16)  # W(fill): B = n + n·S - W
            a += count * total
            b += weight * total - count * weighted
        return (a % ADLER_BASE) | ((b % ADLER_BASE) << 16)


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
    """``html`` with each quiz form's key made of :data:`FORM_KEY_HOLE` and the form's
    position in the page (filled per response by :class:`SplicedPage`)."""
    count = iter(range(1_000_000))
    return FORM_KEY_FIELD.sub(
        lambda m: m.group(1) + FORM_KEY_HOLE.encode() + b'-%d"' % next(count), html
    )


def new_form_key_prefix() -> bytes:
    """A random prefix for one response's form keys (22 URL-safe characters)."""
    return secrets.token_urlsafe(16).encode()


class SplicedPage:
    """One rendered page, split where the token and the form-key prefix go, each part
    compressed once.

    ``html`` is the page as rendered with :data:`TOKEN_HOLE` for the token and
    :data:`FORM_KEY_HOLE` for the form-key prefix (UTF-8 bytes).
    """

    def __init__(self, html: bytes) -> None:
        pieces = _HOLE.split(html)
        self.parts = pieces[0::2]
        self.is_key = [hole == FORM_KEY_HOLE.encode() for hole in pieces[1::2]]
        self.digest = hashlib.blake2b(html, digest_size=12).hexdigest()  # the ETag's first half
        # The parts compressed for fills of given lengths (token, key): every token the front door
        # signs has one length, and every key prefix another, so one entry in practice.
        self._deflated: dict[tuple[int, int], tuple[list[bytes], AdlerBasis]] = {}
        self._shared_window = b"\0" not in html

    def deflated(self, token: bytes, key: bytes) -> tuple[list[bytes], AdlerBasis]:
        """The compressed parts and the Adler-32 basis for fills of these lengths (built on
        first use, then kept)."""
        lengths = (len(token), len(key))
        kept = self._deflated.get(lengths)
        if kept is None:
            fills = [len(fill) for fill in self._fills(token, key)]
            kept = (
                deflated_parts(self.parts, fills, shared=self._shared_window),
                AdlerBasis.of(self.parts, self.is_key, len(token), len(key)),
            )
            if len(self._deflated) < 4:  # odd lengths (a forged cookie) are not kept
                self._deflated[lengths] = kept
        return kept

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
        deflated_parts, basis = self.deflated(token, key)
        out = [ZLIB_HEADER, deflated_parts[0]]
        for fill, deflated in zip(self._fills(token, key), deflated_parts[1:], strict=True):
            out += [blocks[fill], deflated]
        out.append(struct.pack(">I", basis.adler32(token, key)))
        return b"".join(out)

    def gzip(self, token: bytes, key: bytes = b"") -> bytes:
        """The page with ``token`` (and ``key``) in place, in the gzip format
        (``Content-Encoding: gzip``).
        """
        blocks = {token: stored_block(token), key: stored_block(key)}
        deflated_parts = self.deflated(token, key)[0]
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
