"""Which variant of a numeric question each learner answers (pure functions, no storage).

- A learner's try number ``n`` at a question (their attempts at it so far, plus one) is a
  variant chosen by an HMAC-SHA-256 of the server's secret over the learner, the lesson, the
  question and ``n``: the same on every reload and device until they answer, another one for
  the next try, and different between learners (:func:`learner_variant`).
- A visitor (no learner yet) gets the page's variant, the same for every visitor, so the page
  stays cacheable (:func:`page_variant`).
- The form carries which variant it showed, signed (:func:`variant_token`): the answer is
  graded against that one, and nobody can send another learner's variant
  (:func:`read_token`); a learner who has stored nothing yet, or an anonymous one who has
  answered nothing yet (a hint opened gave them their id), may also send the visitors' one (a
  page shown before they had an id: what any visitor may answer). The parameters are
  stored with the attempt (``attempt.variant``), so the graded answer shows the numbers it
  was given, and an edited question (a new version) never regrades an old variant.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from app.content.quiz import Question
from app.content.variants import decode, instance
from app.learning.state import AttemptRow

PAGE_OWNER = ""  # the owner of the visitors' variant in a token


def _index(digest: str, question: Question) -> int:
    assert question.variants is not None
    return int(digest, 16) % len(question.variants.grid)


def learner_variant(
    secret: bytes, learner_id: str, slug: str, question: Question, number: int
) -> int:
    """The variant (index in the grid) of a learner's try ``number`` at ``question``."""
    message = f"{learner_id}\x00{slug}\x00{question.id}\x00{number}".encode()
    return _index(hmac.new(secret, message, hashlib.sha256).hexdigest(), question)


def page_variant(slug: str, question: Question) -> int:
    """The visitors' variant: from the lesson, the question and its version (no learner)."""
    text = f"page\x00{slug}\x00{question.id}\x00{question.content_hash}"
    return _index(hashlib.sha256(text.encode()).hexdigest(), question)


def _signature(secret: bytes, owner: str, slug: str, question: Question, index: int) -> str:
    message = f"variant\x00{owner}\x00{slug}\x00{question.id}\x00{question.content_hash}\x00{index}"
    return hmac.new(secret, message.encode(), hashlib.sha256).hexdigest()[:20]


def variant_token(secret: bytes, owner: str, slug: str, question: Question, index: int) -> str:
    """What the form carries (``variante``): the variant's index and its signature for
    ``owner`` (the learner, or :data:`PAGE_OWNER` on a visitor's page)."""
    return f"{index}.{_signature(secret, owner, slug, question, index)}"


def read_token(
    secret: bytes, token: str | None, owners: Sequence[str], slug: str, question: Question
) -> int | None:
    """The variant a form showed, when its token is signed for one of ``owners``; else
    ``None`` (a form of another learner, of another version, or tampered with)."""
    index_text, _, signature = (token or "").partition(".")
    if not index_text.isascii() or not index_text.isdigit() or len(index_text) > 6:
        return None
    index = int(index_text)
    if question.variants is None or index >= len(question.variants.grid):
        return None
    for owner in owners:
        if hmac.compare_digest(signature, _signature(secret, owner, slug, question, index)):
            return index
    return None


def form_variant(
    secret: bytes, learner_id: str | None, slug: str, question: Question, tries: int
) -> tuple[Question, str]:
    """The variant a form shows now, and its token: a learner's next try (``tries`` so far),
    or the visitors' variant."""
    assert question.variants is not None
    if learner_id is None:
        index, owner = page_variant(slug, question), PAGE_OWNER
    else:
        index, owner = learner_variant(secret, learner_id, slug, question, tries + 1), learner_id
    shown = instance(question, question.variants.point(index))
    return shown, variant_token(secret, owner, slug, question, index)


def answered_variant(question: Question, attempt: AttemptRow) -> Question:
    """The question as the variant of ``attempt`` showed it (its stored parameters); the
    question itself when the attempt has none or they are no longer in its grid."""
    variants = question.variants
    params = decode(attempt.variant)
    if variants is None or not params or variants.index_of(params) is None:
        return question
    return instance(question, params)
