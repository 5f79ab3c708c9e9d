"""The whole course: every lesson in a folder, in order, plus the problems found.

:func:`load_course` reads a folder once (``curso check``, the tests).
:func:`build_course` assembles a course from lessons already loaded, and may serve a
file's last good version when its new one fails: :class:`app.content.live.LiveCourse`
uses it to reload edited files while the app runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from app.content.concepts import check_concepts
from app.content.engines import ENGINES_FILE, EngineLoad, check_engines, parse_engines
from app.content.errors import ContentError, ContentErrors
from app.content.gift import check_gift
from app.content.glossary import GLOSSARY_FILE, Glossary, load_glossary
from app.content.item_checks import check_items
from app.content.lesson_cache import LessonCache
from app.content.lessons import Lesson, load_lesson, normalize_source
from app.content.links import check_links
from app.content.markdown import slugify
from app.content.quiz import Question, with_key
from app.content.trees import Tree
from app.content.walk import WalkError, walk_facts
from app.i18n import N_, gettext, ngettext

IGNORED_FILES = {"README.md"}
NO_FOLDER = N_("the lessons folder does not exist")
LessonLoad = Lesson | ContentErrors


@dataclass(frozen=True)
class Course:
    """The lessons served, sorted by ``order``, and every problem found.

    A file whose current version has an error is served in its last good version
    when there is one (see :func:`build_course`), else left out; the others are served.

    Attributes:
        lessons: lessons served, by ascending ``order``.
        problems: every error and warning in every file, sorted by file, line and column.
        trees: the decision trees of the lessons served, by id.
        tree_lessons: tree id → slug of the lesson that holds it.
        unavailable: slug → file, for lessons that have errors and no good version to serve.
        stale: files served in their last good version because the current one has errors.
        glossary: the valid glossary terms (``glossario.yml``).
        drafts: lessons marked ``draft: true``, by ascending ``order``. They are not in
            ``lessons``, and their trees not in ``trees``: learners never see them (navigation,
            search, progress, sitemap, API). :meth:`with_drafts` is the course an instructor
            reads.
    """

    lessons: tuple[Lesson, ...]
    problems: tuple[ContentError, ...]
    trees: dict[str, Tree] = field(default_factory=dict, hash=False)
    tree_lessons: dict[str, str] = field(default_factory=dict, hash=False)
    unavailable: dict[str, Path] = field(default_factory=dict, hash=False)
    stale: frozenset[Path] = frozenset()
    glossary: Glossary = field(default_factory=Glossary, hash=False)
    drafts: tuple[Lesson, ...] = ()

    @property
    def errors(self) -> tuple[ContentError, ...]:
        """The problems of level ``error``."""
        return tuple(p for p in self.problems if p.is_error)

    @property
    def warnings(self) -> tuple[ContentError, ...]:
        """The problems of level ``warning`` (a ``note`` is neither an error nor a warning)."""
        return tuple(p for p in self.problems if p.level == "warning")

    def problems_of(self, path: Path) -> tuple[ContentError, ...]:
        """The problems found in one file."""
        return tuple(p for p in self.problems if p.file == path)

    @cached_property
    def with_drafts(self) -> Course:
        """The course with its drafts among the lessons, in order, and their trees (what an
        instructor reads); the course itself when it has no drafts."""
        if not self.drafts:
            return self
        lessons = sorted((*self.lessons, *self.drafts), key=_lesson_order)
        trees = {tree.id: tree for lesson in lessons for tree in lesson.trees.values()}
        return replace(self, lessons=tuple(lessons), trees=trees, drafts=())

    def get(self, slug: str) -> Lesson | None:
        """Return the lesson with ``slug``, or ``None``."""
        return next((lesson for lesson in self.lessons if lesson.slug == slug), None)

    def path_of(self, slug: str) -> Path | None:
        """The file of the lesson ``slug``: served, a draft, or with errors and never loaded;
        else ``None``."""
        lesson = self.with_drafts.get(slug)
        return lesson.path if lesson is not None else self.unavailable.get(slug)

    def slug_of(self, path: Path) -> str | None:
        """The slug of the lesson in ``path`` (the reverse of :meth:`path_of`), or ``None``
        for a file that is not a lesson of the course."""
        lesson = next((item for item in self.with_drafts.lessons if item.path == path), None)
        if lesson is not None:
            return lesson.slug
        return next((slug for slug, file in self.unavailable.items() if file == path), None)

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


def load_file(
    path: Path,
    glossary: Glossary | None = None,
    raw: bytes | None = None,
    cache: LessonCache | None = None,
    glossary_raw: bytes = b"",
) -> LessonLoad:
    """Load one file: the lesson, or the :class:`ContentErrors` that keep it from loading.

    Args:
        glossary: the course glossary the lesson is rendered with.
        raw: the file's bytes instead of reading them (a text not saved yet).
        cache: rendered lessons on disk; an entry for these bytes (and this glossary and
            code) is used instead of rendering, and a new render is stored. ``None``: render.
        glossary_raw: the glossary file's bytes, part of the cache key.

    Returns:
        The lesson, or the errors (each with file and line), the same with or without cache.
    """
    if cache is not None and raw is None:
        try:
            raw = path.read_bytes()
        except OSError:
            cache = None  # load_lesson reads it again and fails as it always did
    if cache is None or raw is None:  # raw is None only when the read failed: no cache
        return _render_file(path, glossary, raw)
    key = cache.key(path, raw, glossary_raw)
    load = cache.get(key)
    if isinstance(load, Lesson | ContentErrors):
        return load
    rendered = _render_file(path, glossary, raw)
    cache.put(key, rendered)
    return rendered


def _render_file(path: Path, glossary: Glossary | None, raw: bytes | None) -> LessonLoad:
    try:
        return load_lesson(path, glossary, raw)
    except ContentErrors as exc:
        return exc


def glossary_bytes(folder: Path) -> bytes | None:
    """The glossary file's bytes, ``None`` when there is none: part of each lesson's cache key."""
    try:
        return (folder / GLOSSARY_FILE).read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def read_glossary(
    folder: Path, cache: LessonCache | None = None
) -> tuple[Glossary, list[ContentError], bytes | None]:
    """Load the glossary of ``folder``, from the disk cache when it holds these bytes.

    Args:
        cache: rendered lessons and glossaries on disk; ``None`` parses the file.

    Returns:
        The valid terms, the glossary's problems, and the file's bytes (``None`` without a
        file), which the lessons' cache keys name.
    """
    raw = glossary_bytes(folder)
    if cache is None or raw is None:
        return (*load_glossary(folder, raw), raw)
    key = cache.key(folder / GLOSSARY_FILE, raw)
    stored = cache.get(key)
    if isinstance(stored, tuple):
        glossary, problems = stored
    else:
        glossary, problems = load_glossary(folder, raw)
        cache.put(key, (glossary, problems))
    return glossary, problems, raw


def read_engines(folder: Path, cache: LessonCache | None = None) -> EngineLoad:
    """Load ``engines.yml`` of ``folder`` (see :mod:`app.content.engines`), from the disk
    cache when it holds these bytes; an empty load when there is no such file."""
    path = folder / ENGINES_FILE
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return EngineLoad()
    if cache is None:
        return parse_engines(raw, path)
    key = cache.key(path, raw)
    stored = cache.get(key)
    if isinstance(stored, EngineLoad):
        return stored
    load = parse_engines(raw, path)
    cache.put(key, load)
    return load


def load_course(
    folder: Path, static_dir: Path | None = None, cache: LessonCache | None = None
) -> Course:
    """Load every lesson in ``folder``.

    Args:
        static_dir: the app's ``static/`` folder, to check ``/static/...`` images.
        cache: rendered lessons on disk (see :mod:`app.content.lesson_cache`); ``None``
            renders every file.

    Returns:
        The course. A missing folder gives an empty course with one error.
    """
    if not folder.is_dir():
        return Course((), (ContentError(folder, 0, gettext(NO_FOLDER)),))
    glossary, glossary_problems, glossary_raw = read_glossary(folder, cache)
    loads = {
        path: load_file(path, glossary, cache=cache, glossary_raw=glossary_raw or b"")
        for path in lesson_files(folder)
    }
    return build_course(
        folder,
        loads,
        static_dir=static_dir,
        glossary=glossary,
        extra=glossary_problems,
        engines=read_engines(folder, cache),
    )


def build_course(
    folder: Path,
    loads: Mapping[Path, LessonLoad],
    fallbacks: Mapping[Path, Lesson] | None = None,
    static_dir: Path | None = None,
    glossary: Glossary | None = None,
    extra: Iterable[ContentError] = (),
    engines: EngineLoad | None = None,
) -> Course:
    """Assemble a course from loaded files.

    Args:
        loads: each file's lesson, or the errors that kept it from loading.
        fallbacks: the last version served of each file; a file whose current version
            fails (on its own or against the course: a repeated slug, a scenario that no
            longer resolves) is served in that version instead, and marked stale.
        static_dir: the app's ``static/`` folder, to check ``/static/...`` images.
        glossary: the glossary the lessons were rendered with.
        extra: problems found outside the lessons (the glossary file).
        engines: the engine table the trees are checked against; ``None`` reads
            ``engines.yml`` of ``folder``.

    Returns:
        The course, with every problem of the current files.
    """
    fallbacks = fallbacks or {}
    problems: set[ContentError] = set(extra)
    chosen: dict[Path, Lesson] = {}
    stale: set[Path] = set()
    for path, load in loads.items():
        if isinstance(load, Lesson):
            chosen[path] = load
            continue
        problems.update(load.errors)
        if path in fallbacks:
            chosen[path] = fallbacks[path]
            stale.add(path)
    while True:
        lessons, trees, owners, found, failed = _assemble(chosen)
        problems.update(found)
        retry = {path for path in failed if path in fallbacks and path not in stale}
        if not retry:
            break
        for path in retry:
            chosen[path] = fallbacks[path]
            stale.add(path)
    # A stale file's links are those of its old version: only its errors are reported.
    problems.update(
        p for p in check_links(lessons, folder, trees, static_dir) if p.file not in stale
    )
    problems.update(p for p in check_items(lessons) if p.file not in stale)
    problems.update(p for p in check_gift(lessons) if p.file not in stale)
    engines = engines if engines is not None else read_engines(folder)
    problems.update(engines.problems)
    problems.update(p for p in check_engines(trees.values(), engines.table) if p.file not in stale)
    problems.update(
        p
        for p in check_concepts(lessons, glossary or Glossary(), folder / GLOSSARY_FILE)
        if p.file not in stale
    )
    served = {lesson.path for lesson in lessons}
    unavailable = _unavailable(loads, chosen, served, {lesson.slug for lesson in lessons})
    drafts = tuple(lesson for lesson in lessons if lesson.meta.draft)
    hidden = {tree_id for lesson in drafts for tree_id in lesson.trees}
    return Course(
        tuple(lesson for lesson in lessons if not lesson.meta.draft),
        tuple(sorted(problems)),
        {tree_id: tree for tree_id, tree in trees.items() if tree_id not in hidden},
        owners,
        unavailable,
        frozenset(stale & served),
        glossary or Glossary(),
        drafts,
    )


def _assemble(
    chosen: Mapping[Path, Lesson],
) -> tuple[list[Lesson], dict[str, Tree], dict[str, str], list[ContentError], set[Path]]:
    """Run the course-wide checks; return the lessons kept, the trees, problems and failed files."""
    errors: list[ContentError] = []
    ordered = sorted(chosen.values(), key=_lesson_order)
    kept = _drop_duplicates(ordered, errors)
    trees, owners = _index_trees(kept, errors)
    resolved = [_resolve_scenarios(lesson, trees, errors) for lesson in kept]
    valid = [lesson for lesson in resolved if lesson is not None]
    failed = {path for path in chosen if path not in {lesson.path for lesson in valid}}
    return valid, trees, owners, errors, failed


def _lesson_order(lesson: Lesson) -> tuple[int, str]:
    return lesson.meta.order, lesson.path.name


def _unavailable(
    loads: Mapping[Path, LessonLoad],
    chosen: Mapping[Path, Lesson],
    served: set[Path],
    slugs: set[str],
) -> dict[str, Path]:
    """Slug → file for each file with nothing served: its front matter's slug, else its name's."""
    out: dict[str, Path] = {}
    for path, load in loads.items():
        if path in served:
            continue
        slug = chosen[path].slug if path in chosen else getattr(load, "slug", None)
        slug = slug or slug_from_filename(path)
        if slug not in slugs:
            out.setdefault(slug, path)
    return out


def slug_from_filename(path: Path) -> str:
    """Guess a lesson's slug from its file name: ``02-escolha.md`` → ``escolha``."""
    return slugify(re.sub(r"^\d+[-_ ]*", "", path.stem))


def _index_trees(
    lessons: list[Lesson], errors: list[ContentError]
) -> tuple[dict[str, Tree], dict[str, str]]:
    trees: dict[str, Tree] = {}
    owners: dict[str, str] = {}
    for lesson in lessons:
        for tree in lesson.trees.values():
            if tree.id in trees:
                msg = gettext("tree id repeated: `%(id)s` already exists in %(file)s") % {
                    "id": tree.id,
                    "file": trees[tree.id].file.name,
                }
                errors.append(ContentError(lesson.path, tree.line, msg))
                continue
            trees[tree.id] = tree
            owners[tree.id] = lesson.slug
    return trees, owners


def _resolve_scenarios(
    lesson: Lesson, trees: dict[str, Tree], errors: list[ContentError]
) -> Lesson | None:
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


def _resolve(
    question: Question, trees: dict[str, Tree], path: Path
) -> tuple[Question, ContentError | None]:
    scenario = question.scenario
    assert scenario is not None, "only scenario questions are resolved against a tree"
    position = (scenario.line, scenario.col)
    tree = trees.get(scenario.tree_id)
    if tree is None:
        msg = gettext(
            "the question `%(question)s` names the tree `%(tree)s`, which is not in the course"
        ) % {"question": question.id, "tree": scenario.tree_id}
        return question, ContentError.at(path, position, msg)
    try:
        walk = walk_facts(tree, dict(scenario.facts))
    except WalkError as exc:
        msg = gettext(
            "the scenario of the question `%(question)s` does not reach a result: %(why)s"
        ) % {"question": question.id, "why": exc}
        return question, ContentError.at(path, position, msg)
    unused = sorted(set(dict(scenario.facts)) - {step.question.facet for step in walk.steps})
    if unused:
        msg = gettext(
            "the scenario of the question `%(question)s` gives facts that the tree `%(tree)s` "
            "does not use on this path: %(facts)s; delete them or check the tree"
        ) % {"question": question.id, "tree": tree.id, "facts": ", ".join(unused)}
        return question, ContentError.at(path, position, msg)
    result = walk.result
    assert result is not None, "walk_facts raises WalkError when no result is reached"
    engine = result.engines[0]
    key = frozenset(o.id for o in question.options if o.engine == engine)
    if len(key) != 1:
        values = {
            "tree": tree.id,
            "question": question.id,
            "result": result.id,
            "engine": engine,
            "num": len(key),
        }
        if key:
            msg = ngettext(
                "the tree `%(tree)s` leads the question `%(question)s` to the result "
                "`%(result)s` (%(engine)s), and %(num)s option of the question has "
                "`engine: %(engine)s`; exactly one is needed",
                "the tree `%(tree)s` leads the question `%(question)s` to the result "
                "`%(result)s` (%(engine)s), and %(num)s options of the question have "
                "`engine: %(engine)s`; exactly one is needed",
                len(key),
            )
        else:
            msg = gettext(
                "the tree `%(tree)s` leads the question `%(question)s` to the result "
                "`%(result)s` (%(engine)s), and no option of the question has "
                "`engine: %(engine)s`; exactly one is needed"
            )
        msg %= values
        return question, ContentError.at(path, position, msg)
    situation = tuple((tree.facet_label(s.question.facet), s.option.label) for s in walk.steps)
    solved = replace(
        scenario,
        situation=situation,
        values=walk.values,
        tree_title=tree.title,
        result_title=result.main,
    )
    version = with_key(scenario.base_hash, key)
    return replace(question, answer=key, scenario=solved, content_hash=version), None


def _drop_duplicates(lessons: list[Lesson], errors: list[ContentError]) -> list[Lesson]:
    kept: list[Lesson] = []
    for lesson in lessons:
        clash = False
        for other in kept:
            for name in ("slug", "order"):
                if getattr(lesson.meta, name) == getattr(other.meta, name):
                    msg = gettext(
                        "`%(field)s: %(value)s` is already used by %(file)s; each lesson needs "
                        "a `%(field)s` of its own"
                    )
                    value, file = getattr(lesson.meta, name), other.path.name
                    msg %= {"field": name, "value": value, "file": file}
                    errors.append(ContentError(lesson.path, _field_line(lesson.path, name), msg))
                    clash = True
        if not clash:
            kept.append(lesson)
    return kept


def _field_line(path: Path, name: str) -> int:
    try:
        text = normalize_source(path.read_bytes())
    except (OSError, UnicodeDecodeError):
        return 1
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith(f"{name}:"):
            return number
    return 1
