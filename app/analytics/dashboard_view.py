"""The instructor dashboard as the page shows it: typed views built from the figures.

The dashboard's tabs (``templates/_dashboard_*.html``) render these fields and compute
nothing: shares, chart bars, the figure labels that agree with their counts, and the plural
texts are made here, in Python, with the catalog (:func:`app.i18n.ngettext`).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

from app.analytics.dashboard import FunnelStep
from app.analytics.item_analysis import Flag, FlagKind, ItemStats, decimal, flags, percent
from app.content.course import Course
from app.content.lessons import Lesson
from app.content.quiz import Question
from app.content.trees import Tree
from app.content.variants import excerpt_html, shown
from app.i18n import gettext, ngettext


def share(count: int, total: int) -> float:
    """``count`` as a percentage of ``total``, 0 to 100; 0 when ``total`` is 0."""
    return 100 * count / total if total else 0.0


@dataclass(frozen=True)
class OptionBar:
    """One option in a question's distribution chart.

    Attributes:
        is_key: part of the right answer.
        is_distractor: a wrong option chosen by more of the top group than of the bottom.
        chosen: first tries that chose it.
        all_pct / upper_pct / lower_pct: share of all first tries, of the top group and of
            the bottom group that chose it, 0 to 100.
    """

    option_id: str
    text_html: str
    is_key: bool
    is_distractor: bool
    chosen: int
    all_pct: float
    upper_pct: float
    lower_pct: float


@dataclass(frozen=True)
class Figure:
    """One figure on a question's card.

    Attributes:
        name: what it counts, in the card's markup (``fig-<name>``).
        label: its label in pt-BR, in the singular or plural that agrees with the value.
        value: the figure as shown ("12", "46%", "−0,33", or "—" when there is none).
    """

    name: str
    label: str
    value: str


@dataclass(frozen=True)
class QuestionReport:
    """A question on the dashboard: its figures, its flags and its chart."""

    lesson: Lesson
    question: Question
    stats: ItemStats
    flags: tuple[Flag, ...]
    bars: tuple[OptionBar, ...]

    @property
    def anchor(self) -> str:
        """The id of its card on the dashboard."""
        return f"q-{self.lesson.slug}-{self.question.id}"

    @property
    def figures(self) -> tuple[Figure, ...]:
        """Attempts, learners, facility, discrimination and hint use, labelled for their counts.

        "0 tentativas", "1 tentativa", "2 tentativas": the labels come from the catalog's
        plural forms, where 0 is plural.
        """
        s = self.stats
        return (
            Figure("attempts", ngettext("Attempt", "Attempts", s.attempts), str(s.attempts)),
            Figure("learners", ngettext("Learner", "Learners", s.learners), str(s.learners)),
            Figure(
                "facility",
                gettext("Facility"),
                percent(s.facility) if s.facility is not None else "—",
            ),
            Figure(
                "discrimination",
                gettext("Discrimination (D)"),
                decimal(s.discrimination) if s.discrimination is not None else "—",
            ),
            Figure(
                "hints",
                gettext("With a hint"),
                percent(s.hint_use) if s.hint_use is not None else "—",
            ),
        )

    @property
    def variant_rows(self) -> tuple[tuple[str, int, str], ...]:
        """Each variant answered (a numeric question with ``params``): its numbers in the
        prompt's words (inline HTML, :func:`app.content.variants.excerpt_html`), its answers
        and its facility."""
        variants = self.question.variants
        return tuple(
            (
                excerpt_html(variants.names, variants.prompt, variants.legend, dict(v.params))
                if variants is not None
                else escape(", ".join(f"{name} = {shown(value)}" for name, value in v.params)),
                v.attempts,
                percent(v.facility) if v.facility is not None else "—",
            )
            for v in self.stats.variants
        )


def question_report(lesson: Lesson, question: Question, stats: ItemStats) -> QuestionReport:
    """Put one question's figures together with its chart bars and flags."""
    raised = tuple(flags(stats))
    distractors = {f.option_id for f in raised if f.kind is FlagKind.DISTRACTOR}
    k = stats.group
    by_id = {counts.option_id: counts for counts in stats.options}
    bars = tuple(
        OptionBar(
            o.id,
            o.text_html,
            o.id in question.answer,
            o.id in distractors,
            by_id[o.id].chosen,
            share(by_id[o.id].chosen, stats.learners),
            share(by_id[o.id].upper, k),
            share(by_id[o.id].lower, k),
        )
        for o in question.options
    )
    return QuestionReport(lesson, question, stats, raised, bars)


@dataclass(frozen=True)
class FunnelRow:
    """One lesson of the completion funnel as the table shows it.

    Attributes:
        step: who started and who completed it.
    """

    lesson: Lesson
    step: FunnelStep

    @property
    def share(self) -> int:
        """Completed as a whole percentage of started (0 when nobody started)."""
        return round(share(self.step.completed, self.step.started))

    @property
    def bar_width(self) -> str:
        """The width of the completion bar, a CSS percentage with one decimal ("66.7%")."""
        return f"{share(self.step.completed, self.step.started):.1f}%"


@dataclass(frozen=True)
class ResultCount:
    """Finished walks that reached one result.

    Attributes:
        title: the result's engines, or ``None`` for a result no longer in the tree.
        count: walks that reached it.
    """

    result_id: str
    title: str | None
    count: int


@dataclass(frozen=True)
class TreeWalks:
    """One decision tree's finished walks.

    Attributes:
        finished: finished walks in all.
        results: the tree's results in order (0 for one nobody reached), then the results
            reached that the tree no longer has.
    """

    tree: Tree
    finished: int
    results: tuple[ResultCount, ...]


def tree_walks(tree: Tree, counts: dict[str, int]) -> TreeWalks:
    """The walks of ``tree`` from the counts by result id."""
    kept = [
        ResultCount(result.id, result.title, counts.get(result.id, 0))
        for result in tree.results.values()
    ]
    gone = [ResultCount(rid, None, n) for rid, n in counts.items() if rid not in tree.results]
    return TreeWalks(tree, sum(counts.values()), tuple(kept + gone))


@dataclass(frozen=True)
class LessonFile:
    """One lesson file in the dashboard's list.

    Attributes:
        title: its title, or the slug for a lesson that never loaded.
        stale: served in its last good version because the file has errors.
        unavailable: never loaded without errors, so not served.
        warnings: its warnings in pt-BR ("2 avisos"), or ``""`` when it has none.
        draft: a draft (``draft: true``): only instructors see it until it is published.
    """

    slug: str
    title: str
    path: Path
    stale: bool = False
    unavailable: bool = False
    warnings: str = ""
    draft: bool = False


def count_text(singular: str, plural: str, count: int) -> str:
    """``ngettext`` with ``%(num)s`` filled in: ``"%(num)s error"`` and 2 give "2 erros"."""
    return ngettext(singular, plural, count) % {"num": count}


def problems_found(course: Course) -> str:
    """The course's errors and warnings in one phrase ("1 erro e 2 avisos"); ``""`` if none."""
    errors = count_text("%(num)s error", "%(num)s errors", len(course.errors))
    warnings = count_text("%(num)s warning", "%(num)s warnings", len(course.warnings))
    if course.errors and course.warnings:
        return gettext("%(errors)s and %(warnings)s") % {"errors": errors, "warnings": warnings}
    if course.errors:
        return errors
    return warnings if course.warnings else ""


def lesson_files(course: Course) -> tuple[LessonFile, ...]:
    """Every lesson file with its state: the lessons served (drafts among them, in order),
    then those that never loaded."""
    served = []
    for lesson in course.with_drafts.lessons:
        found = course.problems_of(lesson.path)
        served.append(
            LessonFile(
                lesson.slug,
                lesson.meta.title_text,
                lesson.path,
                stale=lesson.path in course.stale,
                warnings=count_text("%(num)s warning", "%(num)s warnings", len(found))
                if found
                else "",
                draft=lesson.meta.draft,
            )
        )
    never = [
        LessonFile(slug, slug, path, unavailable=True) for slug, path in course.unavailable.items()
    ]
    return tuple(served + never)


def funnel_rows(course: Course, steps: tuple[FunnelStep, ...]) -> tuple[FunnelRow, ...]:
    """The funnel's rows, in course order; a step of a lesson no longer served is left out."""
    rows = []
    for step in steps:
        lesson = course.get(step.slug)
        if lesson is not None:
            rows.append(FunnelRow(lesson, step))
    return tuple(rows)


def question_reports(
    course: Course, items: dict[tuple[str, str], ItemStats]
) -> tuple[QuestionReport, ...]:
    """Every current question's report, lesson by lesson."""
    return tuple(
        question_report(lesson, question, items[(lesson.slug, question.id)])
        for lesson in course.lessons
        for question in lesson.questions.values()
    )


def flagged(reports: tuple[QuestionReport, ...]) -> tuple[QuestionReport, ...]:
    """The reports with at least one flag."""
    return tuple(report for report in reports if report.flags)


def trees_walks(course: Course, walks: dict[str, dict[str, int]]) -> tuple[TreeWalks, ...]:
    """Each decision tree's walks, in the course's order."""
    return tuple(tree_walks(tree, walks.get(tree.id, {})) for tree in course.trees.values())
