"""The course beside MkDocs Material built from the same lessons, in one run (issue 38's table).

MkDocs Material is built here from ``lessons/`` (:mod:`bench.mkdocs_site`) and served gzipped
by nginx; the course runs under uvicorn (2 workers). The same Chromium script measures both:

- the header's height at 360, 1024 and 1280 px (target ≤ 48 px);
- the y of the lesson's first paragraph at 360 × 740 and 1280 × 800 (≤ MkDocs');
- the kernels lesson's height at 360 px as a visitor (≤ MkDocs');
- search as you type: last key → the last change of the results painted (a frame after it),
  p50 of 20 queries typed at 120 ms a key at 1280 px (≤ MkDocs');
- the next lesson: click → new h1 painted, p50 of 20 clicks (:mod:`bench.lesson_navigation`,
  ≤ MkDocs');
- Lighthouse 12's phone profile on the kernels lesson, Total Blocking Time and Largest
  Contentful Paint, medians of ``LIGHTHOUSE_RUNS`` runs after a warm-up (:mod:`bench.lighthouse`;
  the issue's targets, ≤ 50 ms and ≤ 1.2 s, for the course; MkDocs' figures beside them).

- the jumps landing fully below the header: shared links to each heading, the contents' links
  and search results (:mod:`bench.jumps`; all of them, for the course).

Prints the table, with
"atingida"/"NÃO" per row. Alone: ``python -m bench.side_by_side``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from app.platform.migrate import upgrade
from bench.jumps import COURSE_JUMPS, MKDOCS_JUMPS, JumpSite
from bench.jumps import measure as measure_jumps
from bench.lesson_navigation import COURSE_PAGER, MKDOCS_PAGER, Pager
from bench.lesson_navigation import measure as measure_navigation
from bench.lighthouse import RUNS, lighthouse_bin, run_once
from bench.mkdocs_site import StaticSite, build
from bench.run import App, stop_everything
from bench.search_typing import CHROMIUM, FLAGS, KEY_DELAY_MS, QUERIES

ROOT = Path(__file__).resolve().parent.parent
HEADER_MAX_PX = 48
QUIET_MS = 700  # no change of the results for this long after the last key: the last one is in


@dataclass(frozen=True)
class Site:
    """What the Chromium script needs to know of a site."""

    name: str
    base: str
    lesson: str  # the kernels lesson's path
    header: str  # the header's selector
    paragraph: str  # the lesson's first paragraph
    search_open: str  # JavaScript that opens and focuses the search box, returns it
    results: str  # the element whose subtree holds the search results
    pager: Pager
    jumps: JumpSite


def course_site(base: str) -> Site:
    return Site(
        "curso",
        base,
        "/licoes/kernels",
        ".site-header",
        "article.lesson > p",
        "(() => { const b = document.querySelector('[data-search-box]'); b.focus(); return b; })()",
        "#busca-form",
        COURSE_PAGER,
        COURSE_JUMPS,
    )


def mkdocs_site(base: str) -> Site:
    return Site(
        "MkDocs Material",
        base,
        "/kernels/",
        ".md-header",
        "article.md-content__inner > p",
        "(() => { document.getElementById('__search').checked = true;"
        " const b = document.querySelector('.md-search__input'); b.focus(); return b; })()",
        ".md-search__output",
        MKDOCS_PAGER,
        MKDOCS_JUMPS,
    )


def layout(page: Page, site: Site) -> dict[str, float]:
    """Header heights, the first paragraph's y and the lesson's height, by width."""
    found: dict[str, float] = {}
    for width, height in ((360, 740), (1024, 800), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(site.base + site.lesson)
        page.wait_for_load_state("load")
        found[f"header {width}"] = page.evaluate(
            "(s) => document.querySelector(s).getBoundingClientRect().height", site.header
        )
        found[f"paragraph {width}"] = page.evaluate(
            "(s) => document.querySelector(s).getBoundingClientRect().top + scrollY", site.paragraph
        )
        if width == 360:
            found["height 360"] = page.evaluate("document.documentElement.scrollHeight")
    return found


# After each key, the time of the first frame after each change under the results element.
WATCH = """([open, results]) => {
  const box = eval(open);
  window.__lastKey = 0; window.__painted = 0;
  box.addEventListener("keydown", () => { window.__lastKey = performance.now(); });
  new MutationObserver(() => {
    requestAnimationFrame(() => setTimeout(() => { window.__painted = performance.now(); }, 0));
  }).observe(document.querySelector(results), {childList: true, subtree: true,
                                                characterData: true, attributes: true});
}"""


def search(page: Page, site: Site) -> list[float]:
    """Milliseconds from the last key to the last change of the results painted, per query."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(site.base + site.lesson)
    page.wait_for_load_state("load")
    page.evaluate(WATCH, [site.search_open, site.results])
    page.keyboard.type("kernel", delay=KEY_DELAY_MS)  # the index loads: not counted
    page.wait_for_timeout(2_000)
    waits = []
    for query in QUERIES:
        page.evaluate(f"{site.search_open}.select()")
        page.keyboard.press("Delete")
        page.wait_for_timeout(QUIET_MS)
        page.keyboard.type(query, delay=KEY_DELAY_MS)
        page.wait_for_function(
            "(quiet) => window.__painted > window.__lastKey"
            " && performance.now() - window.__painted > quiet",
            arg=QUIET_MS,
            timeout=15_000,
        )
        waits.append(page.evaluate("window.__painted - window.__lastKey"))
    return waits


def measure(site: Site) -> dict[str, float]:
    """Every figure of the table for one site."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(locale="pt-BR")
            found = layout(page, site)
            found["search p50"] = statistics.median(search(page, site))
            landed, made, misses = measure_jumps(
                browser.new_page(locale="pt-BR"), site.base, site.jumps
            )
            found["jumps landed"], found["jumps"] = landed, made
            for miss in misses:
                print(f"{site.name}: salto fora do lugar: {miss}")
        finally:
            browser.close()
    found["next p50"] = statistics.median(measure_navigation(site.base, False, site.pager))
    found.update(lighthouse(site.base + site.lesson))
    return found


def lighthouse(url: str) -> dict[str, float]:
    """Lighthouse's phone TBT and LCP on ``url`` (ms): medians of :data:`RUNS` runs."""
    binary = lighthouse_bin()
    run_once(binary, url)  # warm-up: the server's caches, Chromium's disk cache
    reports = [run_once(binary, url) for _ in range(RUNS)]

    def median(audit: str) -> float:
        return statistics.median(r["audits"][audit]["numericValue"] for r in reports)

    return {"tbt": median("total-blocking-time"), "lcp": median("largest-contentful-paint")}


def px(value: float) -> str:
    """Whole pixels with pt-BR thousands ("26.149")."""
    return f"{value:,.0f}".replace(",", ".")


def rows(course: dict[str, float], mkdocs: dict[str, float]) -> list[tuple[str, str, str, str]]:
    """(row, course, MkDocs, met) for the table."""

    def at_most(key: str) -> str:
        return "atingida" if course[key] <= mkdocs[key] else "NÃO"

    headers = [f"header {w}" for w in (360, 1024, 1280)]
    return [
        (
            "altura do cabeçalho, 360 / 1024 / 1280 px (meta ≤ 48)",
            " / ".join(px(course[k]) for k in headers),
            " / ".join(px(mkdocs[k]) for k in headers),
            "atingida" if all(course[k] <= HEADER_MAX_PX for k in headers) else "NÃO",
        ),
        (
            "y do primeiro parágrafo, 360 px (≤ MkDocs)",
            px(course["paragraph 360"]),
            px(mkdocs["paragraph 360"]),
            at_most("paragraph 360"),
        ),
        (
            "y do primeiro parágrafo, 1280 px (≤ MkDocs)",
            px(course["paragraph 1280"]),
            px(mkdocs["paragraph 1280"]),
            at_most("paragraph 1280"),
        ),
        (
            "altura da lição kernels, 360 px, visitante (≤ MkDocs)",
            px(course["height 360"]),
            px(mkdocs["height 360"]),
            at_most("height 360"),
        ),
        (
            "busca: última tecla → resultados pintados, p50 de 20 (≤ MkDocs)",
            f"{course['search p50']:.0f} ms",
            f"{mkdocs['search p50']:.0f} ms",
            at_most("search p50"),
        ),
        (
            "próxima lição: clique → h1 pintado, p50 de 20 (≤ MkDocs)",
            f"{course['next p50']:.0f} ms",
            f"{mkdocs['next p50']:.0f} ms",
            at_most("next p50"),
        ),
        (
            f"Lighthouse celular TBT / LCP, mediana de {RUNS} (≤ 50 ms / ≤ 1,2 s)",
            f"{course['tbt']:.0f} ms / {course['lcp'] / 1000:.2f} s".replace(".", ","),
            f"{mkdocs['tbt']:.0f} ms / {mkdocs['lcp'] / 1000:.2f} s".replace(".", ","),
            "atingida" if course["tbt"] <= 50 and course["lcp"] <= 1200 else "NÃO",
        ),
        (
            "saltos que caem inteiros abaixo do cabeçalho (todos)",
            f"{course['jumps landed']:.0f} / {course['jumps']:.0f}",
            f"{mkdocs['jumps landed']:.0f} / {mkdocs['jumps']:.0f}",
            "atingida" if course["jumps landed"] == course["jumps"] else "NÃO",
        ),
    ]


def table(lines: list[tuple[str, str, str, str]]) -> str:
    """The rows as a Markdown table."""
    out = ["| medida | curso | MkDocs Material | meta |", "|---|---|---|---|"]
    out += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in lines]
    return "\n".join(out)


def main() -> int:
    """Build MkDocs, start both, measure both, print the table; non-zero if a row is missed."""
    load_before = os.getloadavg()[0]  # other work on the machine moves every timing
    work = Path(tempfile.mkdtemp(prefix="curso-lado-a-lado-"))
    work.chmod(0o755)
    try:
        site, _ = build(ROOT / "lessons", work / "mkdocs")
        mkdocs = measure(mkdocs_site(StaticSite(site).base))
        upgrade(f"sqlite:///{work / 'curso.db'}")
        app = App(work, ROOT / "lessons", workers=2)
        course = measure(course_site(app.base))
    finally:
        stop_everything()
    lines = rows(course, mkdocs)
    print("Curso e MkDocs Material 9.8.2 lado a lado (mesmas lições, mesma execução):")
    print(table(lines))
    print(
        f"Carga da máquina (média de 1 min): {load_before:.1f} no começo, "
        f"{os.getloadavg()[0]:.1f} no fim, em {os.cpu_count()} núcleos"
    )
    return 0 if all(line[3] != "NÃO" for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
