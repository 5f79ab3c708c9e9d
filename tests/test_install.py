"""A fresh clone installs without a compiler: `make run` and `make test` only unpack wheels.

Building one package from source (PyICU against Debian's ICU headers) made a fresh clone's
`make run` take 89 s, and needed `libicu-dev` and `g++` from apt first.
"""

from __future__ import annotations

import re
from importlib import metadata

from packaging.requirements import Requirement
from packaging.tags import parse_tag


def installed_requirements(name: str, extras: frozenset[str]) -> dict[str, metadata.Distribution]:
    """Every distribution ``name`` with ``extras`` pulls in, by normalised name, itself too."""
    found: dict[str, metadata.Distribution] = {}
    wanted: dict[str, frozenset[str]] = {}
    todo = [(name, extras)]
    while todo:
        current, current_extras = todo.pop()
        dist = metadata.distribution(current)
        key = re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower()
        if key in wanted and current_extras <= wanted[key]:
            continue
        wanted[key] = wanted.get(key, frozenset()) | current_extras
        found[key] = dist
        environments = [{"extra": e} for e in current_extras] or [{"extra": ""}]
        for line in dist.requires or []:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or any(marker.evaluate(env) for env in environments):
                todo.append((requirement.name, frozenset(requirement.extras)))
    return found


def built_on_this_machine(dist: metadata.Distribution) -> bool:
    """PyPI takes only portable Linux wheels (manylinux, musllinux) or pure ones (``any``):
    a bare ``linux_x86_64`` tag means the wheel was compiled here, from an sdist."""
    tags = re.findall(r"^Tag: (\S+)$", dist.read_text("WHEEL") or "", flags=re.MULTILINE)
    return any(t.platform.startswith("linux_") for tag in tags for t in parse_tag(tag))


def test_every_dependency_of_the_app_and_its_tests_was_installed_from_a_prebuilt_wheel():
    installed = installed_requirements("curso", frozenset({"dev"}))
    assert {"fastapi", "uvicorn", "pytest"} <= set(installed)
    compiled = sorted(name for name, dist in installed.items() if built_on_this_machine(dist))
    assert compiled == []
