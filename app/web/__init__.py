"""The web floor: HTTP in and HTML out. Two rooms:

- :mod:`app.web.routes`: one router per feature; routers never import routers;
- the kit, here, which the routers share: :mod:`app.web.deps` (FastAPI dependencies: the
  course, the learner, the instructor, the database), :mod:`app.web.forms` (the answer
  form, what a refused form says, the flash keys), :mod:`app.web.lookups` (a lesson or
  tree from its URL, 404/503), :mod:`app.web.templating` and :mod:`app.web.fragments`
  (page-or-fragment rendering, rendering with a token hole), the HTML caches
  (:mod:`app.web.splice`, the codec; :mod:`app.web.page_cache`, the pages by key),
  :mod:`app.web.public` (the JSON shapes the API returns), :mod:`app.web.urls`,
  :mod:`app.web.assets`, :mod:`app.web.errors`, and the one middleware of ours,
  :mod:`app.web.front_door` (its rules in :mod:`app.web.security`, :mod:`app.web.headers`).

May import: content, platform, learning, analytics, authoring. Never imports cli.
"""
