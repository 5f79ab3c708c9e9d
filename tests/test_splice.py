"""The splice codec: spliced deflate/gzip streams decode to the page with the token and the
form-key prefix in place."""

from __future__ import annotations

import gzip
import zlib

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from app.web.splice import (
    FORM_KEY_HOLE,
    ISSUED_HOLE,
    TOKEN_HOLE,
    AdlerBasis,
    SplicedPage,
    chosen_encoding,
    deflated_parts,
    with_key_holes,
)

TEXT = st.binary(max_size=3000) | st.text(max_size=2000).map(lambda t: t.encode("utf-8"))


@given(
    st.lists(st.binary(max_size=3000), min_size=1, max_size=8),
    st.lists(st.booleans(), max_size=7),
    st.binary(max_size=300),
    st.binary(max_size=300),
)
def test_the_adler32_of_the_filled_page_agrees_with_zlib(parts, kinds, token, key):
    parts = parts[: len(kinds) + 1]
    is_key = kinds[: len(parts) - 1]
    basis = AdlerBasis.of(parts, is_key, len(token), len(key))
    page = parts[0] + b"".join(
        (key if k else token) + part for k, part in zip(is_key, parts[1:], strict=True)
    )
    assert basis.adler32(token, key) == zlib.adler32(page)


def test_the_adler32_holds_for_bytes_that_wrap_its_sums():
    parts = [b"\xff" * 70_000, b"\xff" * 5, b"\xfe" * 66_000]
    token, key = b"\xff" * 300, b"\x01" * 22
    page = parts[0] + token + parts[1] + key + parts[2]
    basis = AdlerBasis.of(parts, [False, True], len(token), len(key))
    assert basis.adler32(token, key) == zlib.adler32(page)


@hsettings(max_examples=60, deadline=None)
@given(
    st.lists(TEXT.filter(lambda b: TOKEN_HOLE.encode() not in b), min_size=1, max_size=6),
    st.binary(min_size=0, max_size=200),
)
def test_every_encoding_decodes_to_the_page_with_the_token(parts: list[bytes], token: bytes):
    page = SplicedPage(TOKEN_HOLE.encode().join(parts))
    expected = token.join(parts)
    assert page.identity(token) == expected
    assert zlib.decompress(page.deflate(token)) == expected
    assert gzip.decompress(page.gzip(token)) == expected


HTML_TEXT = st.text(
    alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=400
).map(lambda t: t.encode("utf-8"))


@hsettings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(HTML_TEXT, st.sampled_from([TOKEN_HOLE, FORM_KEY_HOLE, ISSUED_HOLE])),
        min_size=1,
        max_size=12,
    ),
    st.binary(min_size=1, max_size=60),
    st.binary(min_size=1, max_size=30),
    st.binary(min_size=0, max_size=40),
)
def test_parts_that_refer_back_across_the_holes_decode_to_the_page(pieces, token, key, issued):
    """Each part is compressed with the page before it as its dictionary, NUL where the holes
    are: the stream decodes to the page with whatever fills them, of those lengths."""
    html = b"".join(text + hole.encode() for text, hole in pieces) + b"<fim>"
    expected = (
        html.replace(TOKEN_HOLE.encode(), token)
        .replace(FORM_KEY_HOLE.encode(), key)
        .replace(ISSUED_HOLE.encode(), issued)
    )
    page = SplicedPage(html)
    assert page.identity(token, key, issued) == expected
    assert zlib.decompress(page.deflate(token, key, issued)) == expected
    assert gzip.decompress(page.gzip(token, key, issued)) == expected
    other_token, other_key = bytes(reversed(token)), bytes(reversed(key))
    again = expected.replace(token, other_token) if token not in html else None
    if again is not None and key not in html and token not in key and key not in token:
        assert zlib.decompress(page.deflate(other_token, other_key)) == page.identity(
            other_token, other_key
        )


def test_a_lesson_sized_page_compresses_about_as_well_as_one_stream():
    """40 parts compressed apart were 53% larger than the kernels lesson in one stream (33.5 KB
    against 21.8 KB); referring back across the holes leaves only the fills themselves, which
    go in stored, as the difference."""
    words = [f"palavra{n} decode prefill kv-cache lote {n * 7 % 13}".encode() for n in range(60)]
    option = b'<label class="option"><input type="radio" name="opcao" value="%d"> %s</label>'
    form = (
        b'<form hx-post="/licoes/kernels/perguntas/q%d"><input type="hidden" name="csrftoken"'
        b' value="' + TOKEN_HOLE.encode() + b'"><input type="hidden" name="chave" value="'
        b"" + FORM_KEY_HOLE.encode() + b'-%d">'
    )
    html = b"".join(
        form % (n, n)
        + b"".join(option % (i, words[(n * 4 + i) % 60]) for i in range(4))
        + b"</form><p>"
        + b" ".join(words[n : n + 30])
        + b"</p>"
        for n in range(20)
    )
    token, key = b"T" * 88, b"K" * 22
    page = SplicedPage(html)
    whole = len(zlib.compress(page.identity(token, key), 9))
    spliced = page.deflate(token, key)
    assert zlib.decompress(spliced) == page.identity(token, key)
    # Each fill goes in stored (5 bytes of header), and each part starts a block of its own
    # (its Huffman tables and the sync flush): about 20 bytes a hole here.
    fills = sum(len(token if not is_key else key) + 25 for is_key in page.kinds)
    assert len(spliced) <= whole + fills + 300, (len(spliced), whole, fills)
    apart = sum(len(p) for p in deflated_parts(page.parts, [0] * len(page.kinds), shared=False))
    assert len(spliced) < 0.8 * (apart + fills), (len(spliced), apart + fills)


def test_a_page_with_a_nul_byte_is_spliced_part_by_part():
    html = b"a\x00b" + TOKEN_HOLE.encode() + b"a\x00b a\x00b"
    page = SplicedPage(html)
    assert zlib.decompress(page.deflate(b"XYZ")) == b"a\x00bXYZa\x00b a\x00b"


def test_a_token_longer_than_a_stored_block_still_decodes():
    page = SplicedPage(b"<p>" + TOKEN_HOLE.encode() + b"</p>")
    token = bytes(range(256)) * 300  # 76,800 bytes: two stored blocks
    assert zlib.decompress(page.deflate(token)) == b"<p>" + token + b"</p>"
    assert gzip.decompress(page.gzip(token)) == b"<p>" + token + b"</p>"


def test_the_encoding_follows_accept_encoding():
    assert chosen_encoding("gzip, deflate, br, zstd").name == "deflate"
    assert chosen_encoding("gzip").name == "gzip"
    assert chosen_encoding("deflate;q=0, gzip").name == "gzip"
    assert chosen_encoding("").name == ""
    assert chosen_encoding("br").name == ""


def test_each_quiz_form_key_becomes_the_prefix_hole_and_its_position():
    html = (
        b'<input name="chave" value="abc"><input name="emitida" value="x.1.s">'
        b'<input name="chave" value="def"><input name="emitida" value="x.1.s"><p>chave</p>'
    )
    holed = with_key_holes(html)
    assert holed == (
        b'<input name="chave" value="' + FORM_KEY_HOLE.encode() + b'-0">'
        b'<input name="emitida" value="' + ISSUED_HOLE.encode() + b'">'
        b'<input name="chave" value="' + FORM_KEY_HOLE.encode() + b'-1">'
        b'<input name="emitida" value="' + ISSUED_HOLE.encode() + b'"><p>chave</p>'
    )
    page = SplicedPage(holed)
    expected = (
        b'<input name="chave" value="P-0"><input name="emitida" value="E">'
        b'<input name="chave" value="P-1"><input name="emitida" value="E"><p>chave</p>'
    )
    assert zlib.decompress(page.deflate(b"T", b"P", b"E")) == expected
