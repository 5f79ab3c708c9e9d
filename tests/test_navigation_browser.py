"""Instant navigation between lessons (issue 27, item 4): "previous", "next" and the course's
contents swap <main> in place, and the page behaves as a new page would: the new heading has
the focus and is announced, the title and the address follow, the window starts at the top,
back and forward work (a history restore from the server), and the new page's forms post.
Without JavaScript the same links are plain links."""

from __future__ import annotations

import contextlib
import re
import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.support.browser import ConsoleWatch, pick
from tests.support.learning import COURSE
from tests.support.server import LiveServer

WIDTHS = (1280, 360)
FIRST, SECOND, THIRD = COURSE.lessons[:3]


def same_document(page: Page) -> bool:
    """True while no page load has happened since :func:`mark_document`."""
    return page.evaluate("window.mesmoDocumento === true")


def mark_document(page: Page) -> None:
    page.evaluate("window.mesmoDocumento = true")


def arrived(page: Page, lesson) -> None:
    """The lesson is the page: heading focused and announced, title, address."""
    heading = page.locator("main h1")
    expect(heading).to_have_text(lesson.meta.title)
    expect(heading).to_be_focused()
    expect(page).to_have_title(re.compile("^" + re.escape(lesson.meta.title) + " · "))
    # The address may carry the section read last (the scrollspy keeps it up to date).
    expect(page).to_have_url(re.compile(rf"/licoes/{lesson.slug}(#[\w-]+)?$"))
    expect(page.locator("#anuncio")).to_have_text(lesson.meta.title)
    expect(page.locator("main")).to_have_count(1)
    expect(page.locator("h1")).to_have_count(1)
    head_is_of(page, lesson)


HEAD = """() => Object.fromEntries(["canonical", "prev", "next"].map(rel => {
    const link = document.head.querySelectorAll(`link[rel="${rel}"]`);
    return [rel, [...link].map(l => new URL(l.href).pathname)]; }))"""


def head_is_of(page: Page, lesson) -> None:
    """The <head> is the lesson's too: its canonical address (what a phone's "share" sends), the
    previous and next lessons, and its description."""
    index = COURSE.lessons.index(lesson)
    neighbours = {"prev": COURSE.lessons[:index][-1:], "next": COURSE.lessons[index + 1 :][:1]}
    expected = {"canonical": [f"/licoes/{lesson.slug}"]} | {
        rel: [f"/licoes/{other.slug}" for other in found] for rel, found in neighbours.items()
    }
    assert page.evaluate(HEAD) == expected
    description = page.locator("meta[name='description']")
    expect(description).to_have_attribute("content", lesson.meta.summary_text)


@pytest.mark.parametrize("width", WIDTHS)
def test_previous_next_and_contents_open_lessons_in_place_with_back_and_forward(
    new_page, live_server: LiveServer, width: int
):
    page = new_page(width, 800)
    watch = ConsoleWatch(page)
    page.goto(f"{live_server.url}/licoes/{FIRST.slug}")
    mark_document(page)

    page.locator(".pager-next").scroll_into_view_if_needed()
    assert page.evaluate("window.scrollY") > 0
    page.locator(".pager-next").click()
    arrived(page, SECOND)
    assert page.evaluate("window.scrollY") == 0
    assert same_document(page), "a página inteira foi recarregada"
    expect(page.locator(".course-nav li[aria-current=page] a")).to_have_text(SECOND.meta.title)

    # The course's contents: in the rail on a wide screen, in the menu on a phone.
    if width < 1000:
        page.locator(".menu-button").click()
        expect(page.locator("#gaveta")).to_be_visible()
    page.locator(".course-nav").get_by_role("link", name=THIRD.meta.title).click()
    arrived(page, THIRD)
    expect(page.locator("#gaveta")).to_be_hidden()
    assert page.evaluate("window.scrollY") == 0
    assert same_document(page)

    page.locator(".pager-prev").click()
    arrived(page, SECOND)

    # Back and forward: htmx asks the server for the page again (no copy kept in the browser).
    page.go_back()
    arrived(page, THIRD)
    page.go_back()
    arrived(page, SECOND)
    page.go_back()
    expect(page.locator("main h1")).to_have_text(FIRST.meta.title)
    expect(page).to_have_title(re.compile("^" + re.escape(FIRST.meta.title) + " · "))
    page.go_forward()
    arrived(page, SECOND)
    assert same_document(page), "voltar e avançar recarregaram a página"

    # The phone menu and the header still work on the page put in place.
    if width < 1000:
        page.locator(".menu-button").click()
        expect(page.locator("#gaveta .toc")).to_be_visible()
        page.keyboard.press("Escape")
        expect(page.locator(".menu-button")).to_be_focused()
    assert watch.errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_a_lesson_opened_in_place_takes_answers_and_remembers_them(
    new_page, live_server: LiveServer, width: int
):
    page = new_page(width, 800)
    watch = ConsoleWatch(page)
    page.goto(f"{live_server.url}/licoes/{FIRST.slug}")
    mark_document(page)
    page.locator(".pager-next").click()
    arrived(page, SECOND)
    question = next(q for q in SECOND.questions.values() if q.options)
    pick(page, question.id, question.options[0].id)
    page.locator(f"#pergunta-{question.id} button[type=submit]").first.click()
    graded = page.locator(f"#pergunta-{question.id}")
    expect(graded.locator(".verdict")).to_be_visible()
    expect(page.locator("#aviso-erro")).to_be_hidden()
    assert same_document(page)
    # Stored: the lesson opened again (a full load) shows the answer graded.
    page.reload()
    expect(page.locator(f"#pergunta-{question.id} .verdict")).to_be_visible()
    assert watch.errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_back_from_the_previous_lesson_keeps_the_section_that_was_read(
    new_page, live_server: LiveServer, width: int
):
    # Found by a new reader: read to the end of a lesson, "Lição anterior", then back. The
    # previous lesson was on screen before htmx pushed its address, and the scrollspy wrote
    # one of its sections into the address of the lesson being left: back came to that lesson
    # with the other lesson's section in its address.
    page = new_page(width, 800)
    page.goto(f"{live_server.url}/licoes/{SECOND.slug}")
    page.locator(".pager-prev").scroll_into_view_if_needed()
    page.mouse.wheel(0, 1)
    expect(page).to_have_url(re.compile(rf"/licoes/{SECOND.slug}#[\w-]+$"))
    read = page.url
    page.locator(".pager-prev").click()
    arrived(page, FIRST)
    page.go_back()
    expect(page.locator("main h1")).to_have_text(SECOND.meta.title)
    expect(page).to_have_url(read)


def test_without_javascript_the_pager_and_contents_are_plain_links(
    new_page, live_server: LiveServer
):
    page = new_page(1280, 800, javascript=False)
    page.goto(f"{live_server.url}/licoes/{FIRST.slug}")
    page.locator(".pager-next").click()
    expect(page).to_have_url(f"{live_server.url}/licoes/{SECOND.slug}")
    expect(page.locator("h1")).to_have_text(SECOND.meta.title)
    page.locator(".course-nav").get_by_role("link", name=THIRD.meta.title).click()
    expect(page).to_have_url(f"{live_server.url}/licoes/{THIRD.slug}")
    expect(page.locator("h1")).to_have_text(THIRD.meta.title)


def test_back_twice_quickly_shows_the_page_of_the_address_not_the_slower_one(
    new_page, live_server: LiveServer
):
    """Back asks the server for the page again (htmx's history restore); two Backs in a row
    had two answers on their way, and the first one arriving last put its lesson under the
    second one's address. The newer restore cancels the older one."""
    page = new_page(1280, 800)
    watch = ConsoleWatch(page)
    page.goto(f"{live_server.url}/licoes/{FIRST.slug}")
    page.locator(".pager-next").click()
    arrived(page, SECOND)
    page.locator(".pager-next").click()
    arrived(page, THIRD)

    held: list = []  # the restore of SECOND, answered only after the Back to FIRST
    ended: list[str] = []

    def hold(route, request) -> None:
        if request.headers.get("hx-history-restore-request"):
            held.append(route)
        else:
            route.continue_()

    def restore_of_second(request) -> bool:
        return request.url.endswith(f"/licoes/{SECOND.slug}") and bool(
            request.headers.get("hx-history-restore-request")
        )

    page.on("requestfinished", lambda r: ended.append("answered") if restore_of_second(r) else 0)
    page.on("requestfailed", lambda r: ended.append("cancelled") if restore_of_second(r) else 0)
    page.route(f"**/licoes/{SECOND.slug}", hold)
    page.go_back()
    expect(page).to_have_url(re.compile(rf"/licoes/{SECOND.slug}(#[\w-]+)?$"))
    page.wait_for_function("() => true")  # let the held request reach the route
    assert len(held) == 1
    page.go_back()
    expect(page.locator("main h1")).to_have_text(FIRST.meta.title)
    with contextlib.suppress(PlaywrightError):  # a cancelled request can no longer go on
        held[0].continue_()
    page.wait_for_function("() => new Promise((done) => setTimeout(() => done(true), 0))")
    deadline = time.monotonic() + 10
    while not ended and time.monotonic() < deadline:  # the held answer arrives, or was cancelled
        page.wait_for_timeout(50)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done)))")
    assert ended, "the held restore neither arrived nor was cancelled"
    expect(page).to_have_url(re.compile(rf"/licoes/{FIRST.slug}(#[\w-]+)?$"))
    assert page.locator("main h1").inner_text() == FIRST.meta.title, ended
    assert watch.errors == []


def test_the_next_lesson_does_not_wait_for_the_old_one_to_be_taken_apart(
    new_page, live_server: LiveServer
):
    """Issue 38, item 4: before swapping the new <main> in, htmx fired an event for each element
    of the old one (thousands in a lesson: 40 to 120 ms before the new heading could be drawn).
    The old <main> is emptied first, and the new lesson comes in as before."""
    page = new_page(1280, 800)
    page.goto(f"{live_server.url}/licoes/{FIRST.slug}")
    elements = page.evaluate("document.querySelectorAll('main *').length")
    page.evaluate(
        """window.cleaned = 0;
        document.body.addEventListener('htmx:beforeCleanupElement', () => { window.cleaned++; });"""
    )
    page.locator(".pager-next").click()
    arrived(page, SECOND)
    assert elements > 500
    assert page.evaluate("window.cleaned") <= 1, elements
