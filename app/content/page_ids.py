"""The ids a page uses, in one place: the chrome's own ids and the prefixes of the widgets' ids.

A lesson heading takes its id from its text (:func:`app.content.markdown.slugify`); it must not
take an id the page already carries. :data:`CHROME_IDS` lists the literal ids of the templates
that wrap a lesson (``base.html``, ``lesson.html``, ``_course_nav.html``,
``_content_problems.html``, ``_resume.html``); tests/test_page_ids.py checks that every literal
id of those templates is listed here, so the list cannot drift.

The widgets of a lesson (questions, trees, glossary terms, charts) carry ids made of a prefix
and their own id; the builders below are the only place those ids are spelled. An anchor built
here is also what the database keeps as a learner's place (``pergunta-<id>``), so the shapes
must never change.
"""

from __future__ import annotations

# The page chrome's literal ids (templates/base.html, lesson.html, _course_nav.html,
# _content_problems.html, _resume.html, and editor.html and _editor_preview.html, which show
# a lesson being edited), and the header search's listbox (_search_listbox.html).
CHROME_IDS = frozenset(
    {
        "busca-topo-lista",
        "editor-ajuda",
        "editor-conflito-t",
        "editor-copia",
        "editor-copia-descartar",
        "editor-copia-usar",
        "editor-endereco-t",
        "editor-grande",
        "editor-substituir",
        "editor-substituir-ajuda",
        "editor-previa-t",
        "editor-resultado",
        "editor-texto",
        "editor-titulo",
        "editor-verificacao-t",
        "conteudo",
        "gaveta",
        "gaveta-titulo",
        "objetivos",
        "anuncio",
        "aviso-erro",
        "titulo-licao",
        "navegacao-curso",
        "busca-topo",
        "busca-form",
        "painel-verificacao-t",
    }
)

QUESTION_PREFIX = "pergunta-"
ERROR_PREFIX = "erro-"
TREE_PREFIX = "arvore-"
TERM_PREFIX = "termo-"
DEFINITION_PREFIX = "def-"
CHART_PREFIX = "grafico-"
OPTION_PREFIX = "op-"
POOL_PREFIX = "sorteio-"
POOL_NOTE_PREFIX = "nota-sorteio-"
POOL_FOOTER_PREFIX = "outras-sorteio-"
# The anchor of a lesson's quiz as a whole (a learner's place, before any question).
QUIZ_ANCHOR = "quiz"


def question_anchor(question_id: str) -> str:
    """The id of a question's block on its lesson page, also the place kept for a learner who
    answered it."""
    return f"{QUESTION_PREFIX}{question_id}"


def error_anchor(question_id: str) -> str:
    """The id of a question's error message (its answer form's ``aria-describedby``)."""
    return f"{ERROR_PREFIX}{question_id}"


def option_anchor(question_id: str, option_id: str) -> str:
    """The id of one option's input in a question's form."""
    return f"{OPTION_PREFIX}{question_id}-{option_id}"


def tree_anchor(tree_id: str) -> str:
    """The id of a decision tree's widget on a lesson page."""
    return f"{TREE_PREFIX}{tree_id}"


def term_anchor(term_slug: str) -> str:
    """The id of a glossary term's first use (its ``<dfn>``) in a lesson."""
    return f"{TERM_PREFIX}{term_slug}"


def definition_anchor(term_slug: str) -> str:
    """The id of the popover with a glossary term's definition, next to its first use."""
    return f"{DEFINITION_PREFIX}{term_slug}"


def chart_anchor(title_slug: str) -> str:
    """The id of a chart, from the slug of its title (already through ``slugify``)."""
    return f"{CHART_PREFIX}{title_slug}"


def pool_anchor(pool_id: str) -> str:
    """The id of a question pool's block on a lesson page (its "Outras perguntas" lands there)."""
    return f"{POOL_PREFIX}{pool_id}"


def pool_note_anchor(pool_id: str) -> str:
    """The id of a pool's note ("3 perguntas sorteadas para você entre 8."), which describes
    the pool's region."""
    return f"{POOL_NOTE_PREFIX}{pool_id}"


def pool_footer_anchor(pool_id: str) -> str:
    """The id of the foot of a pool's block, where "Outras perguntas" appears: an answer's
    htmx response replaces it out of band once the draw is all answered."""
    return f"{POOL_FOOTER_PREFIX}{pool_id}"
