"""Any text gives either a lesson or a clear validation error, never another exception."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.content.course import load_course
from app.content.errors import ContentErrors
from app.content.lessons import load_lesson
from tests.support.lessons import GOOD, HEADER, TREE

YAMLISH = st.text(
    alphabet=st.sampled_from(list("abc xyz:-[]{}\"'|>#&*!%@`,?\n\t0123456789éã")), max_size=300
)
FENCES = st.sampled_from(["quiz", "decision-tree", "chart", "Quiz", ""])


def load_text(text: str | bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "licao.md"
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
        try:
            load_lesson(path)
        except ContentErrors as exc:
            assert exc.errors, "um erro de conteúdo sempre diz o que está errado"
            for error in exc.errors:
                assert error.message and error.line >= 0
        load_course(Path(folder))  # the course-level pass must not raise either


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_any_text(text):
    load_text(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes(raw):
    load_text(raw)


@settings(max_examples=300, deadline=None)
@given(FENCES, YAMLISH)
def test_any_block_after_a_valid_header(fence, body):
    load_text(HEADER + f"```{fence}\n{body}\n```\n")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, len(GOOD) - 1), st.integers(0, 40), YAMLISH)
def test_mutated_lesson(position, cut, insert):
    load_text(GOOD[:position] + insert + GOOD[position + cut :])


@settings(max_examples=200, deadline=None)
@given(st.integers(0, len(TREE) - 1), st.integers(0, 30), YAMLISH)
def test_mutated_tree(position, cut, insert):
    load_text(HEADER + TREE[:position] + insert + TREE[position + cut :])
