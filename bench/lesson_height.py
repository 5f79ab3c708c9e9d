"""How long the kernels lesson is on a phone, in Chromium at 360 × 740 px (issue 38, item 2).

Two states of ``/licoes/kernels``: a visitor's (every question a form) and a learner's who
answered every question (answered questions fold to their title and one line).
Prints the page's height in px beside MkDocs Material 9.8.2's rendering of the same lesson,
measured for issue 38 (26,149 px at 360 px). MkDocs is not built here: the figure is the
issue's, so the row says so. Alone: ``python -m bench.lesson_height``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.platform.migrate import upgrade
from bench.run import App, stop_everything
from bench.search_typing import CHROMIUM, FLAGS

ROOT = Path(__file__).resolve().parent.parent
MKDOCS_PX = 26_149  # MkDocs Material 9.8.2, kernels lesson at 360 px (issue 38's table)
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


def said(value: int) -> str:
    """Whether ``value`` is at most MkDocs' height, in the table's words."""
    return "atingida" if value <= MKDOCS_PX else "NÃO"


def main() -> int:
    """Start the app, measure both states, print the row."""
    work = Path(tempfile.mkdtemp(prefix="curso-altura-"))
    try:
        upgrade(f"sqlite:///{work / 'curso.db'}")
        app = App(work, ROOT / "lessons", workers=1)
        visitor, learner, answered = measure(app.base)
    finally:
        stop_everything()
    met = max(visitor, learner) <= MKDOCS_PX
    print(
        f"Lição kernels a 360 px, contra {px(MKDOCS_PX)} px do MkDocs Material (medida da "
        f"issue 38, não construído aqui): {px(visitor)} px como visitante ({said(visitor)}), "
        f"{px(learner)} px com {answered} perguntas respondidas, dobradas ({said(learner)})"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
