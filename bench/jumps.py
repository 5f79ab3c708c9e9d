"""Jumps, timed by where they land: does the target sit fully below the header, in view?

The same Chromium script for the course and for MkDocs Material (:mod:`bench.side_by_side`),
on the kernels lesson, as a visitor:

- a shared link to each of the lesson's headings (``/licoes/kernels#id``), at 360 × 740 and
  1280 × 800;
- a click on each link of the lesson's contents at 1280 × 800 (where both show them beside the
  text);
- a search from the header at 360 × 740 and 1280 × 800, for each of :data:`QUERIES`: ``/``
  (MkDocs: its search box opened and focused), the words, a click on the first suggestion;
  the target is the first marked word the page scrolled to (the course's ``mark.mark-first``),
  else the element the address names, else (a result that names a page) the page's ``h1``.

A jump lands when its target's top is at or under the header's bottom and its bottom inside
the window (one pixel of rounding either way). Returns (landed, jumps, the misses).
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import Page

# Written with their accents: MkDocs' search (lunr) finds no word typed without them.
QUERIES = ["agendador", "prefill", "quantização", "lote contínuo", "vazão"]
SETTLE_MS = 600  # after a jump: smooth scrolls and the pages' own scrolling are over

# The target of the jump just made, and whether it landed (see the module's docstring).
LANDING = """(header) => {
  const hash = decodeURIComponent(location.hash.slice(1));
  const target = document.querySelector('mark.mark-first')
    || (hash ? document.getElementById(hash) : document.querySelector('h1'));
  if (!target) return {landed: false, why: 'sem alvo: ' + location.href};
  const bar = document.querySelector(header).getBoundingClientRect();
  const r = target.getBoundingClientRect();
  const under = Math.max(0, bar.bottom);
  const landed = r.top >= under - 1 && r.bottom <= innerHeight + 1 && r.height > 0;
  return {landed, why: `${location.pathname}${location.search}${location.hash}: alvo em `
    + `${Math.round(r.top)}–${Math.round(r.bottom)}, cabeçalho até ${Math.round(under)}`};
}"""


@dataclass(frozen=True)
class JumpSite:
    """What the jumps need to know of a site (CSS selectors)."""

    lesson: str  # the kernels lesson's path
    header: str
    headings: str  # the lesson's headings with an id
    contents: str  # the links of the lesson's contents
    suggestion: str  # the first search suggestion, once the suggestions are in
    open_search: str = ""  # JavaScript that opens and focuses the search box; else "/"


COURSE_JUMPS = JumpSite(
    "/licoes/kernels",
    ".site-header",
    "article.lesson h2[id], article.lesson h3[id]",
    "nav.toc a[href^='#']",
    "[role=listbox] [role=option]",
)
MKDOCS_JUMPS = JumpSite(
    "/kernels/",
    ".md-header",
    "article.md-content__inner h2[id], article.md-content__inner h3[id]",
    ".md-sidebar--secondary a.md-nav__link[href^='#']",
    ".md-search-result__link",
    "const t = document.getElementById('__search'); if (!t.checked) t.click();"
    " document.querySelector('.md-search__input').focus()",
)


def _landing(page: Page, site: JumpSite) -> dict:
    page.wait_for_timeout(SETTLE_MS)
    return page.evaluate(LANDING, site.header)


def measure(page: Page, base: str, site: JumpSite) -> tuple[int, int, list[str]]:
    """(jumps landed, jumps made, what each miss saw) on ``base``'s kernels lesson."""
    results: list[dict] = []
    url = base + site.lesson
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url)
    ids = page.eval_on_selector_all(site.headings, "hs => hs.map(h => h.id)")
    for width, height in ((360, 740), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        for anchor in ids:
            page.goto("about:blank")
            page.goto(f"{url}#{anchor}")
            page.wait_for_load_state("load")
            results.append(_landing(page, site))
    page.goto(url)
    page.wait_for_load_state("load")
    count = page.locator(site.contents).count()
    for i in range(count):
        page.evaluate("window.scrollTo(0, 0)")
        page.locator(site.contents).nth(i).click()
        results.append(_landing(page, site))
    for width, height in ((360, 740), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        for query in QUERIES:
            page.goto(url)
            page.wait_for_load_state("load")
            if site.open_search:
                page.evaluate(site.open_search)
            else:
                page.keyboard.press("/")
            page.keyboard.type(query, delay=60)
            page.locator(site.suggestion).first.wait_for(state="visible", timeout=10_000)
            page.wait_for_timeout(300)  # the suggestions for the last key
            before = page.url
            page.locator(site.suggestion).first.click()
            page.wait_for_function("(b) => location.href !== b", arg=before, timeout=10_000)
            page.wait_for_load_state("load")
            results.append(_landing(page, site))
    misses = [r["why"] for r in results if not r["landed"]]
    return len(results) - len(misses), len(results), misses
