"""Cold start: what the first page does not need is not imported when the app starts."""

from __future__ import annotations

import json
import subprocess
import sys

from app.platform.settings import PROJECT_ROOT
from tests.support.app import REPO_LESSONS, TEST_SECRET, make_settings

# Not needed to serve the home page from rendered lessons (a warm disk cache).
LAZY_ON_WARM_START = (
    "limits",
    "markdown_it",
    "pygments",
    "yaml",
    "snowballstemmer",
    "icu",
    "babel.messages",
)
# Imported by the code that uses them, never by `import app.main`.
LAZY_ON_IMPORT = (*LAZY_ON_WARM_START, "app.platform.ratelimit_store")

# One GET / straight through ASGI: a test client would import modules of its own (httpx, rich).
PROBE = """
import asyncio, json, logging, sys
logging.disable(logging.CRITICAL)
import app.main
imported = set(sys.modules)


async def get_home(asgi):
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": "/", "raw_path": b"/", "root_path": "", "query_string": b"",
        "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    await asgi(scope, receive, send)
    return sent[0]["status"]


if sys.argv[1] == "start":
    assert asyncio.run(get_home(app.main.create_app())) == 200
print(json.dumps({"import": sorted(imported), "start": sorted(sys.modules)}))
"""


def modules(what: str, env: dict | None = None) -> dict[str, set[str]]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, what],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    loaded = json.loads(out.strip().splitlines()[-1])
    return {phase: set(names) for phase, names in loaded.items()}


def heavy(loaded: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(p for p in packages if p in loaded)


def test_importing_the_app_loads_none_of_the_lazy_modules():
    assert heavy(modules("import")["import"], LAZY_ON_IMPORT) == []


def test_a_warm_start_serves_the_home_page_without_rendering_libraries(tmp_path):
    import os

    settings = make_settings(tmp_path, REPO_LESSONS, shared_cache=False)
    env = {
        **os.environ,
        "CURSO_DATABASE_URL": settings.database_url,
        "CURSO_LESSONS_DIR": str(REPO_LESSONS),
        "CURSO_VAR_DIR": str(settings.var_dir),
        "CURSO_SECRET_KEY": TEST_SECRET,
    }
    cold = modules("start", env)["start"]
    assert "markdown_it" in cold  # the first start renders the lessons...
    warm = modules("start", env)["start"]  # ...and the next one reads them from var/cache
    assert heavy(warm, LAZY_ON_WARM_START) == []
