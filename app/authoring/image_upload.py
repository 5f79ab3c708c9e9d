"""Images uploaded from the lesson editor into the lessons' ``imagens/`` folder.

The type is read from the bytes (their magic numbers, with the ``filetype`` library), never
from the name or the browser's media type. Only PNG, JPEG, WebP and GIF are kept: SVG is
refused, since an SVG is a document that can carry scripts (the security review found stored
XSS through this folder). Each file gets a new name, so an upload never replaces another file.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import filetype
from slugify import slugify

from app.content.links import IMAGES_DIR, IMAGES_URL
from app.i18n import N_, gettext

MAX_IMAGE_BYTES = 2 * 1024 * 1024
# Media type found in the bytes -> the suffix the saved file gets.
ACCEPTED = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "image/gif": ".gif"}
TOO_LARGE = N_("The image is larger than 2 MB. Reduce it and send it again.")
EMPTY = N_("Choose an image file to send.")
NOT_AN_IMAGE = N_(
    "This file is not a PNG, JPEG, WebP or GIF image (its content was checked, not its name). "
    "SVG and other types are not accepted."
)
MAX_STEM = 60
ALT_PLACEHOLDER = N_("describe the image")


class ImageRefused(ValueError):
    """An upload the course does not keep; ``str(exc)`` is the pt-BR message for the user.

    Args:
        status: the HTTP status to answer with (413 too large, 415 wrong type, 422 empty).
    """

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class SavedImage:
    """An image kept in the lessons' ``imagens/`` folder.

    Attributes:
        file_name: the name it was saved under (slug of the original name, a random part
            and the suffix of its real type).
        url: where the site serves it (``/licoes/imagens/<file_name>``).
        media_type: the type found in its bytes.
    """

    file_name: str
    url: str
    media_type: str

    @property
    def markdown(self) -> str:
        """The Markdown to paste in a lesson; the alt text is left for the instructor to write."""
        alt = gettext(ALT_PLACEHOLDER)
        return f"![{alt}]({self.url})"


def image_type(data: bytes) -> str:
    """Return the media type of ``data`` read from its magic numbers.

    Returns:
        One of the keys of :data:`ACCEPTED`.

    Raises:
        ImageRefused: 422 when ``data`` is empty, 413 when it is over :data:`MAX_IMAGE_BYTES`,
            415 when its bytes are not PNG, JPEG, WebP or GIF (SVG, HTML, text, anything else).
    """
    if not data:
        raise ImageRefused(gettext(EMPTY), 422)
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageRefused(gettext(TOO_LARGE), 413)
    kind = filetype.guess(data)
    if kind is None or kind.mime not in ACCEPTED:
        raise ImageRefused(gettext(NOT_AN_IMAGE), 415)
    return kind.mime


def save_image(lessons_dir: Path, original_name: str, data: bytes) -> SavedImage:
    """Check ``data`` and write it under a new, safe name in ``lessons_dir/imagens/``.

    The name is the slug of the original name's stem (python-slugify, at most
    :data:`MAX_STEM` characters), a random part, and the suffix of the type found in the bytes.
    The file is created exclusively (never overwrites) and fsynced.

    Args:
        original_name: the name the browser sent (only used for readability).

    Raises:
        ImageRefused: see :func:`image_type`.
    """
    media_type = image_type(data)
    stem = slugify(PurePosixPath(original_name or "").stem, max_length=MAX_STEM) or "imagem"
    folder = lessons_dir / IMAGES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        name = f"{stem}-{secrets.token_hex(4)}{ACCEPTED[media_type]}"
        try:
            fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        break
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return SavedImage(file_name=name, url=f"{IMAGES_URL}{name}", media_type=media_type)
