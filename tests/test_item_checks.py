"""Item-writing checks in `curso check` (app/content/item_checks.py): each rule on a small
lesson that triggers it and one that does not, the real course under --strict, and the
instructor preview showing a question's warnings next to it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from app.content.course import load_course
from app.platform.settings import PROJECT_ROOT
from tests.support.app import REPO_LESSONS

HEADER = """\
---
title: Itens
slug: itens
order: 1
summary: Perguntas para o check de redação.
minutes: 5
objectives:
  - Testar as regras.
---

## Seção

Texto.

"""

FINE = [
    ("Prefill", "Errado: o prefill processa o prompt."),
    ("Decode", "Certo: gera um token por passo."),
    ("Tokenização", "Errado: vem antes das duas fases."),
]


def question(
    qid: str,
    options: list[tuple[str, str]] = FINE,
    answer: list[int] | None = None,
    kind: str = "single",
    prompt: str = "Qual fase gera um token por passo?",
) -> dict:
    """A quiz question; ``answer`` holds 0-based option indexes (option ids are a, b, c...)."""
    ids = "abcdefgh"
    return {
        "id": qid,
        "kind": kind,
        "prompt": prompt,
        "options": [
            {"id": ids[i], "text": t, "explanation": e} for i, (t, e) in enumerate(options)
        ],
        "answer": [ids[i] for i in (answer if answer is not None else [1])],
    }


def warnings_of(tmp_path: Path, *questions: dict) -> list[str]:
    """The item-writing problems of a one-lesson course, as `file:line: level: message`."""
    folder = tmp_path / "lessons"
    folder.mkdir(exist_ok=True)
    quiz = yaml.safe_dump(list(questions), allow_unicode=True, sort_keys=False)
    (folder / "01-itens.md").write_text(HEADER + "```quiz\n" + quiz + "```\n", encoding="utf-8")
    course = load_course(folder)
    return [f"{p.file.name}:{p.line}: {p.level}: {p.message}" for p in course.problems]


def balanced(qid: str, key: int) -> dict:
    """A clean single question whose key sits at ``key`` (0-based)."""
    options = [
        ("Opção um", "Explica a um."),
        ("Opção dois", "Explica a dois."),
        ("Opção três", "Explica a três."),
    ]
    return question(qid, options, [key])


def test_a_clean_question_says_nothing(tmp_path):
    assert warnings_of(tmp_path, question("limpa")) == []


def test_right_option_visibly_longest_warns_per_question(tmp_path):
    options = [
        ("Curta um", "Errado, é outra."),
        ("A resposta certa, bem mais longa que as outras", "Certo, por isso."),
        ("Curta dois", "Errado, é outra."),
    ]
    assert warnings_of(tmp_path, question("longa", options)) == [
        "01-itens.md:16: warning: pergunta `longa`: a opção certa é a mais longa, com 46 "
        "caracteres "
        "contra uma média de 9 nas outras (1,5× ou mais entrega a resposta)"
    ]


def test_right_option_a_little_longer_does_not_warn(tmp_path):
    options = [
        ("Uma opção errada curta", "Errado, é outra."),
        ("Opção certa um pouco maior", "Certo, por isso."),
        ("Outra opção errada aqui", "Errado, é outra."),
    ]
    assert warnings_of(tmp_path, question("quase", options)) == []


def test_key_longest_in_most_questions_is_summarised_per_lesson(tmp_path):
    def slightly(qid: str, key: int) -> dict:
        options = [
            ("Opção um", "Explica a um."),
            ("Opção dois", "Explica a dois."),
            ("Opção três", "Explica a três."),
        ]
        options[key] = ("Opção certa", "Explica a certa.")
        return question(qid, options, [key])

    found = warnings_of(tmp_path, slightly("p1", 0), slightly("p2", 1), balanced("p3", 2))
    assert found == [
        "01-itens.md:16: warning: a opção certa é a mais longa em 2 de 3 perguntas de uma resposta "
        "desta lição; quem escolhe a mais longa acerta"
    ]
    tmp = tmp_path / "outra"
    tmp.mkdir()
    assert warnings_of(tmp, slightly("p1", 0), balanced("p2", 1), balanced("p3", 2)) == []


def test_all_or_none_of_the_above_warns(tmp_path):
    options = [*FINE[:2], ("Nenhuma das anteriores", "Errado: o decode é uma delas.")]
    assert warnings_of(tmp_path, question("nenhuma", options)) == [
        "01-itens.md:16: warning: pergunta `nenhuma`: a opção `c` é “Nenhuma das anteriores”; "
        "opções do "
        "tipo “todas/nenhuma das anteriores” medem leitura, não conhecimento"
    ]


def test_an_option_that_only_starts_with_nenhuma_does_not_warn(tmp_path):
    options = [*FINE[:2], ("Nenhuma das duas fases", "Errado: o decode é uma delas.")]
    assert warnings_of(tmp_path, question("nenhuma", options)) == []


def test_negative_stem_not_in_bold_warns(tmp_path):
    prompt = "Qual fase não gera um token por passo?"
    assert warnings_of(tmp_path, question("negativa", prompt=prompt, answer=[0])) == [
        "01-itens.md:16: warning: pergunta `negativa`: o enunciado diz “não” sem negrito; escreva "
        "a "
        "palavra negativa como **não** para ninguém deixar passar"
    ]


def test_negative_stem_in_bold_does_not_warn(tmp_path):
    for i, prompt in enumerate(
        ["Qual fase **não** gera um token por passo?", "Todas as fases, **exceto** uma?"]
    ):
        tmp = tmp_path / str(i)
        tmp.mkdir()
        assert warnings_of(tmp, question("negativa", prompt=prompt, answer=[0])) == [], prompt


def test_fewer_than_three_options_warns(tmp_path):
    assert warnings_of(tmp_path, question("duas", FINE[:2])) == [
        "01-itens.md:16: warning: a pergunta `duas` tem 2 opções; dê a ela pelo menos 3, ou o "
        "chute "
        "fica fácil demais"
    ]


def test_duplicate_options_after_folding_case_and_accents_warn(tmp_path):
    options = [
        ("Tokenização", "Errado: vem antes."),
        ("Decode", "Certo: um token por passo."),
        ("TOKENIZACAO", "Errado: repetida."),
    ]
    assert warnings_of(tmp_path, question("repetidas", options)) == [
        "01-itens.md:16: warning: pergunta `repetidas`: as opções `a` e `c` são iguais ou quase "
        "iguais "
        "(ignorando maiúsculas e acentos)"
    ]


def test_near_duplicate_options_warn(tmp_path):
    options = [
        ("O decode acompanha a banda de memória.", "Certo: um token por passo."),
        ("O decode acompanha a banda da memória.", "Errado: parece, mas é a mesma."),
        ("O prefill acompanha o cálculo.", "Errado: é outra fase."),
    ]
    assert warnings_of(tmp_path, question("quase", options, [0])) == [
        "01-itens.md:16: warning: pergunta `quase`: as opções `a` e `b` são iguais ou quase iguais "
        "(ignorando maiúsculas e acentos)"
    ]


def test_short_names_and_different_numbers_are_not_duplicates(tmp_path):
    names = [
        ("MLX-LM", "Errado: nível mais baixo."),
        ("MLX-VLM", "Errado: visão."),
        ("vMLX", "Certo: aplicativo."),
    ]
    numbers = [
        ("Cerca de 50 tokens/s", "Certo: 500 ÷ 10."),
        ("Cerca de 500 tokens/s", "Errado: lote."),
        ("Cerca de 5.000 tokens/s", "Errado: multiplicou."),
    ]
    assert (
        warnings_of(tmp_path, question("nomes", names, [2]), question("numeros", numbers, [0]))
        == []
    )


def test_every_multiple_answer_question_with_the_same_number_of_right_options_warns(tmp_path):
    four = [*FINE, ("Amostragem", "Errado: não é fase.")]
    found = warnings_of(
        tmp_path, question("m1", four, [0, 1], "multiple"), question("m2", four, [1, 3], "multiple")
    )
    assert found == [
        "01-itens.md:16: warning: as 2 perguntas de várias respostas têm 2 opções certas cada; "
        "varie "
        "esse número para que contar não entregue nada"
    ]


def test_varied_number_of_right_options_does_not_warn(tmp_path):
    four = [*FINE, ("Amostragem", "Errado: não é fase.")]
    found = warnings_of(
        tmp_path,
        question("m1", four, [0, 1], "multiple"),
        question("m2", four, [0, 1, 3], "multiple"),
    )
    assert found == []


def test_explanation_that_only_repeats_its_option_warns(tmp_path):
    options = [FINE[0], ("Decode", "Certo. Decode."), FINE[2]]
    assert warnings_of(tmp_path, question("eco", options)) == [
        "01-itens.md:16: warning: pergunta `eco`: a explicação de `b` só repete a opção; diga por "
        "que "
        "ela está certa ou errada"
    ]


def test_explanation_that_adds_a_reason_does_not_warn(tmp_path):
    options = [FINE[0], ("Decode", "Certo. O decode gera um token por passo."), FINE[2]]
    assert warnings_of(tmp_path, question("eco", options)) == []


def test_empty_explanation_is_still_an_error_and_the_lesson_is_not_served(tmp_path):
    options = [FINE[0], ("Decode", ""), FINE[2]]
    folder_problems = warnings_of(tmp_path, question("vazia", options))
    assert [p.split(": ", 2)[1] for p in folder_problems] == ["error"]
    assert load_course(tmp_path / "lessons").lessons == ()


def test_key_position_skew_in_single_answer_questions_warns(tmp_path):
    found = warnings_of(tmp_path, balanced("p1", 0), balanced("p2", 0), balanced("p3", 1))
    assert found == [
        "01-itens.md:16: warning: a resposta é a opção número 1 em 2 de 3 perguntas de uma "
        "resposta; "
        "a página embaralha as opções, mas uma cópia impressa mostra o padrão"
    ]


def test_keys_spread_over_positions_do_not_warn(tmp_path):
    assert warnings_of(tmp_path, balanced("p1", 0), balanced("p2", 1), balanced("p3", 2)) == []


def test_the_course_passes_curso_check_strict_with_the_item_checks():
    assert load_course(REPO_LESSONS).problems == ()
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "check", "--strict", "lessons/"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=PROJECT_ROOT,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "3 lições válidas, nenhum problema.")


def test_strict_fails_on_an_item_warning(tmp_path):
    warnings_of(tmp_path, question("duas", FINE[:2]))
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "check", "--strict", str(tmp_path / "lessons")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=PROJECT_ROOT,
    )
    assert done.returncode == 1
    assert "a pergunta `duas` tem 2 opções" in done.stdout


@pytest.fixture
def flawed_course(tmp_path: Path, database_url: str):
    """A lesson with one clean question and one with two item-writing flaws."""
    from fastapi.testclient import TestClient

    from app.main import create_app
    from tests.support.app import make_settings

    warnings_of(
        tmp_path, question("limpa"), question("falha", FINE[:2], prompt="Qual fase não é lenta?")
    )
    settings = make_settings(tmp_path, tmp_path / "lessons", database_url)
    return settings, TestClient(create_app(settings))


def test_the_preview_shows_each_questions_warnings_next_to_it(flawed_course):
    from tests.support.accounts import instructor
    from tests.support.html import soup, text

    settings, client = flawed_course
    page = soup(instructor(client, settings).get("/instrutor/licoes/itens"))
    flawed = page.select_one("#pergunta-falha")
    box = flawed.select_one(".item-warnings")
    assert box["aria-label"] == "Avisos de redação desta pergunta"
    assert text(box.select_one(".item-warnings-title")) == "2 avisos de redação"
    assert [text(li.select_one(".check-message")) for li in box.select("li")] == [
        "pergunta `falha`: o enunciado diz “não” sem negrito; escreva a palavra negativa como "
        "**não** "
        "para ninguém deixar passar",
        "a pergunta `falha` tem 2 opções; dê a ela pelo menos 3, ou o chute fica fácil demais",
    ]
    assert page.select_one("#pergunta-limpa .item-warnings") is None
    listed = [text(li) for li in page.select(".check-panel .check-list li")]
    assert len(listed) == 2 and all(" aviso " in line for line in listed), (
        "o painel do topo lista os mesmos"
    )


def test_numeric_and_ordering_questions_have_no_options_to_warn_about(tmp_path):
    numeric = {
        "id": "ganho",
        "kind": "numeric",
        "prompt": "Quantas vezes mais rápido? Responda com vírgula, uma ou duas casas decimais.",
        "value": 4.41,
        "tolerance": 0.1,
        "working": "64 ÷ 14,5 ≈ 4,41",
        "explanation": "A razão do depois pelo antes.",
    }
    ordering = {
        "id": "ordem",
        "kind": "ordering",
        "prompt": "Ponha as etapas em ordem.",
        "items": [
            {"id": "a", "text": "dev"},
            {"id": "b", "text": "staging"},
            {"id": "c", "text": "prod"},
        ],
        "explanation": "Do notebook ao cluster.",
    }
    assert warnings_of(tmp_path, numeric, ordering, balanced("q1", 0), balanced("q2", 1)) == []


def test_absolute_word_in_a_wrong_option_while_the_key_has_none_warns(tmp_path):
    options = [
        ("O prefill nunca depende da banda.", "Errado: depende pouco, não nada."),
        ("O decode acompanha a banda de memória.", "Certo: lê todos os pesos a cada token."),
        ("Só o prefill lê os pesos.", "Errado: o decode lê todos os pesos a cada passo."),
    ]
    assert warnings_of(tmp_path, question("absoluta", options)) == [
        "01-itens.md:16: warning: pergunta `absoluta`: a opção errada `a` diz “nunca”, e nenhuma "
        "opção certa tem uma palavra absoluta; quem evita as opções absolutas acerta sem saber "
        "por quê",
        "01-itens.md:16: warning: pergunta `absoluta`: a opção errada `c` diz “só”, e nenhuma "
        "opção certa tem uma palavra absoluta; quem evita as opções absolutas acerta sem saber "
        "por quê",
    ]


def test_absolute_words_balanced_by_a_key_or_not_absolute_do_not_warn(tmp_path):
    balanced_key = [
        ("Porque ele só roda em CPU.", "Errado: é um engine para GPU NVIDIA."),
        ("Porque ele só roda em GPU NVIDIA.", "Certo: o TRT-LLM é restrito à NVIDIA."),
        ("Porque ele entrou em modo de manutenção.", "Errado: quem entrou foi o TGI."),
    ]
    not_absolute = [
        ("Uma RTX só → ExLlamaV3", "Errado: o guia indica o ExLlamaV2."),
        ("Notebook ou borda → llama.cpp", "Certo: roda em quase qualquer coisa."),
        ("Roda em quase qualquer coisa → TGI", "Errado: essa é a linha do llama.cpp."),
    ]
    found = warnings_of(
        tmp_path, question("com-chave", balanced_key), question("nao-absoluta", not_absolute)
    )
    assert found == []


def test_absolute_words_in_a_multiple_answer_question_count_every_right_option(tmp_path):
    four = [
        ("Ele nunca teve boa observabilidade.", "Errado: teve, historicamente."),
        ("Ele recebe correções de bugs.", "Certo: é o modo de manutenção."),
        ("Ele fica ~10% atrás do vLLM.", "Certo: em vazão bruta."),
        ("SGLang e vLLM são mais seguros.", "Certo: para projetos novos."),
    ]
    found = warnings_of(tmp_path, question("tgi", four, [1, 2, 3], "multiple"))
    assert len(found) == 1 and "pergunta `tgi`: a opção errada `a` diz “nunca”," in found[0]


def test_apenas_and_jamais_are_absolute_words(tmp_path):
    """Issue 37: "apenas" was missing from the list (review §3: 3 keys, 1 distractor)."""
    options = [
        ("O TGI recebe apenas correções de bugs.", "Errado aqui: a pergunta é sobre o vLLM."),
        ("O vLLM é o padrão de produção para uso geral.", "Certo: é o que o texto diz."),
        ("O SGLang jamais roda em GPU AMD.", "Errado: o texto diz que ele também funciona."),
    ]
    found = warnings_of(tmp_path, question("apenas", options))
    assert [f.split(": ", 2)[2].split(",")[0] for f in found] == [
        "pergunta `apenas`: a opção errada `a` diz “apenas”",
        "pergunta `apenas`: a opção errada `c` diz “jamais”",
    ]


def test_right_options_of_a_multiple_answer_question_visibly_longer_warn(tmp_path):
    """Issue 37, C9: the right statements of `numeros` were the long, detailed ones."""
    options = [
        (
            "O Ollama é ~15–30% mais lento que o llama.cpp e fica 3× atrás sob carga.",
            "Certo: são os dois números do texto.",
        ),
        (
            "A v0.15.1 do vLLM saiu em fevereiro de 2026, com PyTorch 2.10 e SM120.",
            "Certo: e otimização para H200.",
        ),
        ("O SGLang roda em 40.000 GPUs.", "Errado: são mais de 400.000."),
        ("O TGI parou em 2024.", "Errado: em 11 de dezembro de 2025."),
    ]
    found = warnings_of(tmp_path, question("numeros", options, [0, 1], "multiple"))
    assert found == [
        "01-itens.md:16: warning: pergunta `numeros`: as opções certas têm em média 71 "
        "caracteres, contra 24 nas erradas (1,5× ou mais as entrega); dê às erradas o mesmo "
        "detalhe"
    ]
    options[2] = ("O SGLang roda em mais de 40.000 GPUs, na xAI e no LinkedIn.", options[2][1])
    options[3] = ("O TGI entrou em manutenção em 11 de dezembro de 2024, com bugs.", options[3][1])
    assert warnings_of(tmp_path, question("numeros", options, [0, 1], "multiple")) == []


def test_a_key_that_is_the_centroid_of_its_distractors_warns(tmp_path):
    """Issue 37, C8: each wrong option one swap away from the key, so the key is the mode."""
    options = [
        ("dev = llama.cpp, staging = Ollama, prod = vLLM", "Errado: os dois primeiros trocados."),
        ("dev = Ollama, staging = vLLM, prod = llama.cpp", "Errado: os dois últimos trocados."),
        ("dev = Ollama, staging = llama.cpp, prod = TensorRT-LLM", "Errado: e a AMD?"),
        ("dev = Ollama, staging = llama.cpp, prod = vLLM", "Certo: é o pipeline do texto."),
    ]
    found = warnings_of(tmp_path, question("pipeline", options, [3]))
    assert found == [
        "01-itens.md:16: warning: pergunta `pipeline`: em cada uma das partes, a opção certa tem "
        "o valor que mais opções repetem; as erradas são trocas de uma parte dela, e a resposta "
        "é a opção do meio: varie mais as erradas"
    ]
    spread = [
        ("dev = llama.cpp, staging = vLLM, prod = vLLM ou SGLang", "Errado: dev e staging."),
        ("dev = llama.cpp, staging = llama.cpp, prod = TGI ou vLLM", "Errado: dev e prod."),
        ("dev = Ollama, staging = vLLM, prod = TGI ou vLLM", "Errado: staging e prod."),
        ("dev = Ollama, staging = llama.cpp, prod = vLLM ou SGLang", "Certo: é o do texto."),
    ]
    assert warnings_of(tmp_path, question("pipeline", spread, [3])) == []


def test_a_stem_word_only_the_key_repeats_warns(tmp_path):
    """Issue 37, C6: only the key of `frota-mista` said "AMD", like the prompt."""
    prompt = "Você tem 8 MI300X da AMD. Qual engine o texto indica?"
    options = [
        ("TensorRT-LLM, de primeira linha em Hopper.", "Errado: só roda em NVIDIA."),
        ("vLLM, com suporte a AMD ROCm.", "Certo: GPU AMD → vLLM."),
        ("TGI, pela integração com o Hugging Face.", "Errado: está em manutenção."),
    ]
    found = warnings_of(tmp_path, question("frota", options, [1], prompt=prompt))
    assert found == [
        "01-itens.md:16: warning: pergunta `frota`: só as opções certas repetem “amd” do "
        "enunciado; dá para acertar casando palavras, sem saber a resposta"
    ]
    options[2] = ("SGLang, que também funciona em AMD.", "Errado: funciona, mas o texto…")
    assert warnings_of(tmp_path, question("frota", options, [1], prompt=prompt)) == []


def ordering(qid: str, *texts: str) -> dict:
    return {
        "id": qid,
        "kind": "ordering",
        "prompt": "Ponha as etapas na ordem.",
        "items": [{"id": f"e{i}", "text": t} for i, t in enumerate(texts, 1)],
        "explanation": "É a ordem do texto.",
    }


def test_ordering_items_that_tell_their_position_warn(tmp_path):
    told = ordering(
        "ordem",
        "Mac em primeiro lugar? → MLX",
        "dev: Ollama",
        "2. staging com llama.cpp",
        "Por fim, produção geral",
    )
    assert warnings_of(tmp_path, told) == [
        "01-itens.md:16: warning: pergunta `ordem`: a etapa `e1` diz “primeiro”, o que entrega a "
        "posição dela; a ordem deve ser aprendida, não lida nas etapas",
        "01-itens.md:16: warning: pergunta `ordem`: a etapa `e2` diz “dev:”, o que entrega a "
        "posição dela; a ordem deve ser aprendida, não lida nas etapas",
        "01-itens.md:16: warning: pergunta `ordem`: a etapa `e3` diz “2.”, o que entrega a "
        "posição dela; a ordem deve ser aprendida, não lida nas etapas",
        "01-itens.md:16: warning: pergunta `ordem`: a etapa `e4` diz “por fim”, o que entrega a "
        "posição dela; a ordem deve ser aprendida, não lida nas etapas",
    ]


def test_ordering_items_that_only_name_things_do_not_warn(tmp_path):
    plain = ordering("ordem", "Ollama", "llama.cpp", "vLLM", "Produção geral → vLLM")
    assert warnings_of(tmp_path, plain) == []


def numeric(qid: str, prompt: str, value: float) -> dict:
    return {
        "id": qid,
        "kind": "numeric",
        "prompt": prompt,
        "value": value,
        "tolerance": "3%",
        "working": "110 ÷ 32 ≈ 3,44",
        "explanation": "O depois dividido pelo antes.",
    }


def test_a_decimal_value_whose_prompt_does_not_say_how_to_write_it_warns(tmp_path):
    found = warnings_of(tmp_path, numeric("ganho", "Quantas vezes mais rápido ficou?", 3.44))
    assert found == [
        "01-itens.md:16: warning: pergunta `ganho`: o valor certo 3,44 tem casas decimais, e o "
        "enunciado não diz para escrevê-lo com vírgula; diga “com vírgula, uma ou duas casas "
        "decimais”: o ponto é lido como separador de milhar (“3.438” vira 3438 aqui, e um "
        "Moodle em português lê “4.41” como 441)"
    ]


def test_decimal_places_without_the_comma_still_warn(tmp_path):
    """Issue 36: ganho-3090 said "uma ou duas casas decimais" only; "4.41" is 441 in Moodle."""
    found = warnings_of(
        tmp_path, numeric("casas", "Quantas vezes? Responda com uma ou duas casas decimais.", 4.41)
    )
    assert [f.split(": ", 2)[2].split(";")[0] for f in found] == [
        "pergunta `casas`: o valor certo 4,41 tem casas decimais, e o enunciado não diz para "
        "escrevê-lo com vírgula"
    ]


def test_a_numeric_prompt_that_says_how_to_write_it_or_a_whole_value_does_not_warn(tmp_path):
    found = warnings_of(
        tmp_path,
        numeric(
            "virgula", "Quantas vezes? Responda com vírgula, uma ou duas casas decimais.", 3.44
        ),
        numeric("casas", "Quantas vezes? Use **uma casa decimal, com vírgula**.", 3.4),
        numeric("inteiro", "Quantos tokens/s?", 50),
    )
    assert found == []
