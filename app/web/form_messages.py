"""What a refused answer form says (lesson quizzes and the review page share them)."""

from __future__ import annotations

from app.learning import usecases
from app.learning.usecases import FormRefused
from app.platform.i18n import N_, gettext

QUESTION_NOT_FOUND = N_("Question not found in this lesson. Reload the page.")
STALE_FORM = N_("This form is out of date. Reload the page and answer again.")
REUSED_FORM = N_("This submission belongs to another question. Reload the page and answer again.")
QUESTION_CHANGED = N_("This question changed; read it again and answer.")


def refusal_message(refused: FormRefused) -> str:
    """The message of a form the answer use-case refused, in the learner's language."""
    return gettext(
        {
            usecases.STALE_FORM: STALE_FORM,
            usecases.QUESTION_CHANGED: QUESTION_CHANGED,
            usecases.REUSED_KEY: REUSED_FORM,
        }[refused.reason]
    )
