"""Where the course's source texts are: ``CURSO_SEEDS_DIR``, else ``../shared/seeds`` beside
the clone. They are not in the repository; a newcomer's clone may not have them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.platform.settings import PROJECT_ROOT

BESIDE_THE_CLONE = PROJECT_ROOT.parent / "shared" / "seeds"


def in_ci() -> bool:
    """True when the environment variable ``CI`` is set (``CI=true``), as CI services do."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def seeds_dir() -> Path:
    """The folder of the source texts.

    When it is missing, a test that needs it is skipped with a message saying where to put
    them, except in CI (:func:`in_ci`), where it fails: there the texts must be checked.
    """
    configured = os.environ.get("CURSO_SEEDS_DIR", "").strip()
    folder = Path(configured) if configured else BESIDE_THE_CLONE
    if folder.is_dir():
        return folder
    message = (
        f"os textos-fonte do curso não estão em {folder}: ponha-os em {BESIDE_THE_CLONE} "
        "(ao lado do clone) ou aponte CURSO_SEEDS_DIR para a pasta deles"
    )
    if in_ci():
        pytest.fail(message)
    pytest.skip(message)
