"""Item analysis rules: facility, discrimination and the flags they raise (plain functions).

The counts come from the kept aggregates (``app/analytics/dashboard.py``); this module only divides
and judges. "First try" and the 27% groups are defined in ``app/learning/rules.py``.

- **Facility**: the share of learners whose *first try* at the question's current
  version was right.
- **Discrimination** (Moodle's classic index, after Kelley): rank the learners who
  answered the question by their course score (questions right on the first try);
  take the top 27% and the bottom 27% (the same number ``k`` in each, rounded half
  up, ties broken by learner id); ``D = (right in the top − right in the bottom) / k``.
  ``D`` runs from −1 to 1; a good question has ``D ≥ 0.2``, a negative one favours the
  weaker learners.
- A learner who has not answered a question is left out of that question's figures:
  in a self-paced course, not having reached a lesson is not a wrong answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.i18n import gettext
from app.learning.rules import GROUP_PERCENT as GROUP_PERCENT
from app.learning.rules import group_size

EASY_ABOVE = 0.90
HARD_BELOW = 0.30
DISTRACTOR_MIN_SHARE = 0.20
MIN_LEARNERS = 10


@dataclass(frozen=True)
class OptionCounts:
    """How often one option was chosen on first tries.

    Attributes:
        is_key: the option is (part of) the right answer.
        chosen: first tries that chose it, among all learners.
        upper: first tries that chose it in the top group.
        lower: first tries that chose it in the bottom group.
    """

    option_id: str
    is_key: bool
    chosen: int
    upper: int
    lower: int


@dataclass(frozen=True)
class VariantFacility:
    """One variant of a numeric question with ``params``: its answers and the right ones.

    Attributes:
        params: the variant's parameters, ``(name, value)`` in the order written.
        attempts: answers given to this variant (each try is a variant of its own).
        right: of them, the right ones.
    """

    params: tuple[tuple[str, float], ...]
    attempts: int
    right: int

    @property
    def facility(self) -> float | None:
        """Share of this variant's answers that were right, 0 to 1; ``None`` with none."""
        return self.right / self.attempts if self.attempts else None


@dataclass(frozen=True)
class ItemStats:
    """One question's figures.

    Attributes:
        attempts: every attempt at the current version (retries included).
        learners: learners who answered the current version (one first try each).
        first_right: first tries that were right.
        upper_right: right first tries in the top group.
        lower_right: right first tries in the bottom group.
        options: each option's counts, in the order the instructor wrote them.
        hinted: attempts at the current version given after opening a hint (or the worked
            answer).
        variants: a numeric question with ``params``: each variant answered at the current
            version, with its own facility (the question's figures group them all).
    """

    attempts: int
    learners: int
    first_right: int
    upper_right: int
    lower_right: int
    options: tuple[OptionCounts, ...] = ()
    hinted: int = 0
    variants: tuple[VariantFacility, ...] = ()

    @property
    def hint_use(self) -> float | None:
        """Share of the attempts given after a hint, 0 to 1; ``None`` before any attempt."""
        return self.hinted / self.attempts if self.attempts else None

    @property
    def group(self) -> int:
        """The size of each of the top and bottom groups."""
        return group_size(self.learners)

    @property
    def facility(self) -> float | None:
        """Share of first tries that were right, 0 to 1; ``None`` before any answer."""
        return self.first_right / self.learners if self.learners else None

    @property
    def discrimination(self) -> float | None:
        """``(upper_right − lower_right) / k``; ``None`` with fewer than 2 learners."""
        return (self.upper_right - self.lower_right) / self.group if self.group else None


class FlagKind(StrEnum):
    """Why a question is flagged; the value names the flag's CSS class (``flag-<kind>``)."""

    EASY = "easy"
    HARD = "hard"
    NEGATIVE = "negative"
    DISTRACTOR = "distractor"


@dataclass(frozen=True)
class Flag:
    """A reason to look at a question again.

    Attributes:
        kind: too easy, too hard, negative discrimination, or a distractor.
        message: why, in Portuguese (from the catalog), with the figures.
        option_id: for :attr:`FlagKind.DISTRACTOR`, the option that attracts the top group.
    """

    kind: FlagKind
    message: str
    option_id: str | None = None


def percent(share: float) -> str:
    """``0.4567`` → ``"46%"``."""
    return f"{round(share * 100)}%"


def decimal(value: float) -> str:
    """``-0.3333`` → ``"−0,33"`` (the Brazilian way, with a real minus sign)."""
    return f"{value:.2f}".replace(".", ",").replace("-", "−")


def flags(stats: ItemStats) -> list[Flag]:
    """Judge a question; nothing is said with fewer than :data:`MIN_LEARNERS` learners.

    Returns:
        The flags, in this order: too easy, too hard, negative discrimination, and one
        per wrong option that attracts more of the top group than of the bottom group.
    """
    if stats.learners < MIN_LEARNERS or stats.facility is None:
        return []
    out = []
    share = percent(stats.facility)
    if stats.facility > EASY_ABOVE:
        message = gettext(
            "Too easy: %(share)s get it right on the first try (above %(limit)s), so it hardly "
            "tells those who understood from those who did not."
        )
        out.append(Flag(FlagKind.EASY, message % {"share": share, "limit": percent(EASY_ABOVE)}))
    if stats.facility < HARD_BELOW:
        message = gettext(
            "Too hard: only %(share)s get it right on the first try (below %(limit)s). Check "
            "the key, the prompt and whether the lesson teaches this."
        )
        out.append(Flag(FlagKind.HARD, message % {"share": share, "limit": percent(HARD_BELOW)}))
    d = stats.discrimination
    if d is not None and d < 0:
        message = gettext(
            "Discriminates the wrong way (D = %(d)s): the bottom group gets it right more often "
            "than the top group. Usually a wrong key, or a wrong option that convinces those "
            "who know."
        )
        out.append(Flag(FlagKind.NEGATIVE, message % {"d": decimal(d)}))
    out.extend(_distractors(stats))
    return out


def _distractors(stats: ItemStats) -> list[Flag]:
    """A flag for each wrong option chosen by more of the top group than of the bottom one."""
    k = stats.group
    out = []
    for option in stats.options:
        if option.is_key or not k:
            continue
        upper, lower = option.upper / k, option.lower / k
        if upper >= DISTRACTOR_MIN_SHARE and upper > lower:
            message = gettext(
                "Option `%(option)s` attracts the best learners: %(upper)s of the top group "
                "chose it on the first try, against %(lower)s of the bottom group. See whether "
                "it is not right too, or whether the prompt leaves room for it."
            ) % {"option": option.option_id, "upper": percent(upper), "lower": percent(lower)}
            out.append(Flag(FlagKind.DISTRACTOR, message, option.option_id))
    return out
