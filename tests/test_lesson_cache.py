"""The disk cache of rendered lessons: the course of a fresh render, never a stale
or damaged one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import app.content.course as course_module
from app.content.course import load_course
from app.content.lesson_cache import MAGIC, LessonCache
from app.content.live import LiveCourse
from app.main import create_app
from app.platform.settings import PROJECT_ROOT
from tests.support.app import REPO_LESSONS, make_settings
from tests.support.lessons import GOOD, OTHER, lessons, messages, rendered_files, save

BROKEN = GOOD.replace("order: 1", "order: zero")


@pytest.fixture
def loads(monkeypatch) -> list[str]:
    """The names of the files rendered (not read from the cache), in order."""
    return rendered_files(monkeypatch)


def course_facts(course) -> list:
    """What a course holds, in plain values (trees compare by identity, so by their fields)."""
    facts: list = [messages(course), sorted(course.unavailable.items()), sorted(course.stale)]
    for lesson in course.lessons:
        facts.append(
            (
                lesson.path,
                lesson.meta.model_dump(),
                lesson.meta.title_html,
                lesson.meta.objectives_html,
                lesson.parts,
                lesson.headings,
                lesson.questions,
                lesson.links,
                lesson.terms,
                {tid: dataclasses.asdict(tree) for tid, tree in lesson.trees.items()},
            )
        )
    facts.append(course.glossary.terms)
    return facts


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.pickle"))


def test_the_cache_gives_the_same_course_as_a_fresh_render(tmp_path):
    folder = tmp_path / "licoes"
    shutil.copytree(REPO_LESSONS, folder)
    cache = LessonCache(tmp_path / "cache")
    fresh = load_course(folder)
    first = load_course(folder, cache=cache)
    assert len(fresh.lessons) == 3 and fresh.glossary.terms
    assert len(entries(cache.folder)) == 5  # each lesson, the glossary and the engine table
    stored = load_course(folder, cache=cache)
    assert course_facts(stored) == course_facts(fresh) == course_facts(first)
    assert stored.problems == fresh.problems == first.problems


def test_a_served_lesson_is_read_from_the_cache_without_rendering(tmp_path, loads):
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    cache = LessonCache(tmp_path / "cache")
    LiveCourse(folder, 0, cache=cache)
    assert sorted(loads) == ["01-a.md", "02-b.md"]
    loads.clear()
    course = LiveCourse(folder, 0, cache=cache).current()  # a restart, or a second worker
    assert loads == []
    assert [lesson.slug for lesson in course.lessons] == ["decode-prefill", "outra"]


def test_an_edited_file_is_rendered_again_and_its_new_text_served(tmp_path, loads):
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    cache = LessonCache(tmp_path / "cache")
    LiveCourse(folder, 0, cache=cache)
    save(folder / "01-a.md", GOOD.replace("title: Decode e prefill", "title: Decode, prefill"))
    loads.clear()
    course = LiveCourse(folder, 0, cache=cache).current()
    assert loads == ["01-a.md"]
    assert course.get("decode-prefill").meta.title == "Decode, prefill"
    assert len(entries(cache.folder)) == 3  # the old version's entry stays until pruned


def test_a_changed_glossary_renders_every_lesson_again(tmp_path, loads):
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    cache = LessonCache(tmp_path / "cache")
    LiveCourse(folder, 0, cache=cache)
    (folder / "glossario.yml").write_text(
        "- term: prefill\n  definition: A primeira passada sobre o prompt.\n", encoding="utf-8"
    )
    loads.clear()
    course = LiveCourse(folder, 0, cache=cache).current()
    assert sorted(loads) == ["01-a.md", "02-b.md"]
    assert course.get("decode-prefill").terms == ("prefill",)
    assert course_facts(course) == course_facts(load_course(folder))


def test_a_broken_lesson_reports_the_same_errors_from_the_cache(tmp_path, loads):
    folder = lessons(tmp_path, **{"01-a": BROKEN, "02-b": OTHER})
    cache = LessonCache(tmp_path / "cache")
    fresh = load_course(folder)
    assert any("01-a.md:" in m and "error" in m for m in messages(fresh))
    load_course(folder, cache=cache)
    loads.clear()
    stored = load_course(folder, cache=cache)
    assert loads == []
    assert messages(stored) == messages(fresh)
    assert stored.unavailable == fresh.unavailable


def damage(cache: LessonCache, how: str) -> None:
    for entry in entries(cache.folder):
        blob = entry.read_bytes()
        if how == "truncated":
            entry.write_bytes(blob[: len(blob) // 2])
        elif how == "flipped":
            middle = len(blob) // 2
            entry.write_bytes(blob[:middle] + bytes([blob[middle] ^ 0xFF]) + blob[middle + 1 :])
        elif how == "empty":
            entry.write_bytes(b"")
        else:  # a valid digest over bytes that are not a pickle
            payload = b"not a pickle"
            entry.write_bytes(MAGIC + hashlib.sha256(payload).digest() + payload)


def test_a_damaged_entry_is_never_served_and_is_replaced(tmp_path, loads):
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    cache = LessonCache(tmp_path / "cache")
    fresh = load_course(folder)
    load_course(folder, cache=cache)
    for how in ("truncated", "flipped", "empty", "garbage"):
        damage(cache, how)
        loads.clear()
        course = load_course(folder, cache=cache)
        assert sorted(loads) == ["01-a.md", "02-b.md"], how
        assert course_facts(course) == course_facts(fresh), how
        loads.clear()
        load_course(folder, cache=cache)
        assert loads == [], how  # the damaged entries were written again, whole


def test_a_damaged_entry_still_shows_the_right_page(tmp_path):
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    settings = make_settings(tmp_path, folder, shared_cache=False)
    with TestClient(create_app(settings)):
        pass
    cache = LessonCache(settings.var_dir / "cache" / "lessons")
    assert len(entries(cache.folder)) == 2
    damage(cache, "flipped")
    with TestClient(create_app(settings)) as client:
        page = client.get("/licoes/decode-prefill")
    assert page.status_code == 200
    assert "Decode e prefill" in page.text


WRITER = """
import sys
from pathlib import Path
from app.content.course import load_file
from app.content.lesson_cache import LessonCache
cache, path = LessonCache(Path(sys.argv[1])), Path(sys.argv[2])
load = load_file(path)
key = cache.key(path, path.read_bytes())
for _ in range(200):
    cache.put(key, load)
    assert cache.get(key) is not None
"""


def test_two_processes_writing_the_same_entry_leave_it_whole(tmp_path):
    folder = lessons(tmp_path, **{"01-a": GOOD})
    cache = LessonCache(tmp_path / "cache")
    path = folder / "01-a.md"
    argv = [sys.executable, "-c", WRITER, str(cache.folder), str(path)]
    writers = [subprocess.Popen(argv, cwd=PROJECT_ROOT) for _ in range(2)]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    key = cache.key(path, path.read_bytes())
    assert [e.name for e in cache.folder.iterdir()] == [f"{key}.pickle"]  # no temporary left
    stored = cache.get(key)
    assert stored is not None and stored.slug == "decode-prefill"


def test_a_cached_glossary_is_the_parsed_one(tmp_path, monkeypatch):
    folder = tmp_path / "licoes"
    shutil.copytree(REPO_LESSONS, folder)
    cache = LessonCache(tmp_path / "cache")
    load_course(folder, cache=cache)
    parsed: list[Path] = []
    real = course_module.load_glossary
    monkeypatch.setattr(course_module, "load_glossary", lambda *a: parsed.append(a[0]) or real(*a))
    stored = load_course(folder, cache=cache)
    assert parsed == []
    assert stored.glossary.terms == load_course(folder).glossary.terms
    parsed.clear()
    (folder / "glossario.yml").write_text("- term: x\n", encoding="utf-8")  # no definition
    changed = load_course(folder, cache=cache)
    assert parsed == [folder]
    # The glossary's own error, read afresh (lessons whose concepts it no longer has err too).
    assert "glossario.yml" in {p.file.name for p in changed.problems if p.is_error}


def test_the_key_follows_the_bytes_the_path_and_the_glossary(tmp_path):
    cache = LessonCache(tmp_path)
    a, b = Path("/x/01-a.md"), Path("/x/02-b.md")
    keys = {
        cache.key(a, b"texto"),
        cache.key(a, b"texto!"),
        cache.key(b, b"texto"),
        cache.key(a, b"texto", b"- termo: x"),
    }
    assert len(keys) == 4
    assert cache.key(a, b"texto") == cache.key(a, b"texto")


def test_prune_deletes_only_old_entries_out_of_use(tmp_path):
    folder = lessons(tmp_path, **{"01-a": GOOD, "02-b": OTHER})
    cache = LessonCache(tmp_path / "cache")
    load_course(folder, cache=cache)
    keep = {entries(cache.folder)[0].name.removesuffix(".pickle")}
    assert cache.prune(keep) == 0  # young entries stay: another worker may be using them
    assert cache.prune(keep, older_than_s=-1) == 1
    assert [e.name.removesuffix(".pickle") for e in entries(cache.folder)] == sorted(keep)
