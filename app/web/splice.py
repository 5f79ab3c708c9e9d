"""The splice codec: a page rendered once with holes, sent with each response's own fills.

A cached page (:mod:`app.web.page_cache`) is the same for every reader but for three things:
the CSRF token their forms and htmx headers carry (the signed double-submit token, one per
browser), the prefix of the quiz forms' idempotency keys (new for every response, so no two
page views share a key: a visitor's first answer makes their learner with that key,
:func:`app.learning.writer._claim`) and the time the page was sent, signed with its lesson
(the quiz forms' ``emitida``: an answer kept offline cannot say it was given before it,
issue 40). The page
is rendered with :data:`TOKEN_HOLE`, :data:`FORM_KEY_HOLE` and :data:`ISSUED_HOLE` in those
places, split there, and each part compressed once. A response joins the parts around its
fills:

- ``deflate`` (RFC 1950, the zlib format): each part is an independent run of deflate blocks
  ending on a byte boundary (``Z_SYNC_FLUSH``); a fill goes between them as a *stored* block
  (RFC 1951 §3.2.4, five bytes of header); the Adler-32 of the whole page is the page's with
  zeros in the holes (kept) plus what the fills add, each fill's share computed once from
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# Where the token goes while the page is rendered once: URL-safe characters (like a real
# token), so no template filter escapes or changes it, and never found in lesson text.
TOKEN_HOLE = "csrf-cache-placeholder-9b1e6c0f2d7a4e58"
# Where a page view's own prefix of the forms' idempotency keys goes (see :func:`with_key_holes`).
FORM_KEY_HOLE = "formkey-cache-placeholder-4c7d21a9e3b05f68"
# Where the answer forms' signed time the page was sent (``emitida``) goes (see
# :func:`with_key_holes`): the lower bound of when an answer kept offline was given.
ISSUED_HOLE = "issued-cache-placeholder-7e2f90b4c15a3d86"
# The kinds of holes, in the order their fills are given (token, key prefix, issued time).
HOLES = (TOKEN_HOLE, FORM_KEY_HOLE, ISSUED_HOLE)
_HOLE = re.compile(b"(" + b"|".join(re.escape(hole.encode()) for hole in HOLES) + b")")
# A quiz form's idempotency key (``chave``): new on every render (see :func:`with_key_holes`).
FORM_KEY_FIELD = re.compile(rb'(name="chave" value=")[^"]*"')
# A quiz form's issued time (``emitida``), signed: the time of each response.
ISSUED_FIELD = re.compile(rb'(name="emitida" value=")[^"]*"')
ADLER_BASE = 65521
ZLIB_HEADER = b"\x78\xda"  # deflate, 32 KiB window, best compression (RFC 1950 §2.2)
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # deflate, no name, no time, unknown OS
COMPRESS_LEVEL = 9  # once per page version: the smallest bytes are worth the one-off time


@dataclass(frozen=True)
class AdlerBasis:
    """What the Adler-32 of a page with several kinds of fills needs besides the fills.

    Adler-32 (RFC 1950 §8.2) of ``n`` bytes ``b_i`` is ``A = 1 + Σ b_i`` and
    ``B = n + Σ (n - i)·b_i``, both mod 65,521. A fill ``f`` at offset ``o`` adds ``S(f)`` to
    ``A`` and ``(n - o)·S(f) - W(f)`` to ``B``, where ``S`` is its byte sum and ``W = Σ j·f_j``,
    both read off the fill's own Adler-32. So the page's is ``a``, ``b`` (the page with NUL
    bytes in the holes) plus, per kind of fill (the token, the key prefix, the issued time:
    :data:`HOLES`), its count times ``S`` and ``W``, and ``S`` times the sum of ``n - o`` over
    its holes (``weights``).
    """

    a: int
    b: int
    counts: tuple[int, ...]
    weights: tuple[int, ...]

    @classmethod
    def of(cls, parts: list[bytes], kinds: Sequence[int], *lengths: int):
        """The basis of a page split into ``parts``, whose holes are of ``kinds`` (indexes
        into :data:`HOLES`), for fills of these lengths (one per kind)."""
        fills = [lengths[kind] for kind in kinds]
        total = sum(map(len, parts)) + sum(fills)
        adler, offset = 1, len(parts[0])
        adler = zlib.adler32(parts[0], adler)
        weights = [0] * len(lengths)
        for kind, length, part in zip(kinds, fills, parts[1:], strict=True):
            weights[kind] += total - offset
            adler = zlib.adler32(part, zlib.adler32(bytes(length), adler))
            offset += length + len(part)
        counts = tuple(list(kinds).count(kind) for kind in range(len(lengths)))
        return cls(adler & 0xFFFF, adler >> 16, counts, tuple(w % ADLER_BASE for w in weights))

    def adler32(self, *fills: bytes) -> int:
        """The Adler-32 of the page with ``fills`` (one per kind) in its holes."""
        a, b = self.a, self.b
        for fill, count, weight in zip(fills, self.counts, self.weights, strict=True):
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
    position in the page, and its issued time (``emitida``) made :data:`ISSUED_HOLE` (both
    filled per response by :class:`SplicedPage`)."""
    count = iter(range(1_000_000))
    keyed = FORM_KEY_FIELD.sub(
        lambda m: m.group(1) + FORM_KEY_HOLE.encode() + b'-%d"' % next(count), html
    )
    return ISSUED_FIELD.sub(lambda m: m.group(1) + ISSUED_HOLE.encode() + b'"', keyed)


def new_form_key_prefix() -> bytes:
    """A random prefix for one response's form keys (22 URL-safe characters)."""
    return secrets.token_urlsafe(16).encode()


class SplicedPage:
    """One rendered page, split where the token, the form-key prefix and the issued time go,
    each part compressed once.

    ``html`` is the page as rendered with :data:`TOKEN_HOLE` for the token,
    :data:`FORM_KEY_HOLE` for the form-key prefix and :data:`ISSUED_HOLE` for the issued time
    (UTF-8 bytes). The fills are given in that order; one left out is empty.
    """

    def __init__(self, html: bytes) -> None:
        pieces = _HOLE.split(html)
        self.parts = pieces[0::2]
        holes = [hole.encode() for hole in HOLES]
        self.kinds = [holes.index(hole) for hole in pieces[1::2]]  # indexes into HOLES
        self.digest = hashlib.blake2b(html, digest_size=12).hexdigest()  # the ETag's first half
        # The parts compressed for fills of given lengths: every token the front door signs
        # has one length, every key prefix another, every issued time a third, so one entry
        # in practice.
        self._deflated: dict[tuple[int, ...], tuple[list[bytes], AdlerBasis]] = {}
        self._shared_window = b"\0" not in html

    def deflated(self, *fills: bytes) -> tuple[list[bytes], AdlerBasis]:
        """The compressed parts and the Adler-32 basis for fills of these lengths (built on
        first use, then kept)."""
        lengths = tuple(len(fill) for fill in self._all(fills))
        kept = self._deflated.get(lengths)
        if kept is None:
            kept = (
                deflated_parts(
                    self.parts, [lengths[kind] for kind in self.kinds], shared=self._shared_window
                ),
                AdlerBasis.of(self.parts, self.kinds, *lengths),
            )
            if len(self._deflated) < 4:  # odd lengths (a forged cookie) are not kept
                self._deflated[lengths] = kept
        return kept

    @staticmethod
    def _all(fills: Sequence[bytes]) -> tuple[bytes, ...]:
        return tuple(fills) + (b"",) * (len(HOLES) - len(fills))

    def _fills(self, fills: Sequence[bytes]) -> list[bytes]:
        every = self._all(fills)
        return [every[kind] for kind in self.kinds]

    def identity(self, *fills: bytes) -> bytes:
        """The page with ``fills`` (token, key prefix, issued time) in place, uncompressed."""
        out = [self.parts[0]]
        for fill, part in zip(self._fills(fills), self.parts[1:], strict=True):
            out += [fill, part]
        return b"".join(out)

    def deflate(self, *fills: bytes) -> bytes:
        """The page with ``fills`` in place, in the zlib format (``Content-Encoding: deflate``)."""
        blocks = {fill: stored_block(fill) for fill in self._all(fills)}
        deflated_parts, basis = self.deflated(*fills)
        out = [ZLIB_HEADER, deflated_parts[0]]
        for fill, deflated in zip(self._fills(fills), deflated_parts[1:], strict=True):
            out += [blocks[fill], deflated]
        out.append(struct.pack(">I", basis.adler32(*self._all(fills))))
        return b"".join(out)

    def gzip(self, *fills: bytes) -> bytes:
        """The page with ``fills`` in place, in the gzip format (``Content-Encoding: gzip``)."""
        blocks = {fill: stored_block(fill) for fill in self._all(fills)}
        deflated_parts = self.deflated(*fills)[0]
        out = [GZIP_HEADER, deflated_parts[0]]
        crc = zlib.crc32(self.parts[0])
        size = len(self.parts[0])
        for fill, deflated, part in zip(
            self._fills(fills), deflated_parts[1:], self.parts[1:], strict=True
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
    build: Callable[..., bytes]  # (page, token, key prefix, issued time) -> body


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
