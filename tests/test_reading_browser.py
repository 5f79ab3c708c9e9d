"""Reading comfort in Chromium, at 1280 and 360 px (issue 18): heading links, the contents rail,
the reachable header and "Voltar ao topo", the phone menu, search from anywhere with
``?destaque=``, previous/next links, print to PDF with the questions, the tree map behind
"Ver o mapa" on phones. Keyboard only wherever a reader could use it."""

from __future__ import annotations

import io
import re
from html import unescape
from unicodedata import normalize

import pytest
from playwright.sync_api import Page, expect
from pypdf import PdfReader

from app.learning.progress import lesson_shape_total
from tests.support.browser import BUDGET_BYTES, ConsoleWatch, focused, tab_until
from tests.support.learning import COURSE
from tests.support.server import LiveServer

KERNELS = COURSE.get("kernels")
WIDTHS = (1280, 360)
TREE_LESSON = next(lesson for lesson in COURSE.lessons if lesson.trees)


def plain(html: str) -> str:
    """The words of an HTML snippet, without tags or any whitespace (PDF text breaks lines
    anywhere).
    """
    return re.sub(r"\s+", "", normalize("NFKC", unescape(re.sub(r"<[^>]+>", "", html))))


def wait_until(page: Page, condition: str, seconds: float = 5) -> None:
    """Poll a JS expression (``wait_for_function`` evaluates strings, which the page's
    CSP forbids).
    """
    for _ in range(int(seconds * 10)):
        if page.evaluate(condition):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"não aconteceu: {condition}")


def focus_in(page: Page, selector: str) -> bool:
    return page.evaluate(f"!!document.activeElement.closest({selector!r})")


@pytest.mark.parametrize("width", WIDTHS)
def test_heading_link_is_reached_by_keyboard_shown_on_focus_and_keeps_headings_clean(
    new_page, live_server: LiveServer, width: int
):
    page = new_page(width, 800)
    page.goto(live_server.url + "/licoes/kernels")
    first = KERNELS.headings[0]
    link = page.locator(f"a.heading-link[href='#{first.anchor}']")
    expect(link).to_have_accessible_name("Link para esta seção")
    expect(link).to_have_accessible_description(first.text)
    # The heading's own name stays its text: the link sits beside it, not inside it.
    expect(page.get_by_role("heading", name=first.text, exact=True)).to_have_count(1)
    assert page.locator(".lesson h2 a.heading-link, .lesson h3 a.heading-link").count() == 0
    assert page.locator("a.heading-link").count() == len(KERNELS.headings)
    if width == 1280:  # a mouse: hidden until the heading is hovered
        assert link.evaluate("e => getComputedStyle(e).opacity") == "0"
    tab_until(
        page,
        f"e.getAttribute('href') === '#{first.anchor}' && e.classList.contains('heading-link')",
    )
    assert link.evaluate("e => getComputedStyle(e).opacity") == "1"
    assert focused(page)["outline"] != "none"
    assert link.evaluate("e => getComputedStyle(e, '::before').content") == '"#"'
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(f"/licoes/kernels#{first.anchor}$"))
    expect(page.locator(f"[id='{first.anchor}']")).to_be_in_viewport()


def test_address_follows_a_reader_who_scrolled_before_the_page_finished_setting_up(
    new_page, live_server: LiveServer
):
    # On a busy phone the idle task that sets up the rail can run after the reader has scrolled.
    page = new_page(360, 800)
    page.add_init_script("window.requestIdleCallback = (work) => setTimeout(work, 1500);")
    page.goto(live_server.url + "/licoes/kernels")
    target = KERNELS.headings[3]
    page.evaluate(f"document.getElementById('{target.anchor}').scrollIntoView()")
    expect(page).to_have_url(re.compile(f"#{target.anchor}$"))
    expect(page.locator(".toc a[aria-current='location']").first).to_have_attribute(
        "href", f"#{target.anchor}"
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_contents_rail_follows_the_section_and_the_address_follows_it(
    new_page, live_server: LiveServer, width: int
):
    page = new_page(width, 800)
    page.goto(live_server.url + "/licoes/kernels")
    target = KERNELS.headings[3]
    page.evaluate(f"document.getElementById('{target.anchor}').scrollIntoView()")
    page.mouse.wheel(0, 1)  # a real scroll after the jump
    expect(page).to_have_url(re.compile(f"#{target.anchor}$"))
    current = page.locator(".toc a[aria-current='location']")
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("href", f"#{target.anchor}")
    if width == 1280:
        # The rail stays in view (sticky) at the section's level.
        expect(current).to_be_in_viewport()
        expect(page.locator(".site-header")).to_be_in_viewport()
    else:
        expect(page.locator(".lesson-aside .toc")).to_be_hidden()  # in the menu on a phone
        page.mouse.wheel(0, -100)  # scrolling up brings the header (and its menu button) back
        wait_until(page, "document.querySelector('.site-header').getBoundingClientRect().top === 0")
        page.locator(".menu-button").click()
        expect(page.locator("#gaveta .toc a[aria-current='location']")).to_have_attribute(
            "href", f"#{target.anchor}"
        )
        expect(page.locator("#gaveta .toc a[aria-current='location']")).to_be_focused()
        page.keyboard.press("Escape")
    # A reload lands on the same section.
    page.reload()
    expect(page.locator(f"[id='{target.anchor}']")).to_be_in_viewport()


# The first heading after the tree widget, in document order.
AFTER_TREE = """(() => {
  const tree = document.querySelector('article.lesson .tree-widget[id]');
  return [...document.querySelectorAll('article.lesson h2[id]')].find(
    (h) => tree.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING).id;
})()"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("walked", [False, True], ids=["read", "walked"])
def test_the_address_follows_the_sections_past_the_tree(
    new_page, live_server: LiveServer, width: int, walked: bool
):
    # Issue 27: the address stayed #arvore-... once the reader had passed the tree, so a
    # reload went back to the tree.
    tree_id = next(iter(TREE_LESSON.trees))
    page = new_page(width, 800)
    page.goto(live_server.url + f"/licoes/{TREE_LESSON.slug}")
    widget = page.locator(f"#arvore-{tree_id}")
    widget.evaluate("(el) => el.scrollIntoView()")
    page.mouse.wheel(0, 1)
    expect(page).to_have_url(re.compile(f"#arvore-{tree_id}$"))
    if walked:  # a step of the walk: the tree owns the address while it is on screen
        widget.locator(".tree-options button").first.click()
        expect(page).to_have_url(re.compile(rf"\?arvore={tree_id}&c=[^#]+#arvore-{tree_id}$"))
        # The step moves focus into the tree once swapped in, which scrolls to it; on a loaded
        # machine that came after the scroll below. The reader scrolls on after seeing the step.
        wait_until(
            page, f"document.getElementById('arvore-{tree_id}').contains(document.activeElement)"
        )
    after = page.evaluate(AFTER_TREE)
    page.evaluate(f"document.getElementById('{after}').scrollIntoView()")
    page.mouse.wheel(0, 1)
    expect(page).to_have_url(re.compile(f"#{after}$"))
    page.reload()
    expect(page.locator(f"[id='{after}']")).to_be_in_viewport()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_heading_that_stops_just_above_the_reading_line_is_the_section_read(
    new_page, live_server: LiveServer, width: int
):
    # Found by a new reader: the observer watched the top 34% of the window, and the section
    # was read against a third of it. A heading that came to rest between the two (a slow,
    # smooth scroll) was not the section read until it left the window, so the address and
    # "Continuar de onde parei" stayed one section behind.
    lesson = COURSE.lessons[0]
    anchor = lesson.headings[2].anchor
    page = new_page(width, 800)
    page.goto(live_server.url + f"/licoes/{lesson.slug}")
    page.evaluate(
        """(id) => window.scrollBy(0,
            document.getElementById(id).getBoundingClientRect().top - innerHeight * 0.337)""",
        anchor,
    )
    expect(page).to_have_url(re.compile(f"#{anchor}$"))


def click_where(page: Page, element) -> None:
    box = element.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def test_using_the_header_leaves_the_lesson_where_it_was(new_page, live_server: LiveServer):
    # Found by a new reader: on a wide screen (a sticky header, and the page padded by its
    # height for jumps) each letter typed in the header's search box, and a click on the theme
    # switch, scrolled the lesson up by a header's height, and moved the place read with it.
    page = new_page(1280, 900)
    page.goto(live_server.url + f"/licoes/{TREE_LESSON.slug}")
    page.evaluate("window.scrollTo(0, 1600)")
    stay = page.evaluate("window.scrollY")
    box = page.locator("#busca-topo")
    expect(box).to_have_attribute("role", "combobox")  # search-box.js has set the box up
    # The mouse at the controls' places, as a reader clicks (a locator's click would first
    # scroll the control into view itself).
    click_where(page, box)
    page.keyboard.type("kv cache")
    expect(box).to_have_value("kv cache")
    # The suggestions come from the server, through htmx, which a lesson loads at the first
    # key (the keystrokes typed before it arrives are replayed: test_browser.py).
    expect(page.get_by_role("listbox")).to_be_visible(timeout=15_000)
    assert page.evaluate("window.scrollY") == stay
    page.keyboard.press("Escape")
    switch = page.locator(".theme-switch button:visible")
    shown = switch.get_attribute("class") or ""
    click_where(page, switch)
    expect(switch).not_to_have_class(shown)  # the other theme's button: the theme switched
    assert page.evaluate("window.scrollY") == stay
    # Leaving the bar by keyboard, focus is still kept clear of it: Tab goes on into the page,
    # and the control it reaches is scrolled to below the bar.
    page.keyboard.press("Tab")
    top, bar = page.evaluate(
        """() => [document.activeElement.getBoundingClientRect().top,
                  document.querySelector(".site-header").getBoundingClientRect().bottom]"""
    )
    assert page.evaluate("!document.activeElement.closest('.site-header')")
    assert top >= bar, "o controle com o foco ficou sob o cabeçalho"


@pytest.mark.parametrize("width", WIDTHS)
def test_header_comes_back_and_back_to_top_by_keyboard(
    new_page, live_server: LiveServer, width: int
):
    page = new_page(width, 800, reduced_motion="reduce")
    page.goto(live_server.url + "/licoes/kernels")
    header, top = page.locator(".site-header"), page.locator(".to-top")
    expect(top).to_be_hidden() if width != 360 else expect(top).not_to_be_in_viewport()
    assert header.evaluate("e => getComputedStyle(e).transitionDuration") in ("0s", "0s, 0s")
    page.mouse.wheel(0, 2500)
    if width == 360:
        expect(header).not_to_be_in_viewport()  # out of the way while reading down
        # Issue 27: on a phone it covered the text while reading; issue 38: it still did while
        # scrolling up. There it is a plain link at the end of the page, never over the text.
        expect(top).not_to_be_in_viewport()
        page.mouse.wheel(0, -200)
        expect(top).not_to_be_in_viewport()
        assert top.evaluate("e => getComputedStyle(e).position") == "static"
        assert top.evaluate("e => e.parentElement.matches('.site-footer')")
    else:
        expect(top).to_be_in_viewport()
    expect(header).to_be_in_viewport()  # scrolling up brings it back (always there on wide screens)
    box = header.bounding_box()
    assert box is not None and abs(box["y"]) < 1
    top.focus()
    page.keyboard.press("Enter")
    wait_until(page, "window.scrollY === 0")
    expect(page.locator("#conteudo")).to_be_focused()
    if width != 360:
        expect(top).to_be_hidden()


def test_phone_menu_traps_focus_closes_on_escape_and_returns_focus(
    new_page, live_server: LiveServer
):
    page = new_page(360, 800)
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/licoes/kernels")
    button = page.get_by_role("button", name="Menu", exact=True)
    tab_until(page, "e.classList.contains('menu-button')")
    expect(button).to_have_attribute("aria-expanded", "false")
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Menu", exact=True)
    expect(dialog).to_be_visible()
    expect(button).to_have_attribute("aria-expanded", "true")
    # The lessons and this page's contents.
    for lesson in COURSE.lessons:
        expect(dialog.get_by_role("link", name=lesson.meta.title, exact=True)).to_be_visible()
    for heading in KERNELS.headings:
        expect(dialog.locator(f".toc a[href='#{heading.anchor}']")).to_be_visible()
    stops = len(KERNELS.headings) + len(COURSE.lessons) + 5
    for _ in range(stops):  # Tab round the whole menu and further: focus never leaves it
        page.keyboard.press("Tab")
        assert focus_in(page, "#gaveta"), focused(page)
    for _ in range(3):
        page.keyboard.press("Shift+Tab")
        assert focus_in(page, "#gaveta"), focused(page)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(button).to_be_focused()
    # Everything went back in place; a section chosen in the menu closes it and lands there.
    expect(page.locator(".lesson-aside .toc")).to_have_count(1)
    expect(page.locator(".lesson-aside #navegacao-curso")).to_have_count(1)
    page.keyboard.press("Enter")
    last = KERNELS.headings[len(KERNELS.headings) // 2]
    dialog.locator(f".toc a[href='#{last.anchor}']").focus()
    page.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    expect(page).to_have_url(re.compile(f"#{last.anchor}$"))
    expect(page.locator(f"[id='{last.anchor}']")).to_be_in_viewport()
    expect(button).to_be_focused()
    assert watch.errors == []


def test_wide_screens_have_no_menu_button(new_page, live_server: LiveServer):
    page = new_page(1280, 800)
    page.goto(live_server.url + "/licoes/kernels")
    expect(page.locator(".menu-button")).to_be_hidden()
    expect(page.locator(".lesson-aside .toc")).to_be_visible()


def test_without_javascript_the_contents_stay_in_the_page(new_page, live_server: LiveServer):
    page = new_page(360, 800, javascript=False)
    page.goto(live_server.url + "/licoes/kernels")
    expect(page.locator(".menu-button")).to_be_hidden()
    # Folded under "Nesta lição" and the header's "Menu" (a <details> each), which open them.
    expect(page.locator(".toc a").first).to_be_hidden()
    page.locator(".toc-title").click()
    expect(page.locator(".toc a").first).to_be_visible()
    expect(page.locator(".to-top")).to_be_hidden()
    page.locator(".header-menu-button").click()
    page.locator("#busca-topo").fill("kernel")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/busca\?q=kernel$"))
    hit = page.locator(".search-hit-title a").first
    assert "destaque=kernel" in (hit.get_attribute("href") or "")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("key", ["/", "s"])
def test_search_from_anywhere_with_the_overlay_and_marked_words(
    new_page, live_server: LiveServer, width: int, key: str
):
    page = new_page(width, 800)
    watch = ConsoleWatch(page)
    page.goto(live_server.url + "/glossario")
    page.keyboard.press(key)
    box = page.locator("#busca-topo")
    expect(box).to_be_focused()
    expect(box).to_have_value("")  # the key itself is not typed
    expect(box).to_have_attribute("role", "combobox")
    page.keyboard.type("kernels")
    listbox = page.get_by_role("listbox")
    expect(listbox).to_be_visible()
    expect(box).to_have_attribute("aria-expanded", "true")
    options = listbox.get_by_role("option")
    expect(options.last).to_have_text("Ver todos os resultados na página de busca")
    # Typing is slower than the debounce under load: wait for the answer to the whole word.
    expect(page.locator("#anuncio")).to_have_text(re.compile(r"resultados? para “kernels”$"))
    count = options.count() - 1
    assert count >= 1
    expect(page.locator("#anuncio")).to_have_text(
        re.compile(rf"^{count} resultados? para “kernels”$")
    )
    # However long the list ("kernels" has more hits than fit), "see every result" is in view
    # at its foot without scrolling the list.
    expect(options.last).to_be_in_viewport(ratio=1)
    page.keyboard.press("ArrowDown")
    first = options.first
    expect(first).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", first.get_attribute("id") or "")
    page.keyboard.press("ArrowUp")  # wraps to "see every result"
    expect(options.last).to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowUp")  # the last hit: scrolled into view, above the foot
    last_hit = options.nth(count - 1)
    expect(last_hit).to_have_attribute("aria-selected", "true")
    expect(last_hit).to_be_in_viewport(ratio=1)
    assert last_hit.evaluate(
        """(hit) => { const r = hit.getBoundingClientRect();
        return hit.contains(document.elementFromPoint(r.left + r.width / 2, r.bottom - 2)); }"""
    ), "a última sugestão escolhida ficou atrás de “Ver todos”"
    page.keyboard.press("Escape")
    expect(listbox).to_be_hidden()
    expect(box).to_have_attribute("aria-expanded", "false")
    expect(box).to_be_focused()
    page.keyboard.press("ArrowDown")  # opens the list again
    expect(listbox).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/licoes/[^?#]+\?destaque=kernels"))
    marks = page.locator("article.lesson mark")
    expect(marks.first).to_be_attached()
    assert all(re.match(r"kernel", m.lower()) for m in marks.all_inner_texts() if m)
    expect(page.locator("mark.mark-first")).to_be_in_viewport()
    expect(page.locator("#anuncio")).to_have_text(
        re.compile(r"Palavras da busca marcadas na página: \d+\.")
    )
    # A text field keeps its letters: "s" in the search box is typed, not a shortcut.
    page.keyboard.press(key)  # on a phone the box is behind a button: the shortcut opens it
    expect(box).to_be_focused()
    page.keyboard.press("s")
    expect(box).to_have_value("s")
    assert watch.errors == []


def test_search_page_box_is_focused_by_the_shortcut(new_page, live_server: LiveServer):
    page = new_page(360, 800)
    page.goto(live_server.url + "/busca")
    page.keyboard.press("/")
    expect(page.locator("#busca")).to_be_focused()


def test_marks_ignore_accents_and_start_at_the_chosen_section(new_page, live_server: LiveServer):
    page = new_page(1280, 800)
    page.goto(live_server.url + "/busca?q=decodificacao")
    hit = page.locator(".search-hit-title a[href*='#']").first
    href = hit.get_attribute("href") or ""
    anchor = href.split("#")[1]
    hit.click()
    marks = page.locator("article.lesson mark")
    expect(marks.first).to_be_attached()
    assert {m.lower() for m in marks.all_inner_texts()} <= {"decodificação", "decodificações"}
    # the marks come with the page (the server's); mark-words.js picks the first, after load
    expect(page.locator("article.lesson mark.mark-first")).to_be_attached()
    after = page.evaluate(
        f"""() => document.getElementById('{anchor}').compareDocumentPosition(
                document.querySelector('mark.mark-first')) & Node.DOCUMENT_POSITION_FOLLOWING"""
    )
    assert after


@pytest.mark.parametrize("width", WIDTHS)
def test_previous_and_next_lesson_by_keyboard(new_page, live_server: LiveServer, width: int):
    page = new_page(width, 800)
    middle = COURSE.lessons[1]
    page.goto(f"{live_server.url}/licoes/{middle.slug}")
    previous, following = COURSE.lessons[0], COURSE.lessons[2]
    expect(page.locator("link[rel=prev]")).to_have_attribute("href", f"/licoes/{previous.slug}")
    expect(page.locator("link[rel=next]")).to_have_attribute("href", f"/licoes/{following.slug}")
    expect(page.locator("link[rel=canonical]")).to_have_attribute(
        "href", f"{live_server.url}/licoes/{middle.slug}"
    )
    pager = page.get_by_role("navigation", name="Lições vizinhas")
    expect(pager.get_by_role("link", name=f"Lição anterior {previous.meta.title}")).to_be_visible()
    tab_until(page, "e.classList.contains('pager-next')")
    expect(page.locator(".pager-next")).to_have_text(f"Próxima lição{following.meta.title}")
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{live_server.url}/licoes/{following.slug}")
    expect(page.locator("h1")).to_have_text(following.meta.title)


@pytest.mark.parametrize("width", WIDTHS)
def test_next_lesson_is_prefetched_when_idle_and_opens_from_the_cache(
    new_page, live_server: LiveServer, width: int
):
    page = new_page(width, 800)
    first, following = COURSE.lessons[0], COURSE.lessons[1]
    page.goto(f"{live_server.url}/licoes/{first.slug}", wait_until="load")
    ahead = f"/licoes/{following.slug}"
    wait_until(page, f"!!document.querySelector(\"link[rel=prefetch][href='{ahead}']\")")
    wait_until(
        page,
        "performance.getEntriesByType('resource')"
        f".some(e => e.name.endsWith('{ahead}') && e.responseEnd > 0)",
    )
    total = page.evaluate(
        """() => [...performance.getEntriesByType("navigation"),
                  ...performance.getEntriesByType("resource")]
              .reduce((sum, e) => sum + e.transferSize, 0)"""
    )
    assert total <= BUDGET_BYTES, f"{total} bytes transferidos com a próxima lição buscada antes"
    # The reader stays a second on another section: the place is saved, and that first POST
    # gives the visitor a session cookie. The pages vary by Cookie, so the copy fetched ahead
    # without it would no longer serve; prefetch.js fetches it again with the cookie.
    with page.expect_response(lambda r: r.url.endswith("/progresso/lugar")) as saved:
        page.evaluate("document.querySelectorAll('article h2[id]')[1].scrollIntoView()")
    assert saved.value.status == 204
    # Chromium writes the copy fetched ahead to its HTTP cache after the response ends; on a
    # loaded machine a click right then went to the network. The reader clicks seconds later:
    # wait until the cache answers for it (a fetch that may only read the cache).
    wait_until(
        page,
        f"fetch('{ahead}', {{cache: 'only-if-cached', mode: 'same-origin'}})"
        ".then(r => r.ok, () => false)",
    )
    tab_until(page, "e.classList.contains('pager-next')")
    page.keyboard.press("Enter")
    expect(page.locator("h1")).to_have_text(following.meta.title)
    # Opened in place (static/js/nav.js) from what was fetched ahead: the page is "private,
    # no-cache", so Chromium revalidates it (a 304 of a few hundred bytes of headers) and the
    # body comes from the prefetch.
    entry = page.evaluate(
        f"""() => performance.getEntriesByType('resource')
              .filter(e => e.name.endsWith('{ahead}') && e.initiatorType === 'xmlhttprequest')
              .map(e => ({{transfer: e.transferSize, body: e.encodedBodySize}}))"""
    )
    assert len(entry) == 1 and 0 <= entry[0]["transfer"] < entry[0]["body"], entry


def test_a_lesson_link_is_prefetched_on_hover(new_page, live_server: LiveServer):
    page = new_page(1280, 800)
    last, previous = COURSE.lessons[-1], COURSE.lessons[-2]
    page.goto(f"{live_server.url}/licoes/{last.slug}", wait_until="load")
    page.wait_for_timeout(300)
    assert page.locator("link[rel=prefetch]").count() == 0, "a última lição não tem próxima"
    page.locator(".pager-prev").hover()
    behind = f"/licoes/{previous.slug}"
    wait_until(page, f"!!document.querySelector(\"link[rel=prefetch][href='{behind}']\")")


def test_a_lesson_link_is_prefetched_when_a_tap_starts(new_page, live_server: LiveServer):
    """Issue 38, item 4: a phone has no hover; the touch that starts a tap fetches ahead."""
    page = new_page(360, 740, has_touch=True, is_mobile=True)
    last, previous = COURSE.lessons[-1], COURSE.lessons[-2]
    page.goto(f"{live_server.url}/licoes/{last.slug}", wait_until="load")
    page.wait_for_timeout(300)
    assert page.locator("link[rel=prefetch]").count() == 0, "a última lição não tem próxima"
    page.locator(".pager-prev").dispatch_event("touchstart")
    behind = f"/licoes/{previous.slug}"
    wait_until(page, f"!!document.querySelector(\"link[rel=prefetch][href='{behind}']\")")


@pytest.mark.parametrize("width", WIDTHS)
def test_tree_map_waits_behind_see_the_map_on_a_phone(
    new_page, live_server: LiveServer, width: int
):
    page = new_page(width, 800)
    page.goto(f"{live_server.url}/licoes/{TREE_LESSON.slug}")
    widget = page.locator(".tree-widget").first
    svg, summary = widget.locator(".tree-svg"), widget.locator(".tree-map-summary")
    if width == 1280:
        expect(summary).to_be_hidden()
        widget.scroll_into_view_if_needed()
        expect(svg).to_be_visible()
        return
    expect(svg).to_be_hidden()
    summary.focus()
    expect(summary).to_have_text("Ver o mapa")
    page.keyboard.press("Enter")
    expect(svg).to_be_visible()


def test_printed_lesson_keeps_every_question_the_answer_and_the_tree_outline(
    new_page, live_server: LiveServer, artifacts
):
    lesson = TREE_LESSON
    page = new_page(1280, 900)
    page.goto(f"{live_server.url}/licoes/{lesson.slug}")
    answered = next(iter(lesson.questions.values()))
    question = page.locator(f"#pergunta-{answered.id}")
    question.locator(f"#op-{answered.id}-{answered.options[0].id}").check()
    question.get_by_role("button", name="Responder").click()
    expect(question.locator(".verdict")).to_be_visible()
    shown = page.locator(".question[id]").evaluate_all("nodes => nodes.map(n => n.id)")
    assert len(shown) == lesson_shape_total(lesson), "a pool prints the learner's draw"
    printed = {}  # what each question asks on the page: a variant, with the learner's numbers
    for node_id in shown:
        q = lesson.questions[node_id.removeprefix("pergunta-")]
        legend = page.locator(f"#{node_id} legend").inner_text() if q.variants else q.legend_html
        printed[q.id] = legend
    page.emulate_media(media="print")
    expect(page.locator(".question .option").first).to_be_visible()
    expect(page.locator(".question input").first).to_be_hidden()
    expect(page.locator(".question button").first).to_be_hidden()
    pdf = page.pdf(format="A4")
    (artifacts / f"licao-impressa-{lesson.slug}.pdf").write_bytes(pdf)
    text = plain(
        "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    )  # NFKC: "ﬁ" is "fi"
    for qid, legend in printed.items():
        assert plain(legend) in text, f"a pergunta {qid} está no PDF"
    unanswered = list(lesson.questions.values())[1]
    for option in unanswered.options:
        assert plain(option.text_html) in text, "as opções de uma pergunta sem resposta, em lista"
    assert "suaescolha" in text.lower()  # the tag is upper-cased by CSS
    assert plain(answered.options[0].explanation_html) in text, "a explicação da resposta dada"
    for tree in lesson.trees.values():
        for node in tree.questions.values():
            assert plain(node.text_html) in text, f"o esboço da árvore {tree.id} em texto"
    assert "Vermapa" not in text and "Responder" not in text


def test_sitemap_lists_home_lessons_trees_glossary_and_search(live_server: LiveServer):
    import httpx

    response = httpx.get(live_server.url + "/sitemap.xml")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/xml")
    locs = re.findall(r"<loc>([^<]+)</loc>", response.text)
    base = live_server.url
    expected = (
        [f"{base}/"]
        + [f"{base}/licoes/{lesson.slug}" for lesson in COURSE.lessons]
        + [f"{base}/arvores"]
        + [f"{base}/arvores/{tid}" for tid in sorted(COURSE.trees)]
        + [f"{base}/glossario", f"{base}/busca"]
    )
    assert locs == expected
