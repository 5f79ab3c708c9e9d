"""Lessons parsed as written (issue 12, items 2, 3 and 4, and YAML 1.1 surprises).

Boxes respect fenced code and nesting, a quiz prompt holds any block Markdown with a
legend that names the question, heading ids are unique and stable, and every ambiguity
is reported by ``curso check`` with file:line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.content.course import load_course
from app.content.errors import ContentErrors
from app.content.item_checks import check_items
from app.content.lessons import load_lesson
from app.main import create_app
from tests.support.app import make_settings
from tests.support.html import soup

HEADER = """\
---
title: Lição de teste
slug: teste
order: 1
summary: Uma lição de teste.
minutes: 5
objectives:
  - Testar.
---
"""
HEADER_LINES = HEADER.count("\n")

QUIZ = """\
```quiz
- id: {qid}
  kind: single
  prompt: Qual fase acompanha a banda de memória?
  options:
    - {{id: a, text: Prefill, explanation: Errado.}}
    - {{id: b, text: Decode, explanation: Certo.}}
  answer: [b]
```
"""


def write(folder: Path, body: str, name: str = "01-teste.md") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def said(node) -> str:
    """An element's text as read: whitespace runs joined."""
    return " ".join(node.get_text().split())


def problems(folder: Path) -> list[str]:
    """What ``curso check`` prints for the folder (``file:line:col: level: message``).

    The item-writing warnings (two options, a negative stem...) are left out: these
    lessons are about structure, and those checks have tests of their own.
    """
    course = load_course(folder)
    item_writing = {str(p) for p in check_items(course.lessons)}
    return [str(p) for p in course.problems if str(p) not in item_writing]


def page(tmp_path: Path, folder: Path, slug: str = "teste") -> BeautifulSoup:
    with TestClient(create_app(make_settings(tmp_path, folder))) as client:
        response = client.get(f"/licoes/{slug}")
    assert response.status_code == 200, response.text
    return soup(response.text)


# --- item 2: boxes and fences -------------------------------------------------------------

REPRODUCER_BOX = """
::: warning Atenção
Exemplo:

```text
:::
```

:::

## Depois

Parágrafo final.

""" + QUIZ.format(qid="depois-da-caixa")


def test_a_colon_line_inside_a_fence_does_not_close_the_box(tmp_path):
    folder = tmp_path / "licoes"
    write(folder, REPRODUCER_BOX)
    assert problems(folder) == []
    html = page(tmp_path, folder)
    box = html.select_one("aside.callout-warning")
    assert box.select_one(".callout-title").get_text() == "Atenção"
    assert box.select_one("pre code").get_text() == ":::\n"
    assert box.find("h2") is None
    heading = html.select_one("article h2#depois")
    assert heading is not None and heading.get_text() == "Depois"
    assert [p.get_text() for p in html.select("article > p")] == ["Parágrafo final."]
    assert said(html.select_one("#pergunta-depois-da-caixa legend")) == (
        "Qual fase acompanha a banda de memória?"
    )


def test_the_question_after_the_box_answers(tmp_path):
    folder = tmp_path / "licoes"
    write(folder, REPRODUCER_BOX)
    with TestClient(create_app(make_settings(tmp_path, folder))) as client:
        response = client.get("/licoes/teste/perguntas/depois-da-caixa")
    assert response.status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        # the same markers on both levels: the first bare ::: closes the inner box
        "::: warning Fora\nA\n\n::: tip Dentro\nB\n:::\n\nC\n:::\n",
        # longer markers outside, as markdown-it-container asks
        ":::: warning Fora\nA\n\n::: tip Dentro\nB\n:::\n\nC\n::::\n",
    ],
)
def test_nested_boxes_close_where_the_author_meant(tmp_path, body):
    folder = tmp_path / "licoes"
    write(folder, body + "\n## Depois\n\nFim.\n")
    assert problems(folder) == []
    html = page(tmp_path, folder)
    outer = html.select_one("article > aside.callout-warning")
    inner = outer.select_one("aside.callout-tip")
    assert [p.get_text() for p in outer.find_all("p", recursive=False)] == ["Fora", "A", "C"]
    assert [p.get_text() for p in inner.find_all("p", recursive=False)] == ["Dentro", "B"]
    assert html.select_one("article > .heading-anchor > h2#depois") is not None


def test_fence_of_four_backticks_holding_three_and_colons_stays_one_block(tmp_path):
    folder = tmp_path / "licoes"
    write(folder, "::: tip Exemplo\n````md\n```\n:::\n```\n````\n:::\n\n## Depois\n")
    assert problems(folder) == []
    html = page(tmp_path, folder)
    assert html.select_one("aside.callout-tip pre code").get_text() == "```\n:::\n```\n"
    assert html.select_one("article > .heading-anchor > h2#depois") is not None


def test_a_box_whose_fence_is_never_closed_is_an_error_with_file_and_line(tmp_path):
    folder = tmp_path / "licoes"
    path = write(folder, "\n::: danger Cuidado\n```sh\n:::\n\n## Depois\n")
    box_line, fence_line = HEADER_LINES + 2, HEADER_LINES + 3
    assert problems(folder) == [
        f"{path}:{box_line}:1: error: esta caixa `:::` não tem linha de fechamento (uma linha só "
        "com `:::`); a caixa vai até o fim do que a contém",
        f"{path}:{fence_line}:1: error: este bloco de código dentro de uma caixa `:::` nunca é "
        "fechado, então a linha `:::` que fecharia a caixa é lida como código; feche o bloco com "
        "a mesma cerca que o abriu",
    ]


def test_a_closing_line_with_other_colons_is_an_error(tmp_path):
    folder = tmp_path / "licoes"
    path = write(folder, "\n:::: tip Dica\nTexto.\n:::\n")
    assert problems(folder) == [
        f"{path}:{HEADER_LINES + 4}:1: error: esta linha `:::` fecha a caixa aberta com `::::`; "
        "escreva o mesmo número de dois-pontos nas duas linhas (veja lessons/README.md, caixas "
        "de destaque)",
    ]


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("\nTexto.\n:::\n", 3),  # a closing line with no box open, glued to a paragraph
        ("\n:::\n", 2),
        ("\n::: nota Título\nTexto.\n:::\n", 2),  # an unknown kind
    ],
)
def test_a_colon_line_left_as_text_is_an_error(tmp_path, body, line):
    folder = tmp_path / "licoes"
    path = write(folder, body)
    assert problems(folder)[:1] == [
        f"{path}:{HEADER_LINES + line}:1: error: caixa `:::` desconhecida ou malformada; os tipos "
        "são `tip`, `warning`, `danger`, e ela fecha com uma linha `:::`",
    ]


@st.composite
def fence(draw) -> list[str]:
    """A fenced code block whose lines look like boxes, headings and other fences."""
    char = draw(st.sampled_from("`~"))
    size = draw(st.integers(3, 5))
    noise = st.sampled_from(
        [
            ":::",
            "::: tip Falsa",
            "## Falso título",
            "```quiz",
            "~~~",
            "",
            "- item",
            char * (size - 1),
        ]
    )

    def closes(line: str) -> bool:  # a line that would end the fence early
        return bool(line) and set(line) == {char} and len(line) >= size

    body = [line for line in draw(st.lists(noise, max_size=4)) if not closes(line)]
    return [char * size + draw(st.sampled_from(["", "text", "sh"])), *body, char * size]


@st.composite
def blocks(draw, depth: int, names: dict) -> list[str]:
    """Lines of a random lesson body: paragraphs, fences, headings, boxes (nested) and quizzes."""
    out: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["para", "fence", "heading", "box", "quiz"]))
        if kind == "para":
            out += [draw(st.sampled_from(["Texto.", "Um *texto* com `código`."])), ""]
        elif kind == "fence":
            out += [*draw(fence()), ""]
        elif kind == "heading":
            names["headings"].append(f"Título {len(names['headings']) + 1}")
            out += [f"## {names['headings'][-1]}", ""]
        elif kind == "box" and depth < 3:
            colons = ":" * draw(st.integers(3, 5))
            kind_name = draw(st.sampled_from(["tip", "warning", "danger"]))
            out += [f"{colons} {kind_name} Caixa", *draw(blocks(depth + 1, names)), colons, ""]
        elif kind == "quiz" and depth == 0:
            names["questions"].append(f"q{len(names['questions']) + 1}")
            out += [*QUIZ.format(qid=names["questions"][-1]).split("\n"), ""]
    return out


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_random_lessons_render_every_heading_and_question(tmp_path_factory, data):
    names: dict = {"headings": [], "questions": []}
    body = "\n".join(data.draw(blocks(0, names)))
    folder = tmp_path_factory.mktemp("licoes")
    path = write(folder, body)
    lesson = load_lesson(path)
    assert [h.text for h in lesson.headings] == names["headings"], body
    assert list(lesson.questions) == names["questions"], body
    html = "".join(p for p in lesson.parts if isinstance(p, str))
    tree = soup(html)
    assert [h.get_text() for h in tree.find_all("h2")] == names["headings"], body
    # every box is an <aside>, and outside code no colon line is left as text
    assert len(tree.select("aside.callout")) == body.count(" Caixa\n"), body
    assert [t.get_text() for t in tree.select(".callout-title")] == ["Caixa"] * body.count(
        " Caixa\n"
    )
    for pre in tree.find_all("pre"):
        pre.decompose()
    assert ":::" not in tree.get_text(), body


# --- item 3: quiz prompts -----------------------------------------------------------------


def quiz_with(prompt_lines: str, extra: str = "") -> str:
    return (
        "\n```quiz\n- id: q-fence\n  kind: single\n  prompt: |\n"
        + "".join(f"    {line}\n" if line else "\n" for line in prompt_lines.split("\n"))
        + extra
        + "  options:\n"
        '    - {id: a, text: "1", explanation: Errado.}\n'
        '    - {id: b, text: "2", explanation: Certo.}\n'
        "  answer: [b]\n```\n"
    )


def question_html(tmp_path: Path, body: str) -> BeautifulSoup:
    folder = tmp_path / "licoes"
    write(folder, body)
    assert problems(folder) == []
    return page(tmp_path, folder).select_one("#pergunta-q-fence")


def test_prompt_starting_with_code_has_the_question_as_legend(tmp_path):
    prompt = (
        "```sh\nvllm serve modelo --tensor-parallel-size 2\n```\nQuantas GPUs este comando usa?"
    )
    question = question_html(tmp_path, quiz_with(prompt))
    assert said(question.select_one("legend")) == "Quantas GPUs este comando usa?"
    assert question.select_one("fieldset pre code").get_text() == (
        "vllm serve modelo --tensor-parallel-size 2\n"
    )
    assert question.select_one("legend code") is None


def test_blank_line_inside_the_prompts_fence_keeps_the_question_out_of_the_code(tmp_path):
    prompt = "```python\nx = 1\n\nprint(x)\n```\n\nO que este código imprime?"
    question = question_html(tmp_path, quiz_with(prompt))
    assert said(question.select_one("legend")) == "O que este código imprime?"
    assert question.select_one("fieldset pre code").get_text() == "x = 1\n\nprint(x)\n"


def test_prompt_starting_with_a_list_shows_the_list(tmp_path):
    prompt = "- item um\n- item dois\n\nQual item está certo?"
    question = question_html(tmp_path, quiz_with(prompt))
    assert said(question.select_one("legend")) == "Qual item está certo?"
    assert [li.get_text() for li in question.select("fieldset > ul li")] == ["item um", "item dois"]


@pytest.mark.parametrize(
    ("prompt", "selector", "expected"),
    [
        ("Compare:\n\n| a | b |\n|---|---|\n| 1 | 2 |", "fieldset table td", "1"),
        ("Leia:\n\n> citação do guia", "fieldset blockquote p", "citação do guia"),
        ("Ordem:\n\n1. prefill\n2. decode", "fieldset ol li", "prefill"),
        ("Veja:\n\n~~~\ncódigo\n~~~", "fieldset pre code", "código\n"),
    ],
)
def test_prompt_holds_any_block_markdown(tmp_path, prompt, selector, expected):
    question = question_html(tmp_path, quiz_with(prompt))
    assert said(question.select_one("legend")) == prompt.split("\n")[0]
    assert question.select_one(selector).get_text() == expected


def test_prompt_without_a_sentence_needs_a_legend_field(tmp_path):
    folder = tmp_path / "licoes"
    path = write(folder, quiz_with("```sh\nvllm serve modelo\n```"))
    prompt_line = HEADER_LINES + 5
    assert problems(folder) == [
        f"{path}:{prompt_line}:3: error: o enunciado da pergunta `q-fence` não tem uma frase "
        "própria (só código, listas, tabelas ou citações), então nada nomeia a pergunta para "
        "leitores de tela; acrescente `legend:` com a pergunta em uma linha",
    ]


def test_legend_field_names_the_question_and_the_whole_prompt_follows(tmp_path):
    body = quiz_with(
        "```sh\nvllm serve modelo\n```", extra="  legend: Quantas GPUs o **comando** usa?\n"
    )
    question = question_html(tmp_path, body)
    assert said(question.select_one("legend")) == "Quantas GPUs o comando usa?"
    assert question.select_one("legend strong").get_text() == "comando"
    assert question.select_one("fieldset pre code").get_text() == "vllm serve modelo\n"


# --- item 4: heading ids ------------------------------------------------------------------


def test_link_by_text_reaches_the_heading_with_that_text(tmp_path):
    folder = tmp_path / "licoes"
    write(folder, "Veja [a etapa 2](<#Etapa 2>).\n\n## Etapa\n\n## Etapa\n\n## Etapa 2\n")
    assert problems(folder) == []
    html = page(tmp_path, folder)
    ids = [h["id"] for h in html.select("article h2")]
    assert len(set(ids)) == 3
    target = html.select_one("article a[href^='#']")["href"].removeprefix("#")
    assert html.select_one(f"article h2#{target}").get_text() == "Etapa 2"


def test_link_to_a_repeated_heading_is_an_ambiguity_warning(tmp_path):
    folder = tmp_path / "licoes"
    path = write(folder, "Veja [a etapa](<#Etapa>).\n\n## Etapa\n\n## Etapa\n")
    assert problems(folder) == [
        f"{path}:{HEADER_LINES + 1}:17: warning: o link `#Etapa` corresponde a 2 títulos com o "
        "mesmo texto (`#etapa`, `#etapa-2`) e leva ao primeiro; aponte para o id do que você "
        "quer, ou dê textos diferentes aos títulos",
    ]


@st.composite
def heading_texts(draw) -> list[str]:
    word = st.sampled_from(
        ["Etapa", "Quiz", "Etapa 2", "Etapa 3", "Quiz 2", "Etapa-2", "etapa 2 2"]
    )
    return draw(st.lists(word, min_size=1, max_size=8))


@given(texts=heading_texts())
def test_heading_ids_are_unique_and_each_text_reaches_its_first_heading(texts):
    from app.content.markdown import render_document, slugify

    rendered = render_document("\n\n".join(f"## {t}" for t in texts))
    ids = [h.anchor for h in rendered.headings]
    assert len(set(ids)) == len(ids)
    for text in texts:
        first = next(h for h in rendered.headings if slugify(h.text) == slugify(text))
        assert first.anchor == slugify(text)
    # stable: a heading whose text is unique keeps its id whatever else the page holds
    for heading in rendered.headings:
        if [slugify(t) for t in texts].count(slugify(heading.text)) == 1:
            assert heading.anchor == slugify(heading.text)


def test_heading_that_takes_a_page_chrome_id_is_an_error(tmp_path):
    folder = tmp_path / "licoes"
    path = write(folder, "\n## Busca topo\n")
    assert problems(folder) == [
        f"{path}:{HEADER_LINES + 2}:1: error: o título gera a âncora `#busca-topo`, que a página "
        "já usa; mude o texto do título",
    ]


def test_heading_that_takes_a_question_id_is_an_error(tmp_path):
    folder = tmp_path / "licoes"
    path = write(folder, "\n## Pergunta q1\n\n" + QUIZ.format(qid="q1"))
    assert problems(folder) == [
        f"{path}:{HEADER_LINES + 2}:1: error: o título gera a âncora `#pergunta-q1`, que uma "
        "pergunta, árvore, gráfico ou termo do glossário desta página já usa; mude o texto do "
        "título",
    ]


CHART = (
    "\n```chart\ntitle: Vazão\nunit: tok/s\nbars:\n"
    "  - {label: Lote 8, before: 10, after: 20}\n```\n"
)


def test_two_charts_with_one_title_and_a_heading_on_a_chart_id_are_errors(tmp_path):
    folder = tmp_path / "licoes"
    path = write(folder, "\n## Gráfico vazão\n" + CHART + CHART)
    second_chart = HEADER_LINES + 3 + CHART.count("\n") + 2
    assert problems(folder) == [
        f"{path}:{HEADER_LINES + 2}:1: error: o título gera a âncora `#grafico-vazao`, que uma "
        "pergunta, árvore, gráfico ou termo do glossário desta página já usa; mude o texto do "
        "título",
        f"{path}:{second_chart}:1: error: outro gráfico desta lição tem o mesmo título, e por "
        "isso a mesma âncora `#grafico-vazao`; dê a cada gráfico um título próprio",
    ]


# --- YAML 1.1 surprises -------------------------------------------------------------------

TREE = """
```decision-tree
id: arvore-teste
title: Teste
source: Guia.
start: gpu
questions:
  gpu:
    facet: gpu
    text: Você tem GPU?
    options:
      - label: Sim
        value: {yes_value}
        next: vllm
      - label: Não
        value: nao
        next: llama
results:
  vllm: {{engines: [vLLM], verdict: recommended, why: Rápido.}}
  llama: {{engines: [llama.cpp], verdict: recommended, why: Leve.}}
```
"""


@pytest.mark.parametrize(
    ("written", "what"),
    [
        ("no", "um booleano (false)"),
        ("yes", "um booleano (true)"),
        ("on", "um booleano (true)"),
        ("Off", "um booleano (false)"),
        ("3.10", "o número 3.1"),
        ("2024-01-01", "uma data (2024-01-01)"),
        ("~", "vazio (null)"),
    ],
)
def test_tree_value_read_as_non_text_says_so_with_file_and_line(tmp_path, written, what):
    folder = tmp_path / "licoes"
    path = write(folder, TREE.format(yes_value=written))
    value_line = HEADER_LINES + 13
    assert problems(folder) == [
        f"{path}:{value_line}:9: error: `value`: o YAML leu `{written}` como {what}, não como "
        f'texto; escreva entre aspas: `"{written}"`',
    ]


@pytest.mark.parametrize(
    ("field", "line_offset", "col"),
    [("text", 0, 7), ("explanation", 0, 7)],
)
def test_quiz_texts_read_as_booleans_say_so(tmp_path, field, line_offset, col):
    folder = tmp_path / "licoes"
    quiz = (
        "\n```quiz\n- id: q\n  kind: single\n  prompt: Funciona?\n  options:\n"
        f"    - id: a\n      {field}: no\n"
        + ("      explanation: Errado.\n" if field == "text" else "      text: Não\n")
        + "    - {id: b, text: Sim, explanation: Certo.}\n  answer: [b]\n```\n"
    )
    path = write(folder, quiz)
    assert problems(folder) == [
        f"{path}:{HEADER_LINES + 8 + line_offset}:{col}: error: `{field}`: o YAML leu `no` como "
        'um booleano (false), não como texto; escreva entre aspas: `"no"`',
    ]


def test_quoted_values_and_real_numbers_are_not_surprises(tmp_path):
    folder = tmp_path / "licoes"
    write(folder, TREE.format(yes_value='"no"').replace("value: nao", "value: 1"))
    assert problems(folder) == []


@pytest.mark.parametrize(
    ("written", "value"), [("010", 8), ("0x1f", 31), ("1_000", 1000), ("1:30", 90)]
)
def test_integers_in_yaml_11_forms_are_errors(tmp_path, written, value):
    folder = tmp_path / "licoes"
    path = write(folder, TREE.format(yes_value=written))
    assert problems(folder) == [
        f"{path}:{HEADER_LINES + 13}:16: error: YAML inválido: o YAML lê `{written}` como o número "
        f"{value} (YAML 1.1: um 0 no início é octal, `0x` é hexadecimal, `_` é ignorado e `1:30` "
        f'conta na base 60); escreva {value}, ou `"{written}"` entre aspas para um texto',
    ]


def test_the_repo_lessons_stay_clean():
    from tests.support.app import REPO_LESSONS

    assert load_course(REPO_LESSONS).problems == ()


def test_a_broken_box_keeps_the_rest_of_the_course(tmp_path):
    folder = tmp_path / "licoes"
    write(folder, "\n::: tip Sem fim\n```\n:::\n")
    other = HEADER.replace("slug: teste", "slug: ok").replace("order: 1", "order: 2")
    (folder / "02-ok.md").write_text(other + "\n## Tudo certo\n", encoding="utf-8")
    course = load_course(folder)
    assert [lesson.slug for lesson in course.lessons] == ["ok"]
    with pytest.raises(ContentErrors):
        load_lesson(folder / "01-teste.md")
