"""Lesson images: the ``imagens/`` folder of the lessons, served at ``/licoes/imagens/``."""

from __future__ import annotations

from pathlib import Path

from fastapi.staticfiles import StaticFiles

from app.content.links import IMAGES_DIR


class LessonImages(StaticFiles):
    """Starlette's static files for a folder that may not exist yet (then every path is 404).

    Args:
        lessons_dir: the lessons folder; images are read from its ``imagens/``.
    """

    def __init__(self, lessons_dir: Path) -> None:
        super().__init__(directory=lessons_dir / IMAGES_DIR, check_dir=False)

    async def check_config(self) -> None:
        """Check the folder only once it exists; until then, lookups simply find nothing."""
        if self.directory is not None and Path(self.directory).is_dir():
            await super().check_config()
