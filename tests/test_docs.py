"""Docs kept honest: every setting is in the README, every lesson block kind in
lessons/README.md.
"""

from __future__ import annotations

import re

from app.content.blocks import BLOCKS
from app.content.glossary import GLOSSARY_FILE, EntrySpec
from app.content.markdown import CALLOUTS
from app.platform.settings import PROJECT_ROOT, Settings


def test_every_setting_is_in_the_readme_table():
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `(CURSO_[A-Z_]+)` \|", readme, flags=re.MULTILINE))
    expected = {f"CURSO_{name.upper()}" for name in Settings.model_fields}
    assert documented == expected


def test_every_block_kind_is_documented_for_instructors():
    guide = (PROJECT_ROOT / "lessons" / "README.md").read_text(encoding="utf-8")
    for kind in BLOCKS:
        assert f"```{kind}" in guide, kind
    for kind in CALLOUTS:
        assert f"`{kind}`" in guide, kind
    assert f"## Glossário (`{GLOSSARY_FILE}`)" in guide
    for field in EntrySpec.model_fields:
        assert f"- {field}:" in guide or f"  {field}:" in guide, field


def test_the_docs_state_the_sqlite_busy_timeout_the_code_sets(tmp_path):
    from sqlalchemy import text

    from app.platform.db import make_engine

    docs = "".join(
        (PROJECT_ROOT / name).read_text(encoding="utf-8")
        for name in ("README.md", "ARCHITECTURE.md")
    )
    stated = re.findall(r"`busy_timeout` de (\d+) s", docs)
    engine = make_engine(f"sqlite:///{tmp_path / 'curso.db'}")
    with engine.connect() as connection:
        milliseconds = connection.execute(text("PRAGMA busy_timeout")).scalar()
    engine.dispose()
    assert stated and {int(s) * 1000 for s in stated} == {milliseconds}


def test_every_question_kind_beyond_single_and_multiple_has_its_section_for_instructors():
    from typing import get_args

    from app.content.quiz import QuestionSpec

    guide = (PROJECT_ROOT / "lessons" / "README.md").read_text(encoding="utf-8")
    kinds = set(get_args(QuestionSpec.model_fields["kind"].annotation)) - {"single", "multiple"}
    assert kinds == {"scenario", "numeric", "ordering"}
    for kind in kinds:
        assert re.search(rf"^## .*\(`kind: {kind}`\)$", guide, re.MULTILINE), kind
        assert f"  kind: {kind}\n" in guide, kind
