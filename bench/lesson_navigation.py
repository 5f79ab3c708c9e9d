"""Lesson to lesson, timed in Chromium: a click on "next" or "previous" → the new ``h1`` painted.

Twenty clicks on the pager of the course's lessons (forwards to the last lesson, then back,
and so on), at 1280 px, as a visitor. Each click's time is the ``click`` event's; the paint is
the first frame after the new lesson's ``h1`` is in the page (a ``requestAnimationFrame``, then
a task: that frame has been drawn). Both are read as wall-clock times in the page, so the same
script times a swap of ``<main>`` (instant navigation, issue 27 item 4) and a full page load
(``--plain``: the click reaches the browser as a plain link). Prints p50 and p90; target:
p50 ≤ 110 ms. Run by ``make bench``; alone, ``python -m bench.lesson_navigation [--plain]``.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import sync_playwright

from app.platform.migrate import upgrade
from bench.run import App, stop_everything
from bench.search_typing import CHROMIUM, FLAGS

ROOT = Path(__file__).resolve().parent.parent
CLICKS = 20
TARGET_MS = 110.0

# Installed in every document (a full load starts a new one): times kept in sessionStorage.
# LINKS is the pager's links' selector (Pager.links).
WATCH = """((LINKS) => {
  const store = window.sessionStorage;
  const now = () => performance.timeOrigin + performance.now();
  let shown = null;
  const look = () => {
    const h1 = document.querySelector("main h1");
    const text = h1 && h1.textContent.trim();
    if (!text || text === shown) return;
    shown = text;
    requestAnimationFrame(() => setTimeout(() => {
      const clicked = Number(store.getItem("clicked") || 0);
      const log = JSON.parse(store.getItem("painted") || "[]");
      log.push(clicked ? now() - clicked : null);
      store.setItem("painted", JSON.stringify(log));
      store.removeItem("clicked");
    }, 0));
  };
  new MutationObserver(look).observe(document, {childList: true, subtree: true});
  addEventListener("click", (evt) => {
    if (!evt.target.closest || !evt.target.closest(LINKS)) return;
    store.setItem("clicked", String(performance.timeOrigin + evt.timeStamp));
    if (store.getItem("plain")) evt.stopImmediatePropagation();  // htmx never sees it
  }, true);
})"""


@dataclass(frozen=True)
class Pager:
    """Where a site's lessons start and its "next" and "previous" links (CSS selectors)."""

    start: str = "/licoes/kernels"
    following: str = ".pager a[rel=next]"
    previous: str = ".pager a[rel=prev]"
    links: str = ".pager a"


COURSE_PAGER = Pager()
# MkDocs Material's footer (navigation.footer), on the site of bench/mkdocs_site.py.
MKDOCS_PAGER = Pager(
    "/kernels/", "a.md-footer__link--next", "a.md-footer__link--prev", "a.md-footer__link"
)


def measure(base: str, plain: bool, pager: Pager = COURSE_PAGER) -> list[float]:
    """The milliseconds from each click to the new heading's first frame."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.add_init_script(f"{WATCH}({json.dumps(pager.links)});")
            page.goto(base + "/")
            page.evaluate("(p) => p ? sessionStorage.setItem('plain', '1') : null", plain)
            page.goto(base + pager.start)
            page.wait_for_function("JSON.parse(sessionStorage.getItem('painted') || '[]').length")
            forwards = True
            for count in range(1, CLICKS + 1):
                if page.locator(pager.following).count() == 0:
                    forwards = False
                elif page.locator(pager.previous).count() == 0:
                    forwards = True
                page.locator(pager.following if forwards else pager.previous).click()
                page.wait_for_function(
                    "(n) => JSON.parse(sessionStorage.getItem('painted') || '[]')"
                    ".filter(ms => ms !== null).length >= n",
                    arg=count,
                    timeout=10_000,
                )
                page.wait_for_load_state("load")
            log = page.evaluate("JSON.parse(sessionStorage.getItem('painted'))")
        finally:
            browser.close()
    return [ms for ms in log if ms is not None]


def main() -> int:
    """Start the app (2 workers), click through the lessons, print the figures."""
    plain = "--plain" in sys.argv[1:]
    work = Path(tempfile.mkdtemp(prefix="curso-navegacao-"))
    try:
        upgrade(f"sqlite:///{work / 'curso.db'}")
        app = App(work, ROOT / "lessons", workers=2)
        waits = measure(app.base, plain)
    finally:
        stop_everything()
    p50 = statistics.median(waits)
    p90 = statistics.quantiles(waits, n=10)[-1]
    met = p50 <= TARGET_MS
    kind = "carregamento completo" if plain else "troca do <main>"
    print(
        f"Próxima lição, clique → novo h1 pintado ({len(waits)} cliques, 1280 px, {kind}): "
        f"p50 {p50:.0f} ms, p90 {p90:.0f} ms (meta p50 ≤ {TARGET_MS:.0f} ms: "
        f"{'atingida' if met else 'NÃO'}); " + ", ".join(f"{w:.0f}" for w in waits)
    )
    return 0 if met or plain else 1


if __name__ == "__main__":
    sys.exit(main())
