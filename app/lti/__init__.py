"""The course as an LTI 1.3 tool: what an LMS (Moodle, Canvas...) launches, and the grades it
gets back. A room of its own, beside analytics and authoring: learning knows nothing of LMSs.

- :mod:`app.lti.tool`: the registered platforms and their confirmation, the tool's keys, the
  library's state, and the LMS origins the CSP lets frame the pages;
- :mod:`app.lti.launch`: who a launch signs in (and the class of its LMS course), where its
  grades go (a graded launch, kept in the session and signed into a page's forms), and linking
  the LMS person to a course account;
- :mod:`app.lti.scores`: the queue of scores, counted from the stored attempts, with its
  backoff and the passback state per class;
- :mod:`app.lti.library`: the LTI library (``pylti1p3``) wired to those tables: registrations,
  its key-value state, nonces used once, key sets fetched a bounded number of times, access
  tokens kept (blocking HTTP);
- :mod:`app.lti.sender`: the thread that sends the queued scores to the gradebooks (LTI AGS).

A score is queued with its answer, in the answer writer's transaction: the app gives the
writer :func:`app.lti.scores.queue_scores` as its outbox (``app/main.py``), so learning never
imports this room. The routes, and pylti1p3's Starlette adapters, are
:mod:`app.web.routes.lti`; ``curso lti`` is :mod:`app.cli.lti`. Requests hand their session
(:data:`app.web.deps.SessionDep`) down; only the sender's thread and the LMS origins' refresh,
which no request owns, open their own.

May import: learning, platform, content and i18n. Never imports analytics, authoring, web or
cli, nor a web framework (``[tool.importlinter]`` in ``pyproject.toml``).
"""
