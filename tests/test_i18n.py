"""Every text a learner reads comes from the pt-BR catalog; dates show in the learner's zone."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from app.i18n import CATALOG, gettext, local_datetime, ngettext
from app.platform.settings import PROJECT_ROOT
from tests.support.app import REPO_LESSONS
from tests.support.cli import cli_runner

METHODS = [("app/**.py", "python"), ("templates/**.html", "jinja2")]
VISIBLE_ATTRIBUTES = {"aria-label", "title", "placeholder", "alt", "data-announce"}
LETTER = re.compile(r"[^\W\d_]")
JINJA = re.compile(r"{#.*?#}|{%-?\s*trans\b.*?{%-?\s*endtrans\s*-?%}|{%.*?%}|{{.*?}}", re.S)
DYNAMIC_TAG = re.compile(r"<(/?){{.*?}}")  # <{{ heading }} ...>: a tag whose name is a variable


def used_ids() -> set:
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        PROJECT_ROOT,
        method_map=METHODS,
        keywords={"_": None, "gettext": None, "ngettext": (1, 2), "N_": None},
    ):
        found.add(message if isinstance(message, str) else tuple(message))
    return found


def catalog():
    with CATALOG.open("rb") as handle:
        return read_po(handle)


def test_every_message_in_the_code_has_its_portuguese_text():
    entries = {message.id: message.string for message in catalog() if message.id}
    translated = {
        m
        for m, text in entries.items()
        if text and (all(text) if isinstance(text, tuple) else True)
    }
    assert used_ids() - translated == set()


def test_the_catalog_holds_no_message_the_code_no_longer_uses():
    unused = {message.id for message in catalog() if message.id} - used_ids()
    assert unused == set()


class _BareText(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.found.extend(
            f"{tag}[{k}]={v!r}"
            for k, v in attrs
            if k in VISIBLE_ATTRIBUTES and v and LETTER.search(v)
        )

    def handle_data(self, data):
        if LETTER.search(data):
            self.found.append(data.strip())


def test_templates_have_no_text_outside_the_catalog():
    bare = {}
    for path in sorted((PROJECT_ROOT / "templates").glob("*.html")):
        parser = _BareText()
        source = DYNAMIC_TAG.sub(r"<\1x-tag", path.read_text(encoding="utf-8"))
        parser.feed(JINJA.sub(" ", source))
        if parser.found:
            bare[path.name] = parser.found
    assert bare == {}


def test_messages_read_in_portuguese():
    assert gettext("Skip to content") == "Pular para o conteúdo"
    assert ngettext("%(num)s question", "%(num)s questions", 1) % {"num": 1} == "1 pergunta"
    assert ngettext("%(num)s question", "%(num)s questions", 7) % {"num": 7} == "7 perguntas"
    attempts = [ngettext("%(num)s attempt", "%(num)s attempts", n) % {"num": n} for n in (0, 1, 2)]
    assert attempts == ["0 tentativas", "1 tentativa", "2 tentativas"], "0 reads plural in pt-BR"


def test_dates_are_stored_in_utc_and_shown_in_the_learners_zone():
    stored = datetime(2026, 3, 5, 17, 5)  # naive, as SQLite returns it: UTC
    assert local_datetime(stored, "America/Sao_Paulo") == "5 de março de 2026, 14:05"
    assert local_datetime(stored, "America/Manaus") == "5 de março de 2026, 13:05"
    assert local_datetime(stored, "Europe/Lisbon") == "5 de março de 2026, 17:05"
    assert local_datetime(stored, "../../etc/passwd") == "5 de março de 2026, 14:05", (
        "zona desconhecida: São Paulo"
    )
    assert local_datetime(stored, None) == "5 de março de 2026, 14:05"


def english_ids() -> set[str]:
    """Message ids (with a space, no placeholder) whose Portuguese text differs from the id."""
    return {
        m.id
        for m in catalog()
        if isinstance(m.id, str) and m.id and "%" not in m.id and m.id != m.string and " " in m.id
    }


def test_pages_show_no_untranslated_message(client):
    """A message id the extractor missed (say, inside an f-string) would show up in English."""
    english = english_ids()
    pages = [
        "/",
        "/licoes/kernels",
        "/busca?q=kernel",
        "/glossario",
        "/arvores",
        "/arvores/comparar?hardware=apple",
        "/arvores/guia-osman?c=hopper,convenience",
        "/licoes/nao-existe",
    ]
    for url in pages:
        html = client.get(url).text
        assert [m for m in english if m in html] == [], url


def test_instructor_pages_show_no_untranslated_message(client, settings):
    from tests.support.accounts import INSTRUCTOR_TABS, instructor
    from tests.support.learning import KERNELS, answer

    first = next(iter(KERNELS.questions.values()))
    answer(client, "kernels", first.id, sorted(first.answer))
    teacher = instructor(client, settings)
    english = english_ids()
    for url in [
        *INSTRUCTOR_TABS,
        "/instrutor/licoes/escolha-self-hosted",
        "/licoes/kernels",
        "/instrutor/licoes/nao-existe",
    ]:
        html = teacher.get(url).text
        assert [m for m in english if m in html] == [], url
    questions = teacher.get("/instrutor/perguntas").text
    assert "Escolhas na primeira tentativa" in questions and "1 escolha (100%)" in questions
    files = teacher.get("/instrutor/arquivos").text
    assert "Lições no ar: 3. Nenhum problema nos arquivos:" in files


# --- `curso check`, `curso arvore` and the other commands: every sentence from the catalog ---
#
# The catalog is swapped for a marked copy: each translated text comes back as ⟪text⟫ and
# each value put into it as ⟦value⟧. Whatever a command prints outside ⟪⟫ did not come from
# the catalog: a bare Portuguese literal, or an English id missing from it, shows up there.

OPEN, CLOSE, VALUE_OPEN, VALUE_CLOSE = "⟪", "⟫", "⟦", "⟧"


class Marked(str):
    """A text from the catalog; the values ``%`` puts into it are marked too."""

    def __mod__(self, values):
        if isinstance(values, dict):
            values = {key: f"{VALUE_OPEN}{value}{VALUE_CLOSE}" for key, value in values.items()}
        return str.__mod__(self, values)


class MarkedTranslations:
    """The pt-BR catalog, with every translated text marked; a message it lacks stays bare."""

    def __init__(self, real):
        self.real = real
        self.translated = {
            m.id
            for m in catalog()
            if m.id and m.string and (isinstance(m.string, str) or all(m.string))
        }

    def gettext(self, message):
        if message not in self.translated:
            return message
        return Marked(OPEN + self.real.gettext(message) + CLOSE)

    def ngettext(self, singular, plural, count):
        if (singular, plural) not in self.translated:
            return singular if count == 1 else plural
        return Marked(OPEN + self.real.ngettext(singular, plural, count) + CLOSE)


@pytest.fixture
def marked_catalog(monkeypatch):
    """Run the app's gettext through :class:`MarkedTranslations`."""
    import app.i18n

    marked = MarkedTranslations(app.i18n.translations())
    monkeypatch.setattr(app.i18n, "translations", lambda: marked)


def outside_the_catalog(text: str, data: Iterable[str] = ()) -> str:
    """What of ``text`` no catalog text accounts for: outside every ⟪⟫, without the ``data``."""
    pieces, stack = [], []
    for char in text:
        if char in (OPEN, VALUE_OPEN):
            stack.append(char)
            pieces.append("\n")
        elif char in (CLOSE, VALUE_CLOSE):
            stack.pop()
            pieces.append("\n")
        elif not stack:
            pieces.append(char)
    bare = "".join(pieces)
    for word in sorted(data, key=len, reverse=True):
        bare = bare.replace(word, "\n")
    return bare


def has_words(text: str) -> bool:
    return bool(LETTER.search(text))


def broken_courses(root: Path) -> list[Path]:
    """One lessons folder per broken lesson of the suite's corpus (and a few more)."""
    from tests.support.lessons import GOOD, HEADER, SCENARIO, TREE, VALID, folder_with
    from tests.support.problems import (
        CHART_PROBLEMS,
        GLOSSARY_PROBLEMS,
        LINK_PROBLEMS,
        MARKDOWN_AND_YAML_PROBLEMS,
        QUIZ_AND_HEADER_PROBLEMS,
        SCENARIO_PROBLEMS,
        TREE_PROBLEMS,
    )

    chart = (REPO_LESSONS / "01-kernels.md").read_text(encoding="utf-8")
    chart = chart[chart.index("```chart") : chart.index("```", chart.index("```chart") + 3) + 3]
    single = GOOD.replace("  kind: single\n", "  kind: single\n  tree: mini\n")
    cases: list[dict[str, str | bytes]] = [
        *({"licao.md": GOOD.replace(old, new, 1)} for old, new, _ in QUIZ_AND_HEADER_PROBLEMS),
        *({"licao.md": GOOD.replace(old, new, 1)} for old, new, _ in MARKDOWN_AND_YAML_PROBLEMS),
        *({"licao.md": HEADER + TREE.replace(old, new, 1)} for old, new, _ in TREE_PROBLEMS),
        *(
            {"licao.md": HEADER + TREE + SCENARIO.replace(old, new, 1)}
            for old, new, _ in SCENARIO_PROBLEMS
        ),
        *({"licao.md": HEADER + chart.replace(old, new)} for old, new, _ in CHART_PROBLEMS),
        *(
            {"01-boa.md": GOOD, "glossario.yml": VALID.replace(old, new, 1)}
            for old, new, _ in GLOSSARY_PROBLEMS
        ),
        {"licao.md": "# Sem cabeçalho\n"},
        {"licao.md": "---\ntitle: Sem fim\n"},
        {"licao.md": "---\n- uma lista\n---\n"},
        {"licao.md": "---\ntitle: ação\n---\n".encode("latin-1")},
        {"licao.md": GOOD.replace("slug: decode-prefill", "slug: " + "a" * 101)},
        {"licao.md": GOOD.replace("minutes: 10", "minutes: 0")},
        {"licao.md": GOOD.replace("minutes: 10", "minutes: 10\nautor: Ana")},
        {"licao.md": GOOD.replace("- id: fase-banda", "id: fase-banda").replace("\n  ", "\n")},
        {"licao.md": GOOD + "\n```quiz\n" + GOOD.split("```quiz\n")[1]},
        {"licao.md": GOOD + "\n- Um item:\n\n  ```quiz\n  - id: x\n  ```\n"},
        {"licao.md": GOOD.replace("  answer: [b]\n", "")},
        {
            "licao.md": GOOD.replace("kind: single", "kind: multiple").replace(
                "answer: [b]", "answer: [b, b]"
            )
        },
        {
            "licao.md": GOOD.replace(
                "    - id: b\n      text: Decode\n"
                "      explanation: Certo, o decode acompanha a banda.\n",
                "",
            )
        },
        {"licao.md": HEADER + TREE + single.split("## Duas fases")[1]},
        {
            "licao.md": HEADER
            + TREE
            + SCENARIO.replace("  tree: mini", "  answer: [a]\n  tree: mini")
        },
        {"licao.md": HEADER + TREE + SCENARIO.replace("      engine: vLLM\n", "")},
        {
            "licao.md": HEADER
            + TREE
            + SCENARIO.replace("      engine: llama.cpp", "      engine: vLLM")
        },
        {"licao.md": HEADER + "```decision-tree\n- uma lista\n```\n"},
        {"licao.md": HEADER + TREE + "\n" + TREE},
        {
            "licao.md": HEADER
            + chart.replace("14.5", "0").replace("64", "0").replace("32", "0").replace("110", "0")
        },
        {"licao.md": HEADER + '```quiz\n- id: x\n  kind: single\n  prompt: "aberto\n```\n'},
        {"01-a.md": GOOD, "02-b.md": GOOD},
        {
            "01-a.md": HEADER + TREE,
            "02-b.md": HEADER.replace("arvore-teste", "outra").replace("order: 1", "order: 2")
            + TREE,
        },
        {"glossario.yml": "term: kernel\n"},
    ]
    folders = []
    for number, files in enumerate(cases):
        folder = root / f"caso-{number}"
        folder.mkdir()
        for name, content in files.items():
            data = content if isinstance(content, bytes) else content.encode("utf-8")
            (folder / name).write_bytes(data)
        folders.append(folder)
    for number, (body, _expected) in enumerate(LINK_PROBLEMS):
        (root / f"links-{number}").mkdir()
        folders.append(folder_with(root / f"links-{number}", body))
    return folders


def test_every_problem_curso_check_reports_is_a_catalog_text(tmp_path, marked_catalog):
    curso = cli_runner()
    bare, silent = [], []
    for folder in broken_courses(tmp_path):
        report = json.loads(curso("check", folder, "--format", "json").stdout)
        keys = {"lessons", "errors", "warnings", "notes", "problems"}
        assert set(report) == keys, "chaves estáveis"
        if not report["problems"]:
            silent.append(folder.name)
        for problem in report["problems"]:
            assert set(problem) == {"file", "line", "col", "level", "message"}
            assert problem["level"] in {"error", "warning"}
            if has_words(outside_the_catalog(problem["message"])):
                bare.append((folder.name, problem["message"]))
        text = curso("check", folder)
        for line in text.stdout.splitlines():
            where = re.fullmatch(r"(.+):(\d+):(\d+): (error|warning): (.+)", line)
            assert where, f"arquivo:linha:coluna: nível: mensagem — {line!r}"
            if has_words(outside_the_catalog(where.group(5))):
                bare.append((folder.name, line))
        if has_words(outside_the_catalog(text.stderr)):
            bare.append((folder.name, text.stderr))
    assert silent == [], "cada caso do corpus tem um problema"
    assert bare == []


def test_curso_check_summaries_are_catalog_texts(tmp_path, marked_catalog):
    from tests.support.lessons import GOOD

    curso = cli_runner()
    outputs = []
    broken = GOOD.replace("answer: [b]", "answer: [x]")
    warned = GOOD + "\n[x](#nada)\n"
    other = warned.replace("slug: decode-prefill", "slug: b").replace("order: 1", "order: 2")
    for name, texts in [
        ("boa", [GOOD]),
        ("erro", [broken]),
        ("aviso", [warned]),
        ("ambos", [broken, other]),
    ]:
        (tmp_path / name).mkdir()
        for number, text in enumerate(texts):
            (tmp_path / name / f"0{number}-a.md").write_text(text, encoding="utf-8")
        for flags in ([], ["--strict"]):
            result = curso("check", tmp_path / name, *flags)
            summary = result.stderr if result.stderr else result.stdout
            outputs.append(summary.strip())
    assert [o for o in outputs if has_words(outside_the_catalog(o))] == []
    assert len(set(outputs)) >= 4


def tree_data(course) -> set[str]:
    """Every text `curso arvore` shows that comes from the lessons, not from the catalog."""
    from app.content.markdown import plain_text as plain

    data = set()
    for tree in course.trees.values():
        data |= {tree.title, tree.id, tree.source, *tree.facets.values(), *tree.facets}
        for question in tree.questions.values():
            data |= {plain(question.text_html), *(o.label for o in question.options)}
        for result in tree.results.values():
            data |= {result.main, *result.also, plain(result.why_html), plain(result.note_html)}
    return {d for d in data if d}


def bare_lines(runs, data) -> list[str]:
    """Lines the commands printed that hold words from outside the marked catalog."""
    return [
        line
        for run in runs
        for line in (run.stdout + run.stderr).splitlines()
        if has_words(outside_the_catalog(line, data))
    ]


def test_curso_arvore_speaks_from_the_catalog(marked_catalog):
    from app.content.course import load_course

    curso = cli_runner()
    data = tree_data(load_course(REPO_LESSONS))
    runs = [
        curso("arvore", "guia-fase17", input="4\n3\n2\n"),
        curso("arvore", "guia-osman", input="9\nx\n1\n"),
        curso("arvore", input="1\n1\n"),
        curso("arvore", "guia-osman", input=""),
        curso("arvore", "nao-existe"),
        curso("arvore", "--json"),
    ]
    assert [r.exit_code for r in runs] == [0, 0, 0, 1, 2, 2]
    assert bare_lines(runs, data) == []
    walked = runs[0].stdout
    assert "⟪Caminho: ⟦" in walked and "⟪Resultado: ⟦SGLang⟧ — ⟦⟪Recomendado⟫⟧⟫" in walked


def test_curso_nova_and_backup_speak_from_the_catalog(tmp_path, marked_catalog, monkeypatch):
    from tests.support.lessons import GOOD

    curso = cli_runner()
    (tmp_path / "licoes").mkdir()
    (tmp_path / "licoes" / "01-a.md").write_text(GOOD, encoding="utf-8")
    monkeypatch.setenv("CURSO_VAR_DIR", str(tmp_path / "var"))
    runs = [
        curso("nova", "Uma lição nova", "--pasta", tmp_path / "licoes"),
        curso("nova", "!!!", "--pasta", tmp_path / "licoes"),
        curso("nova", "Outra", "--pasta", tmp_path / "nao-existe"),
        curso(
            "backup",
            tmp_path / "copia.db",
            env={"CURSO_DATABASE_URL": "postgresql+psycopg://x@127.0.0.1/x"},
        ),
        curso(
            "backup",
            tmp_path / "copia.db",
            env={"CURSO_DATABASE_URL": f"sqlite:///{tmp_path / 'nada.db'}"},
        ),
    ]
    assert [r.exit_code for r in runs] == [0, 2, 2, 1, 1]
    data = {str(tmp_path)}
    assert bare_lines(runs, data) == []


def test_command_help_is_in_portuguese():
    curso = cli_runner()
    assert "Valida as lições (ou uma)" in curso("check", "--help").stdout
    assert "Trata avisos como erros." in curso("check", "--help").stdout
    assert "Percorre uma árvore de decisão no terminal" in curso("arvore", "--help").stdout
    assert "Ferramentas do curso de engines de inferência." in curso("--help").stdout


def test_typers_own_words_are_in_portuguese_too():
    """Typer's usage line, panel titles, help option and usage errors, not only our help."""
    curso = cli_runner()
    pages = [curso(*args).output for args in (["--help"], ["check", "--help"], ["instrutor"])]
    for page in pages:
        assert "Uso: " in page and "Mostra esta mensagem e sai." in page
        assert "Usage" not in page and "Show this message" not in page and "Options" not in page
    assert (
        "─ Argumentos ─" in pages[1] and "─ Opções ─" in pages[1] and "[padrão: text]" in pages[1]
    )
    assert "─ Comandos ─" in pages[0] and "completion" not in pages[0]
    wrong = curso("naoexiste")
    assert wrong.exit_code == 2
    assert "Não existe o comando 'naoexiste'." in wrong.output and "─ Erro ─" in wrong.output


# --- Code that can't be checked by running it: no sentence outside the catalog ---

COMMAND_AND_CONTENT_MODULES = sorted(
    [
        *(PROJECT_ROOT / "app" / "content").glob("*.py"),
        *(PROJECT_ROOT / "app" / "cli").glob("*.py"),
        PROJECT_ROOT / "app" / "platform" / "backup.py",
        # messages a user reads without a page that tests can scan for English ids:
        # redirects and 403s, bad settings at start-up, the health check's body
        PROJECT_ROOT / "app" / "platform" / "settings.py",
        PROJECT_ROOT / "app" / "web" / "deps.py",
        PROJECT_ROOT / "app" / "web" / "routes" / "health.py",
    ]
)
GETTEXT_NAMES = {"_", "gettext", "ngettext", "N_"}
PORTUGUESE = re.compile(
    r"[ãõçáéíóúâêôà]|\b(?:não|de|da|do|das|dos|um|uma|para|com|que|em|no|na|ou|pelo|pela|já|mais)\b",
    re.IGNORECASE,
)
# Not messages: the lesson a new file starts from (content the author rewrites), stemmer data,
# what a learner may type around a number (app/content/numbers.py).
NOT_MESSAGES = {
    "TEMPLATE",
    "_PREFIX",
    "_SUFFIX",
    "_ACCENT_ENDINGS",
    "_ALL_OR_NONE",
    "_NEGATIVE",
    "_VERDICT",
    "_EMPHASIS",
    "_ABSOLUTE",
    "_NOT_ABSOLUTE",
    "_POSITION_WORD",
    "_LEADING_POSITION",
    "_DECIMAL_COMMA",
    "_ECHO_STOPWORDS",
    "_QUOTE",
}
"""Constants that hold lesson text or patterns that match it (the lesson template, item-check
regexes)."""


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return getattr(node.func, "id", getattr(node.func, "attr", ""))
    return ""


def bare_sentences(path: Path) -> list[str]:
    """String literals in ``path`` that read as Portuguese but are not a catalog id."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if _call_name(node) in GETTEXT_NAMES:
            skip |= {id(n) for n in ast.walk(node)}
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", "") in NOT_MESSAGES for t in node.targets
        ):
            skip |= {id(n) for n in ast.walk(node)}
        if isinstance(node, ast.Assert) and node.msg is not None:  # for developers, not learners
            skip |= {id(n) for n in ast.walk(node.msg)}
    return [
        f"{path.name}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and PORTUGUESE.search(node.value)
    ]


def test_commands_and_lesson_checks_have_no_sentence_outside_the_catalog():
    assert [s for path in COMMAND_AND_CONTENT_MODULES for s in bare_sentences(path)] == []


def test_no_message_id_hides_in_an_f_string():
    """pybabel (on Python 3.11) does not look inside f-strings: such an id never gets translated."""
    hidden = [
        f"{path.relative_to(PROJECT_ROOT)}:{node.lineno}"
        for path in sorted((PROJECT_ROOT / "app").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.JoinedStr)
        and any(_call_name(n) in GETTEXT_NAMES for n in ast.walk(node))
    ]
    assert hidden == []
