"""The learning floor: what a learner's actions mean, and where they are kept.

Rules and use-cases (plain functions, data in and out; no HTTP):

- :mod:`app.learning.rules`, :mod:`app.learning.grading`: when an answer is right (a form
  graded by its question's kind), when a lesson is done;
- :mod:`app.learning.state`: a learner's stored state, read once per request;
- :mod:`app.learning.progress`: progress over the course and where to resume;
- :mod:`app.learning.views`: how one question shows to one learner;
- :mod:`app.learning.draws`, :mod:`app.learning.variants`: which questions of a pool, and which
  variant of a numeric question, each learner gets (seeded with the server's secret);
- :mod:`app.learning.notebook`: the notebook of mistakes on the review page;
- :mod:`app.learning.trees`, :mod:`app.learning.compare`: a decision tree at one point of a
  walk, and engines side by side;
- :mod:`app.learning.usecases`: one function per learner action (open a lesson, answer, read
  progress); the storage they need is passed in (:class:`LearnerStore`);
- :mod:`app.learning.credentials`: a course account's username and password checked under the
  sign-in limits, the one path of every form that signs in with them.

Storage of what learners do (SQL through SQLModel):

- :mod:`app.learning.store`: attempts, places and walks; :mod:`app.learning.writer`: the
  process's one writer of answers and places, which also stores what another floor hands it
  with an answer (its outbox, given by the app); :mod:`app.learning.learners`: learners and
  their data; :mod:`app.learning.retention`: anonymous learners nobody can reach, erased after
  a period; :mod:`app.learning.tallies`: the dashboard's tallies, kept with each answer;
- :mod:`app.learning.review`, :mod:`app.learning.mastery`: spaced review and mastery per
  concept; :mod:`app.learning.classes`, :mod:`app.learning.instructors`: classes and staff;
- :mod:`app.learning.renames`: a lesson's new slug, carried through every row that names it.

May import: content and platform. Never imports a floor or room above it (analytics and the
rooms beside it, web, cli: the layers of ``[tool.importlinter]`` in ``pyproject.toml``), nor a
web framework directly; the sessions it ends live in :mod:`app.platform.sessions`, which uses
Starlette's request types.
"""
