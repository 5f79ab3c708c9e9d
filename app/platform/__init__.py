"""The platform floor: what every feature stands on, and the schema of everything stored.

- :mod:`app.platform.settings`: the app's settings (environment variables);
- :mod:`app.platform.db`: engines (SQLite in WAL with foreign keys, or PostgreSQL), the
  write transaction and the dialect's upsert;
- :mod:`app.platform.models`: every feature's tables (SQLModel, one module per feature:
  learners, accounts, authoring, classes, tallies, mastery, LTI) and their Core handles,
  created only by Alembic. The tables are the one part about teaching: they live here so
  that every floor above reads one schema; the rules that fill them live in learning,
  analytics and authoring;
- :mod:`app.platform.migrate`, :mod:`app.platform.backup`: migrations and backups;
- :mod:`app.platform.sessions`: server-side sessions (the table behind a per-process cache);
- :mod:`app.platform.auth`, :mod:`app.platform.ratelimit_store`: passwords and sign-in limits;
- :mod:`app.platform.logs`: the JSON logs (one line per request);

The JSON shapes the API returns are not here: they live with the API (:mod:`app.web.public`).

May import: :mod:`app.content` (only for types). Never imports learning, analytics,
authoring, web or cli (``[tool.importlinter]`` in ``pyproject.toml``).
"""
