"""Studying without a connection (issue 40): the web app manifest, the service worker, and the
pages the device shows offline (the lessons it holds, the answers waiting to be sent).

What a device keeps is chosen by ``static/js/offline.js`` in the learner's browser: the lesson
page as the server gave it to them (their own answers only, never the key of a question they
have not answered), its images, the glossary and the static files. The two pages here carry no
learner data: their lists are filled on the device, from its cache and IndexedDB.
"""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from app.content.links import IMAGES_URL
from app.i18n import N_, gettext
from app.platform.settings import PROJECT_ROOT
from app.web.templating import render
from app.web.urls import urls_of

router = APIRouter()

SERVICE_WORKER = PROJECT_ROOT / "static" / "sw.js"
APP_NAME = N_("Course: LLM inference engines")
SHORT_NAME = N_("Inference engines")
DESCRIPTION = N_("How LLM inference engines work and how to choose one.")
THEME_COLOUR = "#0b5cad"


@router.get("/manifest.webmanifest", include_in_schema=False, name="web_manifest")
async def web_manifest(request: Request) -> JSONResponse:
    """The web app manifest: the course installs to a phone's home screen, in Portuguese."""
    assets = request.app.state.assets
    # The white mark sits inside the central circle (80% of the side) that a maskable icon
    # keeps whatever shape the phone cuts, on a background that fills the square: one image
    # serves both purposes.
    icons = [
        {
            "src": assets.url(f"icon-{size}.png"),
            "sizes": f"{size}x{size}",
            "type": "image/png",
            "purpose": purpose,
        }
        for size in (192, 512)
        for purpose in ("any", "maskable")
    ]
    body = {
        "name": gettext(APP_NAME),
        "short_name": gettext(SHORT_NAME),
        "description": gettext(DESCRIPTION),
        "lang": "pt-BR",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": THEME_COLOUR,
        "icons": icons,
    }
    return JSONResponse(
        body, media_type="application/manifest+json", headers={"Cache-Control": "no-cache"}
    )


@router.get("/sw.js", include_in_schema=False, name="service_worker")
async def service_worker(request: Request) -> Response:
    """The service worker, from the site's root so that its scope is the whole site, with the
    site's paths it needs put first (``self.CURSO``: the page shown for what was not downloaded,
    and the prefixes of the files kept by name: the static files and the lessons' images).

    Revalidated on each check (``no-cache``): a new version reaches devices at their next visit.
    """
    static = request.app.state.assets.prefix + "/"
    paths = {"fallback": urls_of(request).path("offline"), "static": static, "images": IMAGES_URL}
    head = f"self.CURSO = {json.dumps(paths)};\n".encode()
    return Response(
        head + SERVICE_WORKER.read_bytes(),
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


@router.get("/sem-internet", response_class=HTMLResponse, name="offline")
async def offline_page(request: Request):
    """What a device without a connection shows for a page it did not download: the lessons
    it holds (listed on the device by offline.js)."""
    return render(request, "offline.html", {})


@router.get("/sem-internet/respostas", response_class=HTMLResponse, name="offline_answers")
async def offline_answers(request: Request):
    """The answers this device keeps until they are sent, and those corrected just now
    (listed on the device by offline.js, from IndexedDB)."""
    return render(request, "offline_answers.html", {})
