"""The README keeps up with the code: every setting is documented."""

from __future__ import annotations

import re

from app.settings import PROJECT_ROOT, Settings


def test_every_setting_is_in_the_readme_table():
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `(CURSO_[A-Z_]+)` \|", readme, flags=re.MULTILINE))
    expected = {f"CURSO_{name.upper()}" for name in Settings.model_fields}
    assert documented == expected
