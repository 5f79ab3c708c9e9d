"""The course as an LTI 1.3 tool: what an LMS (Moodle, Canvas...) launches, and the grades it
gets back. A room of its own, beside analytics and authoring: learning knows nothing of LMSs.

- :mod:`app.lti.tool`: the registered platforms and their confirmation, the tool's keys, the
  library's state, who a launch signs in and the class of each LMS course, the graded launches
  (signed for a page's forms), the queue of scores and its passback state per class, and the
  LMS origins the CSP lets frame the pages (no HTTP here);
- :mod:`app.lti.library`: the LTI library (``pylti1p3``) wired to those tables: registrations,
  its key-value state, nonces used once, key sets fetched a bounded number of times, access
  tokens kept;
- :mod:`app.lti.sender`: the thread that sends the queued scores to the gradebooks (LTI AGS).

A score is queued with its answer, in the answer writer's transaction: the app gives the
writer :func:`app.lti.tool.queue_scores` as its outbox (``app/main.py``), so learning never
imports this room. The routes, and pylti1p3's Starlette adapters, are
:mod:`app.web.routes.lti`; ``curso lti`` is :mod:`app.cli.lti`.

May import: learning, platform, content and i18n. Never imports analytics, authoring, web or
cli, nor a web framework (``[tool.importlinter]`` in ``pyproject.toml``).
"""
