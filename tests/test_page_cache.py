"""The keyed page cache: one render per key and course version, bounded for learners."""

from __future__ import annotations

from app.web.page_cache import KeyedPages
from app.web.splice import TOKEN_HOLE


def counting_render(calls: list[int]):
    def render() -> bytes:
        calls.append(1)
        return f"<p>{len(calls)} {TOKEN_HOLE}</p>".encode()

    return render


def test_the_cache_renders_once_per_course_version():
    cache, calls = KeyedPages(), []
    render = counting_render(calls)
    course_a, course_b = object(), object()
    first = cache.get(course_a, ("kernels", ""), render)
    assert cache.get(course_a, ("kernels", ""), render) is first
    assert cache.peek(course_a, ("kernels", "")) is first
    assert len(calls) == 1
    changed = cache.get(course_b, ("kernels", ""), render)  # the lesson files changed
    assert changed is not first and changed.identity(b"T") == b"<p>2 T</p>"
    assert cache.peek(course_a, ("kernels", "")) is None, "a page of another version is not served"
    assert cache.get(course_b, ("kernels", "dark"), render).identity(b"T") == b"<p>3 T</p>"


def test_a_bounded_cache_lets_the_least_recently_used_page_go():
    cache, calls = KeyedPages(max_pages=2), []
    render = counting_render(calls)
    course = object()
    first = cache.get(course, "a", render)
    cache.get(course, "b", render)
    assert cache.peek(course, "a") is first  # "a" is now the most recently used
    cache.get(course, "c", render)
    assert cache.peek(course, "b") is None
    assert cache.peek(course, "a") is first
    assert cache.get(course, "b", render).identity(b"T") == b"<p>4 T</p>"


def test_a_new_course_version_empties_a_bounded_cache_too():
    cache, calls = KeyedPages(max_pages=2), []
    render = counting_render(calls)
    old, new = object(), object()
    cache.get(old, "a", render)
    cache.get(new, "b", render)
    assert cache.peek(old, "a") is None and len(cache.pages) == 1
