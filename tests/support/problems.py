"""Broken lesson fragments and the message ``curso check`` gives for each, word for word.

The content, tree, glossary and link tests run them; tests/test_i18n.py checks each message
has its translation."""

from __future__ import annotations


def broken(valid: str, old: str, new: str) -> str:
    """``valid`` with its first ``old``, which must be there, replaced by ``new``: a fragment of
    one of the lists below put in place."""
    assert old in valid, old
    return valid.replace(old, new, 1)


QUIZ_AND_HEADER_PROBLEMS = [
    (
        "      explanation: Certo, o decode acompanha a banda.\n",
        "",
        "licao.md:27:7: error: campo obrigatório ausente: `explanation`",
    ),
    (
        "  answer: [b]",
        "  answer: [z]",
        "licao.md:33:12: error: a resposta `z` da pergunta `fase-banda` não é uma opção; opções: "
        "a, b, c",
    ),
    (
        "  answer: [b]",
        "  answer: [a, b]",
        "licao.md:33:3: error: a pergunta `fase-banda` é `single` e precisa de exatamente uma "
        "resposta correta (tem 2); use `kind: multiple` para várias",
    ),
    (
        "  kind: single",
        "  kind: unica",
        "licao.md:21:3: error: `kind` deve ser um destes valores: 'single', 'multiple', "
        "'scenario', 'numeric' ou 'ordering'",
    ),
    (
        "    - id: b\n",
        "    - id: a\n",
        "licao.md:27:7: error: a pergunta `fase-banda` repete o id de opção `a`",
    ),
    (
        "  prompt: Qual fase",
        "  prompt: [Qual fase",
        "licao.md:22:11: error: YAML inválido: uma lista `[...]` não foi fechada com `]`",
    ),
    ("minutes: 10\n", "", "licao.md:2:1: error: campo obrigatório ausente: `minutes`"),
    ("order: 1", "order: primeira", "licao.md:4:1: error: `order` deve ser um número inteiro"),
    (
        "slug: decode-prefill",
        "slug: Decode Prefill",
        "licao.md:3:1: error: `slug` só aceita letras minúsculas sem acento, números e hífens "
        "(ex.: `minha-licao`)",
    ),
    (
        "summary: As duas",
        "sumary: As duas",
        "licao.md:2:1: error: campo obrigatório ausente: `summary`",
    ),
]


MARKDOWN_AND_YAML_PROBLEMS = [
    (
        "```quiz",
        "```Quiz",
        "licao.md:19:1: error: bloco `Quiz`: escreva `quiz`, em minúsculas e com hífen",
    ),
    (
        "::: danger Não faça isso",
        "::: note Não faça isso",
        "licao.md:15:1: error: caixa `:::` desconhecida ou malformada; os tipos são `tip`, "
        "`warning`, `danger`, e ela fecha com uma linha `:::`",
    ),
    (
        "## Duas fases",
        "# Duas fases",
        "licao.md:11:1: error: use `##` e `###` no corpo da lição; o título (`#`) vem do campo "
        "`title` do cabeçalho",
    ),
    (
        "## Duas fases",
        "## Conteúdo",
        "licao.md:11:1: error: o título gera a âncora `#conteudo`, que a página já usa; mude o "
        "texto do título",
    ),
    (
        "  answer: [b]\n```\n",
        "  answer: [b]\n",
        "licao.md:19:1: error: o bloco `quiz` não foi fechado (falta a linha ``` no fim)",
    ),
    (
        "minutes: 10",
        "minutes: [10",
        "licao.md:6:10: error: YAML inválido: uma lista `[...]` não foi fechada com `]`",
    ),
    ("minutes: 10", "minutes: true", "licao.md:6:1: error: `minutes` deve ser um número inteiro"),
    (
        "      text: Prefill",
        "\ttext: Prefill",
        "licao.md:25:1: error: YAML inválido: há uma tabulação; em YAML, indente só com espaços",
    ),
    # A misindented line is named, not the start of the list or mapping around it (24, 20).
    (
        "      explanation: Certo, o decode",
        "     explanation: Certo, o decode",
        "licao.md:29:6: error: YAML inválido: a indentação não bate com a das linhas anteriores",
    ),
    (
        "  answer: [b]",
        " answer: [b]",
        "licao.md:33:2: error: YAML inválido: a indentação não bate com a das linhas anteriores",
    ),
]


TREE_PROBLEMS = [
    (  # the misindented line, not the options list that holds it (33)
        "        next: r-vllm",
        "       next: r-vllm",
        "licao.md:38:8: error: YAML inválido: a indentação não bate com a das linhas anteriores",
    ),
    (
        "        next: r-vllm",
        "        next: r-gpu",
        "licao.md:38:9: error: `next: r-gpu` não existe nesta árvore (pergunta `scale`)",
    ),
    (
        "        next: r-vllm",
        "        next: hw",
        "licao.md:38:9: error: ciclo na árvore: hw → scale → hw",
    ),
    (
        "        next: scale\n",
        "        next: r-cpu\n",
        "licao.md:29:3: error: a pergunta `scale` é inalcançável: nenhuma opção leva a ela",
    ),
    (
        "        next: r-vllm",
        "        next: r-cpu",
        "licao.md:44:3: error: o resultado `r-vllm` é inalcançável: nenhuma opção leva a ele",
    ),
    (
        "      - label: Muitos\n        value: many\n        next: r-vllm\n",
        "",
        "licao.md:32:5: error: a pergunta `scale` precisa de pelo menos duas opções (tem 1)",
    ),
    (
        "        value: many",
        "        value: one",
        "licao.md:37:9: error: o valor `one` aparece duas vezes na pergunta `scale`",
    ),
    (
        "start: hw",
        "start: r-cpu",
        "licao.md:17:1: error: `start` aponta para `r-cpu`, que não é uma pergunta desta árvore",
    ),
    (
        "    verdict: alternative",
        "    verdict: talvez",
        "licao.md:46:5: error: `verdict` deve ser um destes valores: 'recommended', 'alternative' "
        "ou 'avoid'",
    ),
    (
        "        value: cpu",
        "        value: CPU Só",
        "licao.md:24:9: error: `value`: o valor `CPU Só` só pode ter letras minúsculas sem "
        "acento, números e hífens",
    ),
    ("    facet: scale\n", "", "licao.md:29:3: error: campo obrigatório ausente: `facet`"),
    (
        "        next: r-vllm",
        "        next: scale",
        "licao.md:38:9: error: ciclo na árvore: scale → scale",
    ),
    (
        "        next: r-cpu\n      - label: GPU",
        "        next: hw\n      - label: GPU",
        "licao.md:25:9: error: ciclo na árvore: hw → hw",
    ),
    (
        "    facet: scale\n",
        "    facet: scale\n    facet: outra\n",
        "licao.md:31:5: error: YAML inválido: a chave `facet` aparece duas vezes",
    ),
]


SCENARIO_PROBLEMS = [
    (
        "    scale: many\n",
        "",
        "o cenário da pergunta `cenario` não chega a um resultado: falta o fato `scale` para "
        "responder à pergunta `scale` da árvore `mini`",
    ),
    (
        "    scale: many",
        "    scale: dezenas",
        "o cenário da pergunta `cenario` não chega a um resultado: `scale: dezenas` não "
        "corresponde a nenhuma opção da pergunta `scale` da árvore `mini` (valores: one, many)",
    ),
    (
        "  tree: mini",
        "  tree: outra",
        "a pergunta `cenario` cita a árvore `outra`, que não existe no curso",
    ),
    (
        "    scale: many",
        "    scale: many\n    workload: chat",
        "o cenário da pergunta `cenario` dá fatos que a árvore `mini` não usa neste caminho: "
        "workload; apague-os ou confira a árvore",
    ),
    (
        "      engine: vLLM",
        "      engine: TGI",
        "a árvore `mini` leva a pergunta `cenario` ao resultado `r-vllm` (vLLM), e nenhuma opção "
        "da pergunta tem `engine: vLLM`; é preciso exatamente uma",
    ),
]


CHART_PROBLEMS = [
    ("    after: 64", "    after: .inf", "`after` deve ser um número finito"),
    ("    before: 14.5", "    before: muito", "`before` deve ser um número"),
]


LINK_PROBLEMS = [
    (
        "Veja [isto](#nada).",
        "01-a.md:36:13: warning: o link `#nada` não leva a nenhum título desta lição",
    ),
    (
        "Veja [isto](/licoes/sumiu).",
        "01-a.md:36:13: warning: o link `/licoes/sumiu` não leva a nenhuma lição do curso",
    ),
    (
        "Veja [isto](sumiu).",
        "01-a.md:36:13: warning: o link `sumiu` não leva a nenhuma lição do curso",
    ),
    (
        "Veja [isto](/licoes/outra#nada).",
        "01-a.md:36:13: warning: o link `/licoes/outra#nada` não leva a nenhum título da lição "
        "`outra`",
    ),
    (
        "Veja [isto](/arvores/sumiu).",
        "01-a.md:36:13: warning: o link `/arvores/sumiu` não leva a nenhuma árvore de decisão do "
        "curso",
    ),
    (
        "Veja [isto](02-b.md#duas-fases).",
        "01-a.md:36:13: warning: o link `02-b.md#duas-fases` aponta para o arquivo da lição; no "
        "site, use `/licoes/outra#duas-fases`",
    ),
    (
        "Veja [isto](09-nada.md).",
        "01-a.md:36:13: warning: o link `09-nada.md` aponta para um arquivo que não existe em "
        "lessons/",
    ),
    (
        "Texto.\n\n![Gráfico](imagens/falta.png)",
        "01-a.md:38:12: warning: a imagem `imagens/falta.png` não existe (procurei em "
        "lessons/imagens/falta.png)",
    ),
    (
        "![Gráfico](https://exemplo.org/g.png)",
        "01-a.md:36:12: warning: a imagem `https://exemplo.org/g.png` vem de outro site, e a "
        "política de segurança do curso bloqueia imagens externas; copie-a para lessons/imagens/",
    ),
    (
        "![Gráfico](figura.png)",
        "01-a.md:36:12: warning: a imagem `figura.png` fica fora de lessons/imagens/, a pasta de "
        "imagens publicada com as lições; mova-a para lá e escreva `imagens/nome.png`",
    ),
    (
        "![Gráfico](imagens/../../segredo.png)",
        "01-a.md:36:12: warning: a imagem `imagens/../../segredo.png` fica fora de "
        "lessons/imagens/, a pasta de imagens publicada com as lições; mova-a para lá e escreva "
        "`imagens/nome.png`",
    ),
    (
        "![Página](imagens/pagina.html)",
        "01-a.md:36:11: warning: a imagem `imagens/pagina.html` não é PNG, JPEG, GIF, WebP, AVIF "
        "nem SVG, os únicos tipos que o site serve de lessons/imagens/",
    ),
    (
        "![Logo](/static/nao-existe.svg)",
        "01-a.md:36:9: warning: a imagem `/static/nao-existe.svg` não existe (procurei em "
        "static/nao-existe.svg)",
    ),
    (
        "| a | b |\n|---|---|\n| x | [y](#nada) |",
        "01-a.md:38:11: warning: o link `#nada` não leva a nenhum título desta lição",
    ),
    (
        "Um [link](#duas-fases) e [outro](#nada).",
        "01-a.md:36:34: warning: o link `#nada` não leva a nenhum título desta lição",
    ),
]


GLOSSARY_PROBLEMS = [
    (
        "  definition: Rotina de baixo nível que computa uma operação.\n",
        "",
        "glossario.yml:1: campo obrigatório ausente: `definition`",
    ),
    (
        "- term: KV cache",
        "- term: Kernels",
        "glossario.yml:3: `Kernels` já está no glossário, no termo `kernel`",
    ),
    (
        "[cache dos valores-chave]",
        "[kernel]",
        "glossario.yml:4: `kernel` já está no glossário, no termo `kernel`",
    ),
    ("  aliases:", "  sinonimos:", "glossario.yml:4: campo desconhecido: `sinonimos`"),
    (
        "- term: kernel",
        "- term: [kernel",
        "glossario.yml:1: YAML inválido: uma lista `[...]` não foi fechada com `]`",
    ),
    ("- term: kernel", "- term: '—'", "glossario.yml:1: `—` não tem letras nem números"),
    (
        "O cache dos valores-chave do modelo.",
        "x" * 400,
        "glossario.yml:5: a definição de `KV cache` tem 400 caracteres; o glossário guarda "
        "definições curtas (até 320)",
    ),
]
