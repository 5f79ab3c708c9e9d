"""The answer use-case's storage in a dict, for tests of the use-cases without a database."""

from __future__ import annotations

from datetime import UTC, datetime

from app.learning.state import (
    AttemptRow,
    DuplicateKeyError,
    LearnerState,
    NewAnswer,
    Place,
    Written,
)


class MemoryStore:
    """The use-cases' storage in a dict: what the writer does, without a database."""

    def __init__(self) -> None:
        self.sent: list[NewAnswer] = []  # every answer the use-case gave it, in order
        self.attempts: dict[str, list[AttemptRow]] = {}
        self.keys: dict[tuple[str, str], AttemptRow] = {}
        self.places: dict[str, Place] = {}
        self.reads = 0

    def read_state(self, learner_id: str | None) -> LearnerState:
        self.reads += 1
        if learner_id is None:
            return LearnerState(None)
        mine = tuple(self.attempts.get(learner_id, ()))
        return LearnerState(
            learner_id, learner_id in self.places, self.places.get(learner_id), mine
        )

    def move_place(self, learner_id: str, place: Place) -> None:
        self.places[learner_id] = place

    async def store_answer(self, answer: NewAnswer) -> Written:
        self.sent.append(answer)
        known = self.keys.get((answer.learner_id, answer.key))
        if known is not None:
            if (known.lesson_slug, known.question_id) != (answer.lesson_slug, answer.question_id):
                raise DuplicateKeyError(answer.key)
            return Written(known, False, answer.learner_id)
        row = AttemptRow(*answer.graded, datetime.now(UTC), len(self.keys) + 1)
        self.keys[(answer.learner_id, answer.key)] = row
        self.attempts.setdefault(answer.learner_id, []).append(row)
        self.places[answer.learner_id] = Place(answer.lesson_slug)
        return Written(row, True, answer.learner_id)
