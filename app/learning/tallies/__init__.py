"""The dashboard's tallies, kept as each answer is written.

Tables (``app/platform/models/tallies.py``):

- ``first_try``: per learner × question version, the first attempt (see
  :data:`app.learning.rules.FIRST_TRY_ORDER`) and the counts since. This is a learner's *state*.
- ``question_tally``: per question version, attempts, learners and right first tries.
- ``learner_tally``: per learner, the latest attempt, the course score and the first tries
  at the basis versions (as text, :mod:`~app.learning.tallies.codec`).
- ``lesson_tally``: per lesson, learners who started it and who completed it.
- ``score_tally``: first tries at a current version, by course score and answer (what
  the 27% groups are cut from).
- ``tally_basis``: the question versions the last three count as current.

Every counter is a sum over learners of what one learner's state contributes. Three modules:

- :mod:`~app.learning.tallies.fold` (pure): folding attempts into a state, and a state's
  contribution to every counter;
- :mod:`~app.learning.tallies.write`: the incremental writes, in the caller's transaction:
  new answers (:func:`~app.learning.tallies.write.record_in_tallies`) add the difference of
  their learners' contributions; deleted or moved attempts recount their learners
  (:func:`~app.learning.tallies.write.recount_learners`);
- :mod:`~app.learning.tallies.rebuild`: everything computed again from ``attempt`` in SQL
  (:func:`~app.learning.tallies.rebuild.rebuild`), and the score-dependent tables recounted
  when the course's question versions change
  (:func:`~app.learning.tallies.rebuild.sync_basis`).

:mod:`~app.learning.tallies.codec` owns the text of ``learner_tally.answers``: written in
Python and in SQL, read back, and scanned by the dashboard.
"""
