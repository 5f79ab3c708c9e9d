"""What a refused answer form says (lesson quizzes and the review page share them)."""

from __future__ import annotations

from app.platform.i18n import N_

QUESTION_NOT_FOUND = N_("Question not found in this lesson. Reload the page.")
STALE_FORM = N_("This form is out of date. Reload the page and answer again.")
REUSED_FORM = N_("This submission belongs to another question. Reload the page and answer again.")
QUESTION_CHANGED = N_("This question changed; read it again and answer.")
