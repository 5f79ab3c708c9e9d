"""A small TLS-terminating reverse proxy, as nginx in front of the course would be: it serves
HTTPS and passes each request to the course over HTTP with the client's ``Host`` and
``X-Forwarded-Proto: https`` / ``X-Forwarded-For``, and the answer back byte for byte.

Run by :class:`TlsProxy` as ``uvicorn --factory tests.support.tls_proxy:create_proxy_app`` with
``PROXY_UPSTREAM`` (the course's ``http://127.0.0.1:<port>``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from app.platform.settings import PROJECT_ROOT
from tests.support.server import wait_until_up
from tests.support.tls import TlsFiles

HOP_BY_HOP = {b"host", b"connection", b"keep-alive", b"transfer-encoding", b"x-forwarded-for"}


def create_proxy_app() -> Any:
    """The proxy's ASGI app."""
    upstream = os.environ["PROXY_UPSTREAM"]
    client = httpx.AsyncClient(base_url=upstream, timeout=30)

    async def app(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                event = (await receive())["type"]
                if event == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif event == "lifespan.shutdown":
                    await client.aclose()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        sent = dict(scope["headers"])
        headers = [(k, v) for k, v in scope["headers"] if k not in HOP_BY_HOP]
        headers += [
            (b"host", sent.get(b"host", b"")),
            (b"x-forwarded-proto", b"https"),
            (b"x-forwarded-for", scope["client"][0].encode()),
        ]
        path = scope["raw_path"] + (b"?" + scope["query_string"] if scope["query_string"] else b"")
        request = client.build_request(
            scope["method"], path.decode(), headers=headers, content=body
        )
        response = await client.send(request, stream=True)
        kept = [(k, v) for k, v in response.headers.raw if k.lower() not in HOP_BY_HOP]
        await send({"type": "http.response.start", "status": response.status_code, "headers": kept})
        async for chunk in response.aiter_raw():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await response.aclose()
        await send({"type": "http.response.body", "body": b""})

    return app


@dataclass
class TlsProxy:
    """The proxy as a uvicorn process with TLS on 127.0.0.1, in front of ``upstream``."""

    folder: Path
    port: int
    upstream: str
    tls: TlsFiles
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        log = open(self.folder / "proxy.log", "a")  # noqa: SIM115 (kept open for the process)
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "uvicorn", "--factory"),
                "tests.support.tls_proxy:create_proxy_app",
                *("--host", "127.0.0.1", "--port", str(self.port), "--no-access-log"),
                *("--ssl-certfile", str(self.tls.cert), "--ssl-keyfile", str(self.tls.key)),
                *("--timeout-graceful-shutdown", "2"),
            ],
            cwd=PROJECT_ROOT,
            env={**os.environ, "PROXY_UPSTREAM": self.upstream},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_until_up(self.url + "/healthz", self.tls.client_context(), "o proxy TLS")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=15)
