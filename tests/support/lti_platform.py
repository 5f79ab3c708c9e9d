"""A real LTI 1.3 platform for the tests: ``lti1p3platform`` 0.1.8 (PyPI) served by uvicorn.

It plays the LMS: OIDC login initiation (``/launch``), the authorization endpoint that signs
the launch (``/auth``), its JWKS, the token endpoint, AGS line items and scores, and the
deep-linking return. What it received (line items, scores with their comments, content items)
is kept in ``gradebook.json`` in its folder, so it survives a restart; ``/gradebook`` shows it.

Quirks of 0.1.8 handled here: its FastAPI request adapter is commented out in the wheel
(:func:`_metadata` builds the request), and an AGS score answer has an empty body (pylti1p3
JSON-decodes any non-empty body).

Run as ``python -m tests.support.lti_platform`` with ``PLATFORM_DIR``, ``PLATFORM_PORT`` and
``TOOL_URL`` in the environment; :class:`PlatformServer` does that.
"""

# No `from __future__ import annotations`: FastAPI reads the endpoints' annotations at runtime.

import base64
import json
import os
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from app.platform.settings import PROJECT_ROOT
from tests.support.html import soup
from tests.support.tls import TlsFiles

CLIENT_ID = "curso-no-moodle"
DEPLOYMENT_ID = "implantacao-1"
ROLES = {
    "aluno": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
    "professor": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"],
}


def seconds(timestamp: str) -> int:
    """An ISO 8601 timestamp in whole seconds since 1970, as Moodle's ``strtotime`` reads it."""
    return int(datetime.fromisoformat(timestamp).timestamp())


STORAGE_FRAME = "armazenamento-lti"
STORAGE_PAGE = """<!doctype html><html lang="pt-BR"><title>Armazenamento</title><script>
window.recebidas = [];
var kept = {};
window.addEventListener("message", function (evt) {
  var data = evt.data;
  if (!data || typeof data !== "object" || !/^lti\\.(put|get)_data$/.test(data.subject)) return;
  window.recebidas.push({subject: data.subject, key: data.key, origin: evt.origin});
  var key = evt.origin + " " + data.key;
  var reply = {subject: data.subject + ".response", message_id: data.message_id, key: data.key};
  if (data.subject === "lti.put_data") { kept[key] = data.value; reply.value = data.value; }
  else reply.value = __TAMPER__ ? "outro-valor" : kept[key];
  evt.source.postMessage(reply, evt.origin);
});
</script></html>"""


def _metadata(request: Any, form: dict[str, Any], body: Any) -> dict[str, Any]:
    return {
        "method": request.method,
        "form_data": form,
        "get_data": dict(request.query_params),
        "headers": request.headers,
        "content_type": request.headers.get("content-type"),
        "path": request.url.path,
        "json": body,
    }


def create_platform_app():  # noqa: C901 (one closure per endpoint)
    """The platform's FastAPI app (configured from the environment)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from fastapi import FastAPI, Request
    from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
    from lti1p3platform.exceptions import LineItemNotFoundException
    from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
    from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
    from lti1p3platform.oidc_login import OIDCLoginAbstract
    from lti1p3platform.registration import Registration
    from lti1p3platform.request import Request as PlatformRequest
    from lti1p3platform.score import UpdateScoreStatus
    from lti1p3platform.service_connector import AssignmentsGradesService

    folder = Path(os.environ["PLATFORM_DIR"])
    base = os.environ.get("PLATFORM_URL") or f"http://127.0.0.1:{os.environ['PLATFORM_PORT']}"
    tool = os.environ["TOOL_URL"]
    key_file = folder / "platform-key.pem"
    if not key_file.exists():
        private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        key_file.write_bytes(
            private.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    private = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    private_pem = key_file.read_text()
    public_pem = (
        private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    book_file = folder / "gradebook.json"

    def book() -> dict[str, Any]:
        if book_file.exists():
            return json.loads(book_file.read_text())
        return {"lineitems": [], "scores": [], "content_items": []}

    def save(data: dict[str, Any]) -> None:
        # Whole or not at all: a reader of /gradebook never sees a file half written.
        partial = book_file.with_suffix(".json.tmp")
        partial.write_text(json.dumps(data, ensure_ascii=False, indent=1))
        os.replace(partial, book_file)

    class Conf(LTI1P3PlatformConfAbstract):
        def init_platform_config(self, **kwargs: Any) -> None:
            pass

        def get_registration_by_params(self, **kwargs: Any) -> Registration:
            # A new registration per request: the tool's JWKS is fetched on each token request.
            return (
                Registration()
                .set_iss(base)
                .set_client_id(CLIENT_ID)
                .set_deployment_id(DEPLOYMENT_ID)
                .set_oidc_login_url(tool + "/lti/login")
                .set_launch_url(tool + "/lti/launch")
                .set_deeplink_launch_url(tool + "/lti/launch")
                .set_tool_key_set_url(tool + "/lti/jwks.json")
                .set_platform_public_key(public_pem)
                .set_platform_private_key(private_pem)
            )

    class Req(PlatformRequest):
        def __init__(self, metadata: dict[str, Any]) -> None:
            # PlatformRequest types ``request`` as its framework's request; ours is the dict
            # its accessors read (method, form_data, get_data, headers).
            self.request = metadata  # type: ignore[assignment]

    class Login(OIDCLoginAbstract):
        storage_target = ""  # LTI Platform Storage: the frame named to the tool

        def set_lti_message_hint(self, **kwargs: Any) -> None:
            self._lti_message_hint = kwargs["hint"]

        def get_redirect(self, url: str) -> Any:
            if self.storage_target:
                url += "&" + urlencode({"lti_storage_target": self.storage_target})
            return RedirectResponse(url, status_code=302)

    class Launch(LTIAdvantageMessageLaunchAbstract):
        storage_target = ""

        def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> Any:
            values = {name: launch_data[name] for name in ("id_token", "state")}
            if self.storage_target:
                values["lti_storage_target"] = self.storage_target
            fields = "".join(
                f'<input type="hidden" name="{name}" value="{escape(str(value))}">'
                for name, value in values.items()
            )
            return HTMLResponse(
                f'<!doctype html><html lang="pt-BR"><title>LMS</title><body>'
                f'<form method="post" action="{escape(launch_data["launch_url"])}" id="f">'
                f"{fields}<button>Enviar</button></form>"
                f"<script>document.getElementById('f').submit()</script></body></html>"
            )

    class Grades(AssignmentsGradesService):
        # The library's own signature, untyped there: annotating it here would not check more.
        def find_lineitems(self, page=1, limit=None, **filters):  # noqa: ANN001
            return {"content": book()["lineitems"], "has_next": False, "next": None}

        def find_lineitem(self, line_item_id: str):
            for item in book()["lineitems"]:
                if item["id"].rstrip("/").endswith("/" + line_item_id):
                    return item
            raise LineItemNotFoundException()

        def create_lineitem(self, creation_data):
            data = book()
            item = dict(creation_data)
            item["id"] = f"{base}/lineitems/{len(data['lineitems']) + 1}"
            data["lineitems"].append(item)
            save(data)
            return item

        def update_lineitem(self, update_data):
            return update_data

        def delete_lineitem(self, line_item_id: str) -> None:
            return None

        def update_score(self, line_item_id: str, score):
            self.find_lineitem(line_item_id)
            data = book()
            data["scores"].append({"lineitem": line_item_id, **score})
            save(data)
            return UpdateScoreStatus.SUCCESS

        def get_results(self, line_item_id: str, page=1, limit=None, user_id=None):
            return {"content": [], "has_next": False, "next": None}

    app = FastAPI()

    @app.get("/jwks")
    def jwks():
        """The platform's keys; each fetch is counted in ``jwks-fetches``, and the answer's
        ``Cache-Control`` is the text of ``jwks-cache-control`` when the file exists."""
        counter = folder / "jwks-fetches"
        counter.write_text(str(int(counter.read_text() or 0) + 1 if counter.exists() else 1))
        control = folder / "jwks-cache-control"
        headers = {"Cache-Control": control.read_text()} if control.exists() else {}
        return JSONResponse({"keys": [Registration.get_jwk(public_pem)]}, headers=headers)

    @app.get("/launch")
    def launch(request: Request):
        """OIDC login initiation: ``?user=&papel=aluno|professor&licao=&contexto=&link=&dl=1``."""
        hint = base64.urlsafe_b64encode(json.dumps(dict(request.query_params)).encode()).decode()
        login = Login(Req(_metadata(request, {}, None)), Conf())
        login.set_lti_message_hint(hint=hint)
        if request.query_params.get("armazenamento"):
            login.storage_target = STORAGE_FRAME
        return login.initiate_login(request.query_params.get("user", "u1"))

    @app.get("/iframe")
    def iframe(request: Request):
        """A course page inside an iframe, as Moodle shows an external tool. With
        ``armazenamento=1`` (or ``adulterado``), the LMS announces its storage frame
        (:data:`STORAGE_PAGE`), and the tool's iframe starts once that frame listens."""
        src = escape("/launch?" + urlencode(dict(request.query_params)))
        kept = request.query_params.get("armazenamento")
        if not kept:
            return HTMLResponse(
                '<!doctype html><html lang="pt-BR"><title>Curso no LMS</title><body>'
                f'<h1>Disciplina</h1><iframe id="ferramenta" src="{src}" width="1000"'
                ' height="700" title="Curso"></iframe></body></html>'
            )
        storage = escape("/armazenamento?" + urlencode({"modo": kept}))
        return HTMLResponse(
            '<!doctype html><html lang="pt-BR"><title>Curso no LMS</title><body>'
            f'<h1>Disciplina</h1><iframe name="{STORAGE_FRAME}" id="{STORAGE_FRAME}"'
            f' src="{storage}" hidden title="Armazenamento"></iframe>'
            f'<iframe id="ferramenta" data-src="{src}" width="1000" height="700"'
            ' title="Curso"></iframe><script>'
            f"document.getElementById('{STORAGE_FRAME}').addEventListener('load', function () {{"
            " var tool = document.getElementById('ferramenta');"
            " tool.src = tool.getAttribute('data-src'); });</script></body></html>"
        )

    @app.get("/armazenamento")
    def storage_frame(modo: str = "1"):
        """The LMS's storage frame (LTI Platform Storage): ``lti.put_data`` and ``lti.get_data``
        from any origin, kept per origin in this tab; every message received is kept in
        ``window.recebidas``. ``modo=adulterado`` answers every ``get_data`` with another
        value (a storage that does not hold the tool's state)."""
        return HTMLResponse(STORAGE_PAGE.replace("__TAMPER__", str(modo == "adulterado").lower()))

    @app.get("/auth")
    def auth(request: Request):
        params = dict(request.query_params)
        hint = json.loads(base64.urlsafe_b64decode(params["lti_message_hint"]))
        message = Launch(Req(_metadata(request, {}, None)), Conf())
        if hint.get("armazenamento"):
            message.storage_target = STORAGE_FRAME
        message.set_user_data(
            params["login_hint"],
            ROLES[hint.get("papel", "aluno")],
            full_name=hint.get("nome", "Ana Souza"),
            email_address="ana@example.org",
        )
        context = hint.get("contexto", "curso-101")
        message.set_launch_context_claim(
            context, context_title=hint.get("titulo", "Sistemas de IA"), context_label=context
        )
        if hint.get("dl"):
            message.set_dl(base + "/deep-link-return", title="Escolha")
        else:
            message.set_resource_link_claim(hint.get("link", "link-1"))
            if hint.get("licao"):
                message.set_custom_parameters_claim({"licao": hint["licao"]})
            message.set_ags(base + "/lineitems", hint.get("lineitem") or None)
        return message.lti_launch()

    @app.post("/token")
    async def token(request: Request):
        form = dict(await request.form())
        conf = Conf()
        conf.get_registration()
        try:
            return conf.get_access_token(form)
        except Exception as exc:  # the tool sees an OAuth error, the test the reason
            return JSONResponse({"error": "invalid_client", "detail": str(exc)}, status_code=400)

    async def grades(request: Request) -> Any:
        body = await request.json() if request.method == "POST" else None
        conf = Conf()
        conf.get_registration()
        return Grades(Req(_metadata(request, {}, body)), conf, base + "/lineitems")

    def answer(result: Any, empty: bool = False) -> Response:
        if empty or result.result is None:
            return Response(status_code=result.code, media_type=result.media_type)
        return JSONResponse(result.result, status_code=result.code, media_type=result.media_type)

    @app.get("/lineitems")
    async def lineitems(request: Request):
        service = await grades(request)
        found = service.handle_resp(service.handle_get_lineitems)
        if found.code == 200:
            return JSONResponse(found.result["content"], media_type=found.media_type)
        return answer(found)

    @app.post("/lineitems")
    async def create(request: Request):
        service = await grades(request)
        return answer(service.handle_resp(service.handle_create_lineitem))

    @app.get("/lineitems/{item}")
    async def lineitem(item: str, request: Request):
        service = await grades(request)
        return answer(service.handle_resp(service.handle_get_lineitem, line_item_id=item))

    @app.post("/lineitems/{item}/scores")
    async def scores(item: str, request: Request):
        if (folder / "refuse-scores").exists():
            return JSONResponse({"error": "Nota recusada pelo LMS"}, status_code=503)
        # Moodle's rule (mod/lti/service/gradebookservices, scores.php): a score older than
        # the one the gradebook holds for that item and user is refused with 409.
        sent = await request.json()
        held = [
            seconds(s["timestamp"])
            for s in book()["scores"]
            if s["lineitem"] == item and s["userId"] == sent.get("userId")
        ]
        if held and seconds(sent["timestamp"]) < max(held):
            refusal = f"Refusing score with an earlier timestamp for item {item} and user "
            return JSONResponse(
                {"status": 409, "reason": refusal + str(sent["userId"])}, status_code=409
            )
        service = await grades(request)
        result = service.handle_resp(service.handle_update_score, line_item_id=item)
        return answer(result, empty=True)

    @app.post("/deep-link-return")
    async def deep_link_return(request: Request):
        form = dict(await request.form())
        conf = Conf()
        conf.get_registration()
        items = conf.validate_deeplinking_resp(form)
        data = book()
        data["content_items"].extend(items)
        save(data)
        return HTMLResponse('<!doctype html><html lang="pt-BR"><title>ok</title>Conteúdo salvo')

    @app.get("/gradebook")
    def gradebook():
        return book()

    return app


@dataclass
class PlatformServer:
    """The test platform as a real uvicorn process on 127.0.0.1."""

    folder: Path
    port: int
    tool_url: str
    process: subprocess.Popen | None = None
    tls: TlsFiles | None = None  # then served as https://localhost:<port>, another site

    @property
    def url(self) -> str:
        return f"https://localhost:{self.port}" if self.tls else f"http://127.0.0.1:{self.port}"

    @property
    def verify(self) -> ssl.SSLContext | bool:
        return self.tls.client_context() if self.tls else True

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "PLATFORM_DIR": str(self.folder),
            "PLATFORM_PORT": str(self.port),
            "TOOL_URL": self.tool_url,
            "PLATFORM_URL": self.url,
            **(self.tls.env() if self.tls else {}),
        }
        tls_args = []
        if self.tls:
            tls_args = ["--ssl-certfile", str(self.tls.cert), "--ssl-keyfile", str(self.tls.key)]
            # Chromium keeps its TLS connections open, and uvicorn would wait for them to close.
            tls_args += ["--timeout-graceful-shutdown", "2"]
        log = open(self.folder / "platform.log", "a")  # noqa: SIM115 (kept open for the process)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "tests.support.lti_platform:create_platform_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--no-access-log",
                *tls_args,
            ],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        from tests.support.server import wait_until_up

        wait_until_up(self.url + "/jwks", self.verify, "a plataforma LTI")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=15)

    def jwks_fetches(self) -> int:
        """How many times the platform's JWKS was fetched (its start-up check included)."""
        counter = self.folder / "jwks-fetches"
        return int(counter.read_text()) if counter.exists() else 0

    def set_jwks_cache_control(self, value: str | None) -> None:
        """The ``Cache-Control`` of the JWKS's next answers (``None``: none)."""
        control = self.folder / "jwks-cache-control"
        if value is None:
            control.unlink(missing_ok=True)
        else:
            control.write_text(value)

    def gradebook(self) -> dict[str, Any]:
        return httpx.get(self.url + "/gradebook", timeout=10, verify=self.verify).json()

    def registration_args(self) -> list[str]:
        """The arguments of ``curso lti registrar`` for this platform."""
        return [
            "lti",
            "registrar",
            "--issuer",
            self.url,
            "--client-id",
            CLIENT_ID,
            "--deployment-id",
            DEPLOYMENT_ID,
            "--auth-url",
            self.url + "/auth",
            "--token-url",
            self.url + "/token",
            "--jwks-url",
            self.url + "/jwks",
        ]


def launch_page(client: httpx.Client, platform: PlatformServer, **hint: str) -> httpx.Response:
    """The platform's launch (``hint``: its query) as a browser without JavaScript reaches it:
    through the OIDC redirects, to the page of the signed form it would post to the tool."""
    return client.get(platform.url + "/launch", params=hint, follow_redirects=True)


def launch(client: httpx.Client, platform: PlatformServer, **hint: str) -> httpx.Response:
    """Launch the tool from the platform as a cookie-keeping browser without JavaScript would:
    follow the OIDC redirects, then post the signed launch form; the tool's answer."""
    start = launch_page(client, platform, **hint)
    assert start.status_code == 200, start.text
    return post_launch_form(client, start.text)


LTI = "https://purl.imsglobal.org/spec/lti/claim/"


def signed_launch(
    client: httpx.Client,
    tool_url: str,
    platform: PlatformServer,
    claims: dict[str, Any] | None = None,
    drop: tuple[str, ...] = (),
    header: dict[str, Any] | None = None,
) -> httpx.Response:
    """A resource launch whose id_token the test writes, signed with the platform's own key
    (as the platform, or someone holding its key, would), through the tool's real OIDC login:
    its state cookie and its nonce. ``claims`` replace the usual ones, ``drop`` removes some,
    ``header`` replaces JWT header fields (a ``kid``). The tool's answer to the launch POST."""
    import jwt
    from cryptography.hazmat.primitives import serialization
    from lti1p3platform.registration import Registration

    login = client.get(
        tool_url + "/lti/login",
        params={
            "iss": platform.url,
            "client_id": CLIENT_ID,
            "login_hint": "forjado",
            "target_link_uri": tool_url + "/lti/launch",
        },
    )
    assert login.status_code == 302, login.text[:300]
    query = dict(httpx.URL(login.headers["location"]).params)
    private_pem = (platform.folder / "platform-key.pem").read_text()
    now = int(time.time())
    body: dict[str, Any] = {
        "iss": platform.url,
        "aud": CLIENT_ID,
        "sub": "pessoa-forjada",
        "iat": now,
        "exp": now + 300,
        "nonce": query["nonce"],
        LTI + "deployment_id": DEPLOYMENT_ID,
        LTI + "message_type": "LtiResourceLinkRequest",
        LTI + "version": "1.3.0",
        LTI + "roles": ROLES["aluno"],
        LTI + "resource_link": {"id": "link-forjado"},
        LTI + "target_link_uri": tool_url + "/lti/launch",
        LTI + "custom": {"licao": "kernels"},
        **(claims or {}),
    }
    for name in drop:
        body.pop(name, None)
    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    public_pem = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    kid = Registration.get_jwk(public_pem)["kid"]
    token = jwt.encode(body, private_pem, algorithm="RS256", headers={"kid": kid, **(header or {})})
    return client.post(tool_url + "/lti/launch", data={"id_token": token, "state": query["state"]})


def launch_form(html: str) -> tuple[str, dict[str, str]]:
    """The action and fields of a form that posts a signed message: the platform's launch
    (``id_token``) or the tool's deep-linking answer (``JWT``)."""
    page = soup(html)
    form = page.select_one("form:has(input[name=id_token]), form:has(input[name=JWT])")
    assert form is not None, html[:500]
    return form["action"], {i["name"]: i["value"] for i in form.select("input[type=hidden]")}


def post_launch_form(client: httpx.Client, html: str) -> httpx.Response:
    action, fields = launch_form(html)
    return client.post(action, data=fields)


def lms_fixture(folder: str, backends: list[str] | None = None) -> Any:
    """A module's fixture of the course and the platform (:func:`course_and_lms`), started
    once per backend (every one the run has, or ``backends``) in a new folder ``folder``."""
    from tests.support.app import BACKENDS

    @pytest.fixture(scope="module", params=backends or BACKENDS)
    def lms(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Iterator[tuple]:
        with course_and_lms(tmp_path_factory.mktemp(folder), request.param) as pair:
            yield pair

    return lms


@contextmanager
def course_and_lms(
    folder: Path,
    backend: str = "sqlite",
    lessons_dir: Path | None = None,
    tls: TlsFiles | None = None,
) -> Iterator[tuple[Any, PlatformServer]]:
    """The course (a live uvicorn) and the platform, registered with ``curso lti registrar``
    before the course starts (it reads the LMS origins it may be framed by when it starts).

    The course's database is a SQLite file in ``folder``, or for ``backend="postgresql"`` a
    new PostgreSQL database, dropped after. With ``tls``, both are served over HTTPS, the
    course on ``127.0.0.1`` with ``CURSO_SECURE_COOKIES=true`` and the platform on
    ``localhost``: two sites, as a real LMS and the course are, so the launch is a cross-site
    POST into a cross-site iframe."""
    from tests.support.app import (
        REPO_LESSONS,
        create_postgres_database,
        drop_postgres_database,
        make_settings,
    )
    from tests.support.cli import curso
    from tests.support.server import LiveServer, free_port

    database_url = create_postgres_database() if backend == "postgresql" else ""
    tool = LiveServer(folder / "curso", lessons_dir or REPO_LESSONS, tls=tls)
    tool.database_url = database_url
    platform = PlatformServer(folder / "lms", free_port(), "", tls=tls)
    try:
        make_settings(tool.tmp, tool.lessons_dir, database_url=database_url or None)
        done = curso(tool.settings, *platform.registration_args())
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"Plataforma registrada: {platform.url}\n"
        tool.start()
        platform.tool_url = tool.url
        try:
            platform.start()
            yield tool, platform
        finally:
            platform.stop()
            tool.stop()
    finally:
        if database_url:
            drop_postgres_database(database_url)


def scores_of(platform: PlatformServer, user: str, count: int) -> list[dict]:
    """The user's scores in the platform's gradebook, once ``count`` of them have arrived (or
    those there are after 30 s)."""
    deadline = time.monotonic() + 30
    while True:
        found = [s for s in platform.gradebook()["scores"] if s["userId"] == user]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.2)
