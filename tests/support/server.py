"""A real uvicorn on a free port with its own database, and helpers that act on it."""

from __future__ import annotations

import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from app.platform.settings import PROJECT_ROOT, Settings
from tests.support.accounts import sign_up
from tests.support.app import TEST_SECRET, make_settings
from tests.support.tls import TlsFiles

# Chromium's headless mode is the whole browser: each new context opens a window whose address
# bar preloads two hidden WebUI pages (the omnibox popup and its "AI mode" one), each in a
# renderer of its own. Nothing here has an address bar to show; turning both off took a third
# of the CPU of opening a context and two pages (0.19 of 0.68 s), and the suite opens hundreds.
HIDDEN_WEBUI_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]


def _playwright_disabled_features() -> list[str]:
    """The features Playwright itself turns off (its ``chromiumSwitches``).

    Chromium reads only the last ``--disable-features``, so a list of ours must repeat them.

    Raises:
        RuntimeError: Playwright's bundle no longer holds the list where it is looked for.
    """
    import playwright

    bundle = Path(playwright.__file__).parent / "driver" / "package" / "lib" / "coreBundle.js"
    found = re.search(r"disabledFeatures = \[(.*?)\]", bundle.read_text(encoding="utf-8"), re.S)
    names = found and re.findall(r'^\s*"(\w+)"', found.group(1), re.M)
    if not names:
        raise RuntimeError(f"a lista de recursos desligados pelo Playwright sumiu de {bundle}")
    return names


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-features=" + ",".join(_playwright_disabled_features() + HIDDEN_WEBUI_FEATURES),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LiveServer:
    """A real uvicorn process serving a temporary database and lessons folder."""

    tmp: Path
    lessons_dir: Path
    port: int = 0
    process: subprocess.Popen | None = None
    database_url: str = ""
    workers: int = 1
    tls: TlsFiles | None = None  # served over HTTPS with these files, its cookies Secure
    extra_env: dict[str, str] = field(default_factory=dict)
    extra_args: list[str] = field(default_factory=list)  # more uvicorn flags

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def verify(self) -> ssl.SSLContext | bool:
        """What an httpx client must trust to reach the server (the test CA under TLS)."""
        return self.tls.client_context() if self.tls else True

    @property
    def database(self) -> Path:
        return self.tmp / "curso.db"

    @property
    def log_path(self) -> Path:
        return self.tmp / f"uvicorn-{self.port}.log"

    @property
    def settings(self) -> Settings:
        return Settings(
            database_url=self.database_url or f"sqlite:///{self.database}",
            lessons_dir=self.lessons_dir,
            var_dir=self.tmp / "var",
            secret_key=TEST_SECRET,
        )

    def start(self) -> None:
        make_settings(self.tmp, self.lessons_dir, database_url=self.database_url or None)
        self.port = free_port()
        env = {
            **os.environ,
            "CURSO_DATABASE_URL": self.settings.database_url,
            "CURSO_LESSONS_DIR": str(self.lessons_dir),
            "CURSO_VAR_DIR": str(self.tmp / "var"),
            "CURSO_SECRET_KEY": TEST_SECRET,
            **self.extra_env,
        }
        tls_args = []
        if self.tls:
            env.update({**self.tls.env(), "CURSO_SECURE_COOKIES": "true"})
            tls_args = ["--ssl-certfile", str(self.tls.cert), "--ssl-keyfile", str(self.tls.key)]
            # Chromium keeps its TLS connections open, and uvicorn would wait for them to close.
            tls_args += ["--timeout-graceful-shutdown", "2"]
        log = open(self.log_path, "w")  # noqa: SIM115 (kept open for the process)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "app.main:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                str(self.workers),
                "--no-access-log",
                *tls_args,
                *self.extra_args,
            ],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so a test can kill -9 it whole
        )
        wait_until_up(self.url + "/", self.verify, "uvicorn")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def kill(self) -> None:
        """``kill -9`` the server and its workers at once, as a crash would."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def wait_until_up(url: str, verify: bool | ssl.SSLContext, name: str, seconds: float = 60) -> None:
    """Wait until ``url`` answers 200 (a server of the tests starting up).

    Raises:
        RuntimeError: it did not within ``seconds``; the message names ``name``.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1, verify=verify).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"{name} não respondeu em {seconds:.0f} s")


def grant_instructor(server: LiveServer, username: str, admin: bool = False) -> None:
    """``curso instrutor adicionar USERNAME`` (``--admin`` with ``admin``) on the server's
    database, in this process (a new interpreter cost ~0.8 s of CPU; the command itself is
    tested in tests/test_instructor.py)."""
    from tests.support.cli import curso

    done = curso(server.settings, "instrutor", "adicionar", username, *(["--admin"] * admin))
    assert done.returncode == 0, done.stderr


@contextmanager
def server_with_instructors(
    tmp_path: Path, folder: Path, *names: str, **options: Any
) -> Iterator[LiveServer]:
    """A live server of the lessons in ``folder`` (``options``: :class:`LiveServer`'s) on which
    each of ``names`` signed up and was made an instructor."""
    server = LiveServer(tmp_path, folder, **options)
    server.start()
    try:
        for name in names:
            with httpx.Client(base_url=server.url) as client:
                assert sign_up(client, name).status_code == 303
            grant_instructor(server, name)
        yield server
    finally:
        server.stop()


@contextmanager
def reloading_server(tmp_path: Path, folder: Path, monkeypatch, instructor: str = "professora"):
    """A live server that looks at the lesson files on every request, with an instructor account."""
    monkeypatch.setenv("CURSO_RELOAD_INTERVAL", "0")
    with server_with_instructors(tmp_path, folder, instructor) as server:
        yield server


@contextmanager
def servers_on_one_database(tmp_path: Path, folder: Path, database_url: str = ""):
    """Two uvicorn processes (two workers, each with its own caches) on one database: one
    SQLite file in ``tmp_path``, or the PostgreSQL database ``database_url``."""
    first = LiveServer(tmp_path, folder, database_url=database_url)
    second = LiveServer(tmp_path, folder, database_url=database_url)
    first.start()
    try:
        second.start()
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()
