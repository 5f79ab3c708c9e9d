"""The web floor: HTTP in and HTML out.

- one router per feature (:mod:`app.web.lessons`, :mod:`app.web.quizzes`,
  :mod:`app.web.trees`, :mod:`app.web.progress`, :mod:`app.web.review`,
  :mod:`app.web.instructor`, ...); routers never import routers: what two of them share
  lives in a helper module (:mod:`app.web.lookups`, :mod:`app.web.places`,
  :mod:`app.web.flash`, :mod:`app.web.form_messages`, :mod:`app.web.answer_form`);
- :mod:`app.web.deps`: FastAPI dependencies (the course, the learner, the instructor);
- :mod:`app.web.templating`, :mod:`app.web.fragments`, :mod:`app.web.assets`: templates,
  page-or-fragment rendering, fingerprinted static files;
- middleware: :mod:`app.web.security` (CSRF, request guard), :mod:`app.web.headers`,
  :mod:`app.web.page_cache` (visitor pages served before routing);
- :mod:`app.web.errors`: every error page.

May import: content, platform, learning, analytics, authoring. Never imports cli.
"""
