"""Chromium helpers: console errors, answering with the mouse, signing up, keyboard focus,
axe-core."""

from __future__ import annotations

from functools import cache

from playwright.sync_api import Page, expect

from tests.support.accounts import PASSWORD
from tests.support.app import REPO_LESSONS
from tests.support.learning import COURSE


class ConsoleWatch:
    """Collects console errors and uncaught page errors."""

    def __init__(self, page: Page):
        self.errors: list[str] = []
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(msg.text))
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))


def pick(page: Page, qid: str, option_id: str) -> None:
    page.locator(f"#op-{qid}-{option_id}").check()


def sign_up_in_page(page: Page, url: str, username: str, password: str = PASSWORD) -> None:
    """Create the account ``username`` with the sign-up form of the server at ``url``, as a
    person does, and land on the progress page."""
    page.goto(url + "/conta")
    page.get_by_label("Nome de usuário").nth(1).fill(username)
    page.locator("#criar-senha").fill(password)
    page.locator("#criar-confirmacao").fill(password)
    page.get_by_role("button", name="Criar conta").click()
    expect(page).to_have_url(url + "/progresso")


AXE = REPO_LESSONS.parent / "tests" / "vendor" / "axe-core" / "axe.min.js"


AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


FIRST_QUESTION = next(iter(COURSE.get("kernels").questions.values()))


@cache
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8") + "\n;undefined"


def settle(page: Page) -> None:
    """Wait for running CSS animations (the tree's fade-in, a swap's entrance) to end.

    An animation whose element an htmx swap removes is cancelled, and its ``finished`` promise
    rejects with AbortError; a cancelled animation has nothing left to settle, so it counts as
    done. Endless animations are not waited for.
    """
    page.evaluate(
        """Promise.all(document.getAnimations()
            .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
            .map(a => a.finished.catch(() => null)))"""
    )


def axe_violations(page: Page) -> list[str]:
    """Run axe-core on the page; one line per violation and element."""
    # Evaluated over the DevTools protocol: the page's CSP (no inline scripts) stays on.
    # Once per document: a test that checks a page again after an htmx swap reuses it.
    settle(page)  # judge the page as it rests, not mid-animation (sizes and colours are final)
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(axe_source())
    found = page.evaluate(
        """async (tags) => {
            const result = await axe.run(document, {runOnly: {type: "tag", values: tags}});
            return result.violations.flatMap(v => v.nodes.map(n =>
                `${v.id} (${v.impact}): ${n.target.join(" ")} — `
                + n.failureSummary.split("\\n").slice(1).join(" ")));
        }""",
        AXE_TAGS,
    )
    return found


BUDGET_BYTES = 100 * 1024
MAX_TABS = 200


def focused(page: Page) -> dict:
    """What has keyboard focus, and how its focus ring looks."""
    return page.evaluate(
        """() => { const e = document.activeElement, s = getComputedStyle(e);
        return {tag: e.tagName, id: e.id, cls: e.className,
                text: (e.innerText || e.value || "").trim().slice(0, 60), type: e.type || "",
                outline: s.outlineStyle, width: parseFloat(s.outlineWidth)}; }"""
    )


def tab_until(page: Page, condition: str) -> list[dict]:
    """Press Tab until the JS ``condition`` on ``document.activeElement`` holds;
    return every stop.
    """
    stops = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        stops.append(focused(page))
        if page.evaluate(f"(e => {condition})(document.activeElement)"):
            return stops
    raise AssertionError(f"o teclado não chegou a: {condition}")
