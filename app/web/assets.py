"""Static files with fingerprinted names, cached for a year.

``static_url("app.css")`` gives ``/static/app.<hash>.css``. That name is served with
``Cache-Control: public, max-age=31536000, immutable``: a new version of the file
gets a new name, so browsers never keep a stale copy. Plain names
(``/static/htmx.min.js``) still work and are revalidated on each use.

A bundle (:meth:`Assets.bundle`) is a name with no file of its own: one or several files
served as one, minified, fingerprinted and cached the same way (the scripts' bundles and each
stylesheet the pages link).
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from pathlib import Path

from rcssmin import cssmin  # type: ignore[import-untyped]  # rcssmin ships no type hints
from rjsmin import jsmin  # type: ignore[import-untyped]  # rjsmin ships no type hints
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
DIGEST_CHARS = 10
RECHECK_S = 1.0
_FINGERPRINTED = re.compile(
    rf"^(?P<stem>.+)\.(?P<digest>[0-9a-f]{{{DIGEST_CHARS}}})(?P<suffix>\.[A-Za-z0-9]+)$"
)


class Assets:
    """Fingerprints of the files under one folder, computed once per file version.

    Attributes:
        prefix: the URL path it is mounted at.
    """

    def __init__(self, directory: Path, prefix: str = "/static"):
        self.directory = directory
        self.prefix = prefix
        self._digests: dict[str, tuple[int, int, str, float]] = {}
        self._bundles: dict[str, _Bundle] = {}

    def digest(self, name: str) -> str | None:
        """The short content hash of ``name`` (relative to the folder), or ``None`` if missing.

        Each name is looked at once a second at most: pages ask for the same few files on
        every render, and a ``stat`` per file per page showed in the profile.
        """
        if name in self._bundles:
            return self._bundle(name).digest
        now = time.monotonic()
        cached = self._digests.get(name)
        if cached and now - cached[3] < RECHECK_S:
            return cached[2]
        path = (self.directory / name).resolve()
        if not path.is_relative_to(self.directory.resolve()) or not path.is_file():
            return None
        stat = path.stat()
        if cached and cached[:2] == (stat.st_mtime_ns, stat.st_size):
            digest = cached[2]
        else:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:DIGEST_CHARS]
        self._digests[name] = (stat.st_mtime_ns, stat.st_size, digest, now)
        return digest

    def scripts(self, folder: str, first: str | None = None) -> list[str]:
        """The names of the ``.js`` files directly in ``folder``, ``first`` (shared helpers)
        before the rest.

        One file per behaviour (``static/js/``): a file added there is on every page, with no
        list to keep (``static/js/instructor/``: on the instructor's pages). Read once, when the
        templates are built.
        """
        names = sorted(p.name for p in (self.directory / folder).glob("*.js") if p.name != first)
        return [f"{folder}/{name}" for name in ([first] if first else []) + names]

    def bundle(self, name: str, members: list[str]) -> str:
        """Serve ``members`` (names under the folder) minified and concatenated, in that order,
        as ``name``: scripts (``.js``) with rjsmin, stylesheets (``.css``) with rcssmin.

        Built now, at start-up; built again when a member's size or time changes (looked at
        once a second at most, as :meth:`digest` does), so an edited file gets a new
        fingerprint. ``name`` must not be a file of the folder. Each member keeps its own
        wrapping (the behaviours are each one function called at once); a comment naming the
        file (and, between scripts, a ``;``) separates them. Returns ``name``, for :meth:`url`.

        Raises:
            FileNotFoundError: a member is missing.
            ValueError: ``name`` is a file of the folder.
        """
        if (self.directory / name).exists():
            raise ValueError(f"bundle name is a static file: {name}")
        self._bundles[name] = _Bundle(members=tuple(members))
        self._bundle(name)
        return name

    def bundled(self, name: str) -> bytes | None:
        """The content of the bundle ``name``, or ``None`` if ``name`` is not a bundle."""
        return self._bundle(name).content if name in self._bundles else None

    def _bundle(self, name: str) -> _Bundle:
        """The bundle ``name``, concatenated again if a member changed since it was built."""
        bundle = self._bundles[name]
        now = time.monotonic()
        if bundle.content and now - bundle.checked < RECHECK_S:
            return bundle
        paths = {member: self.directory / member for member in bundle.members}
        missing = [member for member, path in paths.items() if not path.is_file()]
        if missing:
            raise FileNotFoundError(f"static files not found for {name}: {', '.join(missing)}")
        stats = [path.stat() for path in paths.values()]
        stamps = tuple((stat.st_mtime_ns, stat.st_size) for stat in stats)
        if stamps != bundle.stamps:
            # Each member minified (comments and spaces out: about 40% fewer bytes gzipped for
            # the scripts, 27% for app.css), under a comment naming its file.
            css = name.endswith(".css")
            minify, end = (cssmin, b"\n") if css else (jsmin, b"\n;\n")
            parts = [
                f"/* {member} */\n".encode() + minify(path.read_bytes()).rstrip() + end
                for member, path in paths.items()
            ]
            bundle.content = b"".join(parts)
            bundle.digest = hashlib.sha256(bundle.content).hexdigest()[:DIGEST_CHARS]
            bundle.stamps = stamps
        bundle.checked = now
        return bundle

    def url(self, name: str) -> str:
        """The fingerprinted URL of ``name``: ``app.css`` → ``/static/app.0123456789.css``."""
        digest = self.digest(name)
        if digest is None:
            raise FileNotFoundError(f"static file not found: {name}")
        stem, dot, suffix = name.rpartition(".")
        return (
            f"{self.prefix}/{stem}.{digest}.{suffix}" if dot else f"{self.prefix}/{name}.{digest}"
        )


@dataclass
class _Bundle:
    """Files served as one (:meth:`Assets.bundle`), with the last concatenation."""

    members: tuple[str, ...]
    stamps: tuple[tuple[int, int], ...] = ()
    content: bytes = b""
    digest: str = ""
    checked: float = 0.0


def split_fingerprint(path: str) -> tuple[str, str | None]:
    """``app.0123456789.css`` → ``("app.css", "0123456789")``; other names → ``(path, None)``."""
    match = _FINGERPRINTED.match(path)
    if not match:
        return path, None
    return match["stem"] + match["suffix"], match["digest"]


class FingerprintedStaticFiles(StaticFiles):
    """``StaticFiles`` that also answers fingerprinted names, with a year-long cache."""

    def __init__(self, assets: Assets, **kwargs):
        super().__init__(directory=assets.directory, **kwargs)
        self.assets = assets

    async def get_response(self, path: str, scope: Scope) -> Response:
        """Serve ``path``; a name whose fingerprint matches the file is cached as immutable."""
        original, digest = split_fingerprint(path)
        content = self.assets.bundled(original)
        if content is not None:
            fresh = digest is not None and digest == self.assets.digest(original)
            return self._bundle_response(
                content, original, IMMUTABLE if fresh else REVALIDATE, scope
            )
        if digest is not None and self.assets.digest(original) is not None:
            response = await super().get_response(original, scope)
            fresh = digest == self.assets.digest(original)  # an old fingerprint gets today's file
            if response.status_code in (200, 304):
                response.headers["Cache-Control"] = IMMUTABLE if fresh else REVALIDATE
            return response
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            response.headers["Cache-Control"] = REVALIDATE
        return response

    def _bundle_response(self, content: bytes, name: str, cache: str, scope: Scope) -> Response:
        """A bundle's bytes, with an ETag of its content; 304 when the browser has them."""
        if scope["method"] not in ("GET", "HEAD"):
            raise HTTPException(status_code=405, headers={"Allow": "GET, HEAD"})
        etag = f'"{self.assets.digest(name)}"'
        headers = {"ETag": etag, "Cache-Control": cache}
        if self.is_not_modified(Headers(headers), Headers(scope=scope)):
            return Response(status_code=304, headers=headers)
        media = {".js": "text/javascript", ".css": "text/css"}.get(Path(name).suffix)
        body = b"" if scope["method"] == "HEAD" else content
        response = Response(body, media_type=media, headers=headers)
        response.headers["Content-Length"] = str(len(content))
        return response
