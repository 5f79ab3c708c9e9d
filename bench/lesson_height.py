"""How long the kernels lesson is on a phone, in Chromium at 360 × 740 px (issue 38, item 2).

Two states of ``/licoes/kernels``: a visitor's (every question a form) and a learner's who
answered every question (answered questions fold to their title and one line).
Prints the page's height in px beside MkDocs Material 9.8.2's rendering of the same lesson,
built and measured in the same run (:mod:`bench.mkdocs_site`; issue 38 quoted 26,149 px).
Alone: ``python -m bench.lesson_height``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.platform.migrate import upgrade
from bench.mkdocs_site import StaticSite, build
from bench.run import App, stop_everything
from bench.search_typing import CHROMIUM, FLAGS

ROOT = Path(__file__).resolve().parent.parent
HEIGHT = "document.documentElement.scrollHeight"


def answer_every_question(page: Page) -> int:
    """Answer each question as a hurried learner would (the first option or options, "1" for a
    number, the order as shown); return how many were graded."""
    ids = page.locator(".question:has(form)").evaluate_all("qs => qs.map(q => q.id)")
    graded = 0
    for anchor in ids:
        question = page.locator(f"[id='{anchor}']")
        choice = question.locator("input[name=opcao]")
        if choice.count():
            choice.first.check()
        number = question.locator("input[name=valor]")
        if number.count():
            number.fill("1")
        question.get_by_role("button", name="Responder").click()
        try:
            question.locator(".verdict").wait_for(timeout=5_000)
        except PlaywrightTimeout:
            continue  # refused (an order with a repeated position, say): left as a form
        graded += 1
    return graded


def mkdocs_height(base: str) -> int:
    """The kernels lesson's height in MkDocs Material at 360 × 740."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 360, "height": 740}, locale="pt-BR")
            page.goto(base + "/kernels/")
            page.wait_for_load_state("load")
            return page.evaluate(HEIGHT)
        finally:
            browser.close()


def measure(base: str) -> tuple[int, int, int]:
    """The lesson's height as a visitor's, then after answering; and the questions answered."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 360, "height": 740}, locale="pt-BR")
            page.goto(base + "/licoes/kernels")
            visitor = page.evaluate(HEIGHT)
            answered = answer_every_question(page)
            page.goto(base + "/licoes/kernels")
            learner = page.evaluate(HEIGHT)
        finally:
            browser.close()
    return visitor, learner, answered


def px(value: int) -> str:
    """``value`` with pt-BR thousands ("26.149")."""
    return f"{value:,}".replace(",", ".")


def said(value: int, mkdocs: int) -> str:
    """Whether ``value`` is at most MkDocs' height, in the table's words."""
    return "atingida" if value <= mkdocs else "NÃO"


def main() -> int:
    """Build MkDocs and start the app, measure both states and MkDocs', print the row."""
    work = Path(tempfile.mkdtemp(prefix="curso-altura-"))
    work.chmod(0o755)  # nginx's workers run as nobody
    try:
        site, _ = build(ROOT / "lessons", work / "mkdocs")
        mkdocs = mkdocs_height(StaticSite(site).base)
        upgrade(f"sqlite:///{work / 'curso.db'}")
        app = App(work, ROOT / "lessons", workers=1)
        visitor, learner, answered = measure(app.base)
    finally:
        stop_everything()
    met = max(visitor, learner) <= mkdocs
    print(
        f"Lição kernels a 360 px, contra {px(mkdocs)} px do MkDocs Material 9.8.2 (construído "
        f"agora das mesmas lições): {px(visitor)} px como visitante ({said(visitor, mkdocs)}), "
        f"{px(learner)} px com {answered} perguntas respondidas, dobradas "
        f"({said(learner, mkdocs)})"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
