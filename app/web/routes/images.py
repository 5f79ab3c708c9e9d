"""Lesson images: the ``imagens/`` folder of the lessons, served at ``/licoes/imagens/``.

Lesson files are untrusted (an instructor account may be compromised), so only image
types are served (:data:`app.content.links.IMAGE_TYPES`), each under a policy that lets
it run nothing: an SVG opened on its own cannot run a script as the course.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from fastapi import HTTPException
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

from app.content.links import IMAGE_TYPES, IMAGES_DIR

IMAGE_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"


class LessonImages(StaticFiles):
    """Starlette's static files for a folder that may not exist yet (then every path is 404).

    Any file that is not an image gets 404; images carry :data:`IMAGE_CSP` and their own
    media type.

    Args:
        lessons_dir: the lessons folder; images are read from its ``imagens/``.
    """

    def __init__(self, lessons_dir: Path) -> None:
        super().__init__(directory=lessons_dir / IMAGES_DIR, check_dir=False)

    async def check_config(self) -> None:
        """Check the folder only once it exists; until then, lookups simply find nothing."""
        if self.directory is not None and Path(self.directory).is_dir():
            await super().check_config()

    async def get_response(self, path: str, scope: Scope) -> Response:
        """Serve ``path`` when it names an image, under a policy that runs nothing."""
        media_type = IMAGE_TYPES.get(PurePosixPath(path).suffix.lower())
        if media_type is None:
            raise HTTPException(status_code=404)
        response = await super().get_response(path, scope)
        response.headers["Content-Security-Policy"] = IMAGE_CSP
        if response.status_code == 200:
            response.headers["Content-Type"] = media_type
        return response
