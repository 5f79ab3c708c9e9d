"""The whole course: every lesson in a folder, in order, plus the problems found."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from app.content.errors import ContentError, ContentErrors
from app.content.glossary import Glossary, load_glossary
from app.content.lessons import Lesson, load_lesson
from app.content.quiz import Question, with_key
from app.content.trees import Tree
from app.content.walk import WalkError, walk_facts

IGNORED_FILES = {"README.md"}


@dataclass(frozen=True)
class Course:
    """The lessons that loaded, sorted by ``order``, and every problem found.

    A lesson with a problem is left out; the others are served.

    Attributes:
        lessons: valid lessons, by ascending ``order``.
        errors: every problem in every file, sorted by file and line.
        trees: every decision tree, by id.
        tree_lessons: the slug of the lesson that holds each tree.
        glossary: the valid glossary terms (``glossario.yml``).
    """

    lessons: tuple[Lesson, ...]
    errors: tuple[ContentError, ...]
    trees: dict[str, Tree] = field(default_factory=dict, hash=False)
    tree_lessons: dict[str, str] = field(default_factory=dict, hash=False)
    glossary: Glossary = field(default_factory=Glossary, hash=False)

    def get(self, slug: str) -> Lesson | None:
        """Return the lesson with ``slug``, or ``None``."""
        return next((lesson for lesson in self.lessons if lesson.slug == slug), None)

    def neighbours(self, slug: str) -> tuple[Lesson | None, Lesson | None]:
        """Return the lessons before and after ``slug`` (``None`` at either end)."""
        slugs = [lesson.slug for lesson in self.lessons]
        i = slugs.index(slug)
        previous = self.lessons[i - 1] if i > 0 else None
        following = self.lessons[i + 1] if i + 1 < len(self.lessons) else None
        return previous, following


def lesson_files(folder: Path) -> list[Path]:
    """Return the lesson files in ``folder``: ``*.md`` except ``README.md``, sorted by name."""
    return sorted(p for p in folder.glob("*.md") if p.name not in IGNORED_FILES)


def load_course(folder: Path) -> Course:
    """Load every lesson in ``folder``.

    Args:
        folder: the lessons folder.

    Returns:
        The course. A missing folder gives an empty course with one error.
    """
    if not folder.is_dir():
        return Course((), (ContentError(folder, 0, "a pasta de lições não existe"),))
    glossary, glossary_errors = load_glossary(folder)
    lessons: list[Lesson] = []
    errors: list[ContentError] = list(glossary_errors)
    for path in lesson_files(folder):
        try:
            lessons.append(load_lesson(path, glossary))
        except ContentErrors as exc:
            errors.extend(exc.errors)
    kept = _drop_duplicates(sorted(lessons, key=lambda item: (item.meta.order, item.path.name)), errors)
    trees, tree_lessons = _index_trees(kept, errors)
    resolved = [_resolve_scenarios(lesson, trees, errors) for lesson in kept]
    valid = [lesson for lesson in resolved if lesson is not None]
    return Course(tuple(valid), tuple(sorted(errors)), trees, tree_lessons, glossary)


def _index_trees(lessons: list[Lesson], errors: list[ContentError]) -> tuple[dict[str, Tree], dict[str, str]]:
    trees: dict[str, Tree] = {}
    owners: dict[str, str] = {}
    for lesson in lessons:
        for tree in lesson.trees.values():
            if tree.id in trees:
                msg = f"id de árvore repetido: `{tree.id}` já existe em {trees[tree.id].file.name}"
                errors.append(ContentError(lesson.path, tree.line, msg))
                continue
            trees[tree.id] = tree
            owners[tree.id] = lesson.slug
    return trees, owners


def _resolve_scenarios(lesson: Lesson, trees: dict[str, Tree], errors: list[ContentError]) -> Lesson | None:
    """Compute each scenario question's key by walking its tree; ``None`` if one fails."""
    questions: dict[str, Question] = {}
    failed = False
    for qid, question in lesson.questions.items():
        if question.scenario is None:
            questions[qid] = question
            continue
        resolved, problem = _resolve(question, trees, lesson.path)
        if problem:
            errors.append(problem)
            failed = True
        else:
            questions[qid] = resolved
    return None if failed else replace(lesson, questions=questions)


def _resolve(question: Question, trees: dict[str, Tree], path: Path) -> tuple[Question, ContentError | None]:
    scenario = question.scenario
    tree = trees.get(scenario.tree_id)
    if tree is None:
        msg = f"a pergunta `{question.id}` cita a árvore `{scenario.tree_id}`, que não existe no curso"
        return question, ContentError(path, scenario.line, msg)
    try:
        walk = walk_facts(tree, dict(scenario.facts))
    except WalkError as exc:
        msg = f"o cenário da pergunta `{question.id}` não chega a um resultado: {exc}"
        return question, ContentError(path, scenario.line, msg)
    unused = sorted(set(dict(scenario.facts)) - {step.question.facet for step in walk.steps})
    if unused:
        msg = (
            f"o cenário da pergunta `{question.id}` dá fatos que a árvore `{tree.id}` não usa neste "
            f"caminho: {', '.join(unused)}; apague-os ou confira a árvore"
        )
        return question, ContentError(path, scenario.line, msg)
    engine = walk.result.engines[0]
    key = frozenset(o.id for o in question.options if o.engine == engine)
    if len(key) != 1:
        found = "nenhuma opção" if not key else f"{len(key)} opções"
        msg = (
            f"a árvore `{tree.id}` leva a pergunta `{question.id}` ao resultado `{walk.result.id}` "
            f"({engine}), e {found} da pergunta tem `engine: {engine}`; é preciso exatamente uma"
        )
        return question, ContentError(path, scenario.line, msg)
    situation = tuple((tree.facet_label(s.question.facet), s.option.label) for s in walk.steps)
    solved = replace(
        scenario, situation=situation, values=walk.values,
        tree_title=tree.title, result_title=walk.result.main,
    )
    return replace(question, answer=key, scenario=solved, content_hash=with_key(question.content_hash, key)), None


def _drop_duplicates(lessons: list[Lesson], errors: list[ContentError]) -> list[Lesson]:
    kept: list[Lesson] = []
    for lesson in lessons:
        for other in kept:
            for field in ("slug", "order"):
                if getattr(lesson.meta, field) == getattr(other.meta, field):
                    msg = (
                        f"`{field}: {getattr(lesson.meta, field)}` já é usado por "
                        f"{other.path.name}; cada lição precisa de um `{field}` próprio"
                    )
                    errors.append(ContentError(lesson.path, _field_line(lesson.path, field), msg))
        if not any(e.file == lesson.path for e in errors):
            kept.append(lesson)
    return kept


def _field_line(path: Path, field: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith(f"{field}:"):
            return number
    return 1
