"""The learning floor: what a learner's actions mean, as plain functions (no HTTP, no SQL).

It sits above ``app/content`` (lessons, quizzes, trees) and below storage and the web layer:

- :mod:`app.learning.state`: a learner's stored state, read once per request
  (:class:`LearnerState`);
- :mod:`app.learning.progress`: progress over the course and where to resume;
- :mod:`app.learning.views`: how one question shows to one learner;
- :mod:`app.learning.trees`: a decision tree at one point of a walk;
- :mod:`app.learning.usecases`: one function per learner action (open a lesson, answer, read
  progress), data in and data out; the storage they need is passed in (:class:`LearnerStore`).
"""
