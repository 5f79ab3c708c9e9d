"""The platform floor: what every feature stands on, none of it about teaching.

- :mod:`app.platform.settings`: the app's settings (environment variables);
- :mod:`app.platform.db`: engines (SQLite in WAL with foreign keys, or PostgreSQL);
- :mod:`app.platform.models`: the tables (SQLModel), created only by Alembic;
- :mod:`app.platform.migrate`, :mod:`app.platform.backup`: migrations and backups;
- :mod:`app.platform.sessions`: server-side sessions;
- :mod:`app.platform.auth`, :mod:`app.platform.ratelimit_store`: passwords and sign-in limits;
- :mod:`app.platform.logs`: the request log;

May import: :mod:`app.content` (only for types). Never imports learning, analytics,
authoring, web or cli (``[tool.importlinter]`` in ``pyproject.toml``).
"""
