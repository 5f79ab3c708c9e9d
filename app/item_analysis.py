"""Item analysis rules: facility, discrimination and the flags they raise (plain functions).

The counts come from SQL (``app/dashboard.py``); this module only divides and judges.

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

GROUP_PERCENT = 27
EASY_ABOVE = 0.90
HARD_BELOW = 0.30
LURE_MIN_SHARE = 0.20
MIN_LEARNERS = 10


def group_size(learners: int) -> int:
    """The size of the top and of the bottom group: 27% of ``learners``, rounded half up.

    The same integer formula runs in SQL, ``(n * 27 + 50) / 100``.
    """
    return (learners * GROUP_PERCENT + 50) // 100


@dataclass(frozen=True)
class OptionCounts:
    """How often one option was chosen on first tries.

    Attributes:
        option_id: the option's id.
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
class ItemStats:
    """One question's figures.

    Attributes:
        attempts: every attempt at the current version (retries included).
        learners: learners who answered the current version (one first try each).
        first_right: first tries that were right.
        upper_right: right first tries in the top group.
        lower_right: right first tries in the bottom group.
        options: each option's counts, in the order the instructor wrote them.
    """

    attempts: int
    learners: int
    first_right: int
    upper_right: int
    lower_right: int
    options: tuple[OptionCounts, ...] = ()

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


@dataclass(frozen=True)
class Flag:
    """A reason to look at a question again.

    Attributes:
        kind: ``facil``, ``dificil``, ``negativa`` or ``distrator``.
        message: why, in Portuguese, with the figures.
        option_id: for ``distrator``, the option that attracts the top group.
    """

    kind: str
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
        out.append(
            Flag(
                "facil",
                (
                    f"Fácil demais: {share} acertam de primeira (acima de {percent(EASY_ABOVE)}), "
                    "então ela quase não separa quem entendeu de quem não entendeu."
                ),
            )
        )
    if stats.facility < HARD_BELOW:
        out.append(
            Flag(
                "dificil",
                (
                    f"Difícil demais: só {share} acertam de primeira (abaixo de {percent(HARD_BELOW)}). "
                    "Confira o gabarito, o enunciado e se a lição ensina isso."
                ),
            )
        )
    d = stats.discrimination
    if d is not None and d < 0:
        out.append(
            Flag(
                "negativa",
                (
                    f"Discrimina ao contrário (D = {decimal(d)}): o grupo de baixo acerta mais que o de "
                    "cima. Costuma ser gabarito errado ou uma opção errada que convence quem sabe."
                ),
            )
        )
    out.extend(_lures(stats))
    return out


def _lures(stats: ItemStats) -> list[Flag]:
    """A flag for each wrong option chosen by more of the top group than of the bottom one."""
    k = stats.group
    out = []
    for option in stats.options:
        if option.is_key or not k:
            continue
        upper, lower = option.upper / k, option.lower / k
        if upper >= LURE_MIN_SHARE and upper > lower:
            message = (
                f"A opção `{option.option_id}` atrai os melhores alunos: {percent(upper)} do grupo "
                f"de cima a escolheram de primeira, contra {percent(lower)} do grupo de baixo. "
                "Veja se ela também não está certa, ou se o enunciado deixa margem."
            )
            out.append(Flag("distrator", message, option.option_id))
    return out
