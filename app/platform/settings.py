"""Typed settings, read from ``CURSO_*`` environment variables.

Every setting is documented in the README's "Configuração" table; a test keeps
the two in step.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.i18n import N_, gettext

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# What a bad setting says when the app starts (pt-BR from the catalog).
SHORT_SECRET_KEY = N_(
    "CURSO_SECRET_KEY needs at least 32 characters; make one with "
    "`python3 -c 'import secrets; print(secrets.token_urlsafe(48))'` "
    "or leave it unset, so that one is created in var/."
)
BAD_PUBLIC_URL = N_(
    "Invalid CURSO_PUBLIC_URL (%(value)s); use the site's full address, "
    "such as `https://curso.example.org`, or leave it empty."
)
BAD_RATE_LIMIT_STORAGE = N_(
    "Invalid CURSO_RATE_LIMIT_STORAGE (%(error)s); use `database` (the course's database), "
    "`memory://` (one process) or the URI of a storage of the limits library, such as "
    "`redis://host:6379`, with its driver installed."
)
INVALID_SETTING = N_("Invalid setting in %(name)s: %(detail)s")


class Settings(BaseSettings):
    """Runtime configuration of one app instance.

    Attributes:
        database_url: SQLAlchemy URL of the learner database. Default: a SQLite
            file ``var/curso.db`` under the project folder.
        lessons_dir: folder holding the lesson ``*.md`` files.
        reload_interval: seconds between looks at the lesson files for changes (each look
            is one ``stat`` per file); ``0`` looks on every request.
        var_dir: folder for runtime files (the SQLite file, the generated secret key).
        secret_key: key that signs the CSRF cookie. When unset, one is
            generated once and kept in ``var_dir/secret_key``.
        secure_cookies: mark cookies ``Secure`` (set it when served over HTTPS).
        rate_limit_storage: where the ``limits`` library counts failed sign-ins:
            ``database`` (the default: the app's database, shared by every worker),
            ``memory://`` (one process) or a ``limits`` URI such as ``redis://host:6379``.
        dashboard_max_age: seconds the instructor dashboard's figures are reused before they
            are computed again (its "Recalcular agora" button does it at once); ``0``
            computes them on every visit.
        public_url: the site's address as readers reach it (``https://curso.example.org``),
            used for the canonical links and ``/sitemap.xml``. Empty: the address of each
            request.
        web_editor: the lesson editor in the browser (``/instrutor/licoes/<slug>/editar``).
            With several machines, the lessons folder must be shared storage, or this must be
            off: each machine would otherwise edit its own copy.
        debug: show tracebacks on failing requests (Starlette's debug page). Off by default;
            it must stay off in production, where a failure shows the plain 500 page.
        anonymous_retention_days: days after their last activity that an anonymous learner
            nobody can reach any more (no live session) is erased
            (:mod:`app.learning.retention`).
    """

    model_config = SettingsConfigDict(env_prefix="CURSO_", extra="ignore")

    database_url: str = ""
    lessons_dir: Path = PROJECT_ROOT / "lessons"
    reload_interval: float = Field(default=1.0, ge=0, allow_inf_nan=False)
    var_dir: Path = PROJECT_ROOT / "var"
    secret_key: str | None = Field(default=None, repr=False)
    secure_cookies: bool = False
    rate_limit_storage: str = "database"
    dashboard_max_age: int = Field(default=900, ge=0)
    public_url: str = ""
    web_editor: bool = True
    debug: bool = False
    anonymous_retention_days: int = Field(default=30, ge=1, le=3650)

    @field_validator("secret_key", mode="before")
    @classmethod
    def _empty_is_unset(cls, value):
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("secret_key")
    @classmethod
    def _strong_enough(cls, value: str | None) -> str | None:
        if value is not None and len(value) < 32:
            raise ValueError(gettext(SHORT_SECRET_KEY))
        return value

    @field_validator("public_url")
    @classmethod
    def _absolute_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if value and not re.fullmatch(r"https?://[^/\s?#]+(/[^\s?#]*)?", value):
            raise ValueError(gettext(BAD_PUBLIC_URL) % {"value": repr(value)})
        return value

    @field_validator("rate_limit_storage")
    @classmethod
    def _known_storage(cls, value: str) -> str:
        if value == "database":
            return value
        from limits.storage import storage_from_string  # only here: limits is slow to import

        try:
            storage_from_string(value)
        except Exception as exc:  # limits raises ConfigurationError or a driver's ImportError
            raise ValueError(gettext(BAD_RATE_LIMIT_STORAGE) % {"error": exc}) from exc
        return value

    def resolved_database_url(self) -> str:
        """Return the database URL, defaulting to ``sqlite:///<var_dir>/curso.db``.

        Creates ``var_dir`` when the default is used, so SQLite can create its file.
        """
        if self.database_url:
            return self.database_url
        self.var_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{self.var_dir / 'curso.db'}"

    def resolved_secret_key(self) -> str:
        """Return the signing key: the configured one, or one kept in ``var_dir``.

        The generated key is 64 URL-safe characters, written once with mode 0600 and
        read back on later starts, so sessions survive a restart.
        """
        if self.secret_key:
            return self.secret_key
        path = self.var_dir / "secret_key"
        if path.exists():
            return path.read_text(encoding="utf-8").strip()
        self.var_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        try:
            # O_EXCL: when two workers start together, one writes and both read it.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_text(encoding="utf-8").strip()
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(key)
        return key


def load_settings() -> Settings:
    """Read the settings from the environment, or stop with a message that says what to fix.

    Raises:
        SystemExit: (code 2) a setting is invalid; the message names the variable.
    """
    try:
        return Settings()
    except ValidationError as exc:
        lines = []
        for error in exc.errors(include_url=False):
            name = "CURSO_" + "_".join(str(p) for p in error["loc"]).upper()
            detail = str((error.get("ctx") or {}).get("error", error["msg"])).removeprefix(
                "Value error, "
            )
            lines.append(gettext(INVALID_SETTING) % {"name": name, "detail": detail})
        raise SystemExit("\n".join(lines)) from None
