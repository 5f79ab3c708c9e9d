"""The visitor page cache: spliced deflate/gzip streams decode to the page with the
token in place.
"""

from __future__ import annotations

import gzip
import zlib

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from app.web.page_cache import (
    PLACEHOLDER,
    PageCache,
    SplicedPage,
    adler32_combine,
    chosen_encoding,
)

TEXT = st.binary(max_size=3000) | st.text(max_size=2000).map(lambda t: t.encode("utf-8"))


@given(st.binary(max_size=5000), st.binary(max_size=5000))
def test_adler32_combine_agrees_with_zlib(first: bytes, second: bytes):
    combined = adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
    assert combined == zlib.adler32(first + second)


@hsettings(max_examples=60, deadline=None)
@given(
    st.lists(TEXT.filter(lambda b: PLACEHOLDER.encode() not in b), min_size=1, max_size=6),
    st.binary(min_size=0, max_size=200),
)
def test_every_encoding_decodes_to_the_page_with_the_token(parts: list[bytes], token: bytes):
    page = SplicedPage(PLACEHOLDER.encode().join(parts))
    expected = token.join(parts)
    assert page.identity(token) == expected
    assert zlib.decompress(page.deflate(token)) == expected
    assert gzip.decompress(page.gzip(token)) == expected


def test_a_token_longer_than_a_stored_block_still_decodes():
    page = SplicedPage(b"<p>" + PLACEHOLDER.encode() + b"</p>")
    token = bytes(range(256)) * 300  # 76,800 bytes: two stored blocks
    assert zlib.decompress(page.deflate(token)) == b"<p>" + token + b"</p>"
    assert gzip.decompress(page.gzip(token)) == b"<p>" + token + b"</p>"


def test_the_encoding_follows_accept_encoding():
    assert chosen_encoding("gzip, deflate, br, zstd").name == "deflate"
    assert chosen_encoding("gzip").name == "gzip"
    assert chosen_encoding("deflate;q=0, gzip").name == "gzip"
    assert chosen_encoding("").name == ""
    assert chosen_encoding("br").name == ""


def test_the_cache_renders_once_per_course_version():
    cache, calls = PageCache(), []

    def render() -> bytes:
        calls.append(1)
        return f"<p>{len(calls)} {PLACEHOLDER}</p>".encode()

    course_a, course_b = object(), object()
    first = cache.get(course_a, ("kernels", ""), render)
    assert cache.get(course_a, ("kernels", ""), render) is first
    assert len(calls) == 1
    changed = cache.get(course_b, ("kernels", ""), render)  # the lesson files changed
    assert changed is not first and changed.identity(b"T") == b"<p>2 T</p>"
    assert cache.get(course_a, ("kernels", "dark"), render).identity(b"T") == b"<p>3 T</p>"
