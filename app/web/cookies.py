"""Every cookie the course sets goes through here, so one place decides ``Partitioned``.

Starlette's ``set_cookie(partitioned=True)`` raises ``ValueError`` before Python 3.14 (its
``http.cookies`` lacks the attribute), and the course runs on Python 3.11: the attribute is
appended to the ``Set-Cookie`` header by :func:`partitioned` instead. Inside an LMS's iframe
the course is a third party, so its cookies must be ``SameSite=None; Secure; Partitioned``
(CHIPS) to be sent at all. The routes call :func:`set_cookie`; the cookies that middleware sets
(the session's and the CSRF token's) are rewritten by :func:`framed` on their way out.
"""

from __future__ import annotations

import re
from typing import Literal

from starlette.responses import Response

# The CSRF double-submit cookie (app.web.security), set by the front door.
CSRF_COOKIE = "csrftoken"
PARTITIONED = b"; Partitioned"
_SAME_SITE = re.compile(rb";\s*samesite=\w+", re.I)


def partitioned(header: bytes) -> bytes:
    """A ``Set-Cookie`` value with ``; Partitioned`` appended (once)."""
    return header if PARTITIONED.lower() in header.lower() else header + PARTITIONED


def framed(header: bytes) -> bytes:
    """A ``Secure`` cookie's ``Set-Cookie`` value made ``SameSite=None; Partitioned``, so the
    browser sends it inside an LMS's iframe; a cookie that is not ``Secure`` is left as it is
    (a browser refuses ``SameSite=None`` without it)."""
    if b"; secure" not in header.lower():
        return header
    return partitioned(_SAME_SITE.sub(b"", header) + b"; SameSite=None")


def set_cookie(
    response: Response,
    key: str,
    value: str,
    *,
    max_age: int,
    secure: bool,
    path: str = "/",
    httponly: bool = True,
    samesite: Literal["lax", "strict", "none"] = "lax",
    partition: bool = False,
) -> None:
    """Starlette's ``set_cookie``, with ``Partitioned`` when ``partition`` (on any Python)."""
    response.set_cookie(
        key,
        value,
        max_age=max_age,
        path=path,
        secure=secure,
        httponly=httponly,
        samesite=samesite,
    )
    if partition:
        name, header = response.raw_headers[-1]
        response.raw_headers[-1] = (name, partitioned(header))


def forget_cookie(response: Response, key: str, *, secure: bool, path: str = "/") -> None:
    """Tell the browser to drop the cookie ``key``, with the attributes it was set with (a
    ``Partitioned`` cookie is only replaced by a ``Partitioned`` one: :func:`framed` adds it)."""
    set_cookie(response, key, "", max_age=0, secure=secure, path=path)
