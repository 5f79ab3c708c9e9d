"""Portuguese text rules as unit tests: slugs and anchors, sort order, search keys, code blocks."""

from __future__ import annotations

import unicodedata

import pytest

from app.content.markdown import Slugger, link_target, render_document, slugify
from app.content.text import collation_key, fold, term_key, text_keys


def test_slug_of_a_title_with_accents_dash_and_ordinal():
    assert slugify("Decodificação e Codificação — 1ª Aula") == "decodificacao-e-codificacao-1a-aula"


def test_slug_is_the_same_for_the_decomposed_form():
    assert (
        slugify(unicodedata.normalize("NFD", "Decodificação e Codificação"))
        == "decodificacao-e-codificacao"
    )


def test_repeated_headings_get_a_numbered_suffix():
    slugger = Slugger()
    assert [slugger.unique(t) for t in ("Quiz", "Resumo", "Quiz", "quiz")] == [
        "quiz",
        "resumo",
        "quiz-2",
        "quiz-3",
    ]


def test_headings_and_links_written_with_the_same_text_meet():
    doc = render_document(
        "## Decodificação e Codificação — 1ª Aula\n\n"
        "Volte a [essa seção](<#Decodificação e Codificação — 1ª Aula>) ou à [outra](#Decode).\n\n"
        "## Decode\n\n## Decode\n"
    )
    assert [h.anchor for h in doc.headings] == [
        "decodificacao-e-codificacao-1a-aula",
        "decode",
        "decode-2",
    ]
    assert 'href="#decodificacao-e-codificacao-1a-aula"' in doc.html
    assert 'href="#decode"' in doc.html
    assert doc.problems == ()


def test_link_to_another_lesson_section_by_its_text():
    assert (
        link_target("/licoes/kernels#Decode%20vs.%20prefill") == "/licoes/kernels#decode-vs-prefill"
    )
    assert link_target("#arvore-guia-osman") == "#arvore-guia-osman"
    assert link_target("https://exemplo.org/a#B C") == "https://exemplo.org/a#B C"


def test_a_link_to_a_missing_heading_is_a_course_wide_warning(tmp_path):
    from app.content.course import load_course
    from tests.support.lessons import GOOD

    (tmp_path / "a.md").write_text(GOOD + "\nVeja [aqui](#outro-titulo).\n", encoding="utf-8")
    course = load_course(tmp_path)
    assert [p.message for p in course.warnings] == [
        "o link `#outro-titulo` não leva a nenhum título desta lição"
    ]
    assert course.lessons, "um aviso não tira a lição do ar"


def test_portuguese_order_ignores_case_and_accents():
    shuffled = ["Zebra", "Ônibus", "avaliação", "Ética", "Árvores"]
    assert sorted(shuffled, key=collation_key) == [
        "Árvores",
        "avaliação",
        "Ética",
        "Ônibus",
        "Zebra",
    ]
    assert sorted(["kernel", "KV cache", "Kernel", "decode"], key=collation_key) == [
        "decode",
        "kernel",
        "Kernel",
        "KV cache",
    ]


@pytest.mark.parametrize(
    "expected",
    [
        # Letters first; among equal letters, unaccented before accented, then lower before upper.
        ["acao", "Acao", "açao", "ação", "Ação", "AÇÃO"],
        ["etê", "eter", "Eter", "éter", "Éter"],
        # A space or a hyphen weighs less than a letter, and the unspaced word comes last.
        ["kv cache", "KV cache", "KV-cache", "KVcache"],
        ["sao paulo", "Sao Paulo", "São Paulo", "são-paulo"],
    ],
)
def test_portuguese_order_breaks_case_and_accent_ties_whatever_the_input_order(expected):
    for shuffled in (expected[::-1], expected[1::2] + expected[::2]):
        assert sorted(shuffled, key=collation_key) == expected


def test_a_decomposed_accent_sorts_like_the_composed_one():
    decomposed = unicodedata.normalize("NFD", "Ação")
    assert decomposed != "Ação"
    assert collation_key(decomposed) == collation_key("Ação")
    assert sorted([decomposed, "acao", "AÇÃO"], key=collation_key) == ["acao", decomposed, "AÇÃO"]


def test_fold_drops_case_and_accents_in_any_normal_form():
    for variant in (
        "decodificação",
        "DECODIFICAÇÃO",
        unicodedata.normalize("NFD", "decodificação"),
        "decodificacao",
    ):
        assert fold(variant) == "decodificacao", variant


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("kernel", "kernels"),
        ("quantização", "quantizações"),
        ("quantizacao", "quantizações"),
        ("DECODIFICAÇÃO", "decodificação"),
        (unicodedata.normalize("NFD", "decodificação"), "decodificacao"),
        ("GPU", "GPUs"),
        ("modelo", "modelos"),
    ],
)
def test_inflections_share_one_search_key(a, b):
    assert term_key(a) == term_key(b)


def test_different_words_keep_different_keys():
    assert term_key("decode") != term_key("decodificação")
    assert term_key("prefill") != term_key("prefixo")


def test_text_keys_split_on_punctuation():
    assert text_keys("KV-cache, llama.cpp") == ["kv", "cach", "llam", "cpp"]


def test_code_blocks_are_highlighted_on_the_server():
    doc = render_document(
        "```python\nprint('oi')  # comentário\n```\n\n```\nsem linguagem <b>\n```\n"
    )
    assert '<span class="nb">print</span>' in doc.html
    assert '<span class="c1"># comentário</span>' in doc.html
    assert "sem linguagem &lt;b&gt;" in doc.html, "texto sem linguagem sai escapado"
    assert doc.html.count('<pre class="highlight" tabindex="0">') == 2
