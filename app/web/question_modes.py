"""Where a question's form posts and how its answer shows, by the page that holds it: a lesson,
``/revisar`` or the notebook of mistakes (``templates/_question.html``, ``_hints.html``).

The template reads these plain values; it does not guess the page from which names its
context happens to define. ``question_mode`` is a template global set to :data:`LESSON`, so a
lesson's questions need nothing in their context; the other pages pass theirs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from starlette.requests import Request


@dataclass(frozen=True)
class QuestionMode:
    """How the questions of one kind of page post and show.

    Attributes:
        answer_route: the route the form posts to; every one takes ``slug`` and
            ``question_id``.
        target: the htmx target its answer replaces: the question, or the whole review card.
        unfolded: the explanations of a graded answer open (right after answering, and always
            on ``/revisar``); folded when a lesson is opened again.
        retry: the "Answer again" link (``/revisar`` moves on to the next question instead).
        origin: the page a plain hint form sends the learner back to (the ``origem`` field of
            ``routes/quizzes.hint``), ``""`` for the lesson.
        just_answered: the id of the one question whose explanations open on a lesson page
            without JavaScript: the one its POST just graded (post/redirect/get).
    """

    answer_route: str
    target: str = "closest .question"
    unfolded: bool = False
    retry: bool = True
    origin: str = ""
    just_answered: str = ""

    def opens(self, question_id: str) -> bool:
        """Whether the explanations of that question's graded answer show open."""
        return self.unfolded or question_id == self.just_answered

    def after_answer(self, question_id: str) -> QuestionMode:
        """This mode, on the page a POST without JavaScript that graded ``question_id``
        redirects to."""
        return replace(self, just_answered=question_id)

    def of(self, request: Request) -> QuestionMode:
        """This mode, unfolded when ``request`` is the POST that graded the answer."""
        return replace(self, unfolded=True) if request.method == "POST" else self


LESSON = QuestionMode("question")
REVIEW = QuestionMode("review_answer", "#revisao", unfolded=True, retry=False, origin="revisar")
NOTEBOOK = QuestionMode("notebook_answer", origin="erradas")
