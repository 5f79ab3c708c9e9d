"""The course inside an LMS page in Chromium: a launch in an iframe served by the test platform
(lti1p3platform on uvicorn), an answer there whose grade reaches the gradebook, and axe-core on
every LTI page."""

from __future__ import annotations

import re
import time

from tests.support.app import db_rows
from tests.support.browser import FIRST_QUESTION, axe_violations
from tests.support.lti_platform import lms_fixture

lms = lms_fixture("lti-browser", backends=["sqlite"])


def test_a_launch_inside_the_lms_iframe_opens_the_lesson_and_grades_it(lms, new_page):
    tool, platform = lms
    page = new_page()
    page.goto(f"{platform.url}/iframe?user=cris-9&papel=aluno&licao=kernels")
    frame = page.frame_locator("#ferramenta")
    question = FIRST_QUESTION
    right = sorted(question.answer)[0]
    frame.locator(f"#op-{question.id}-{right}").check()
    frame.locator(f"#pergunta-{question.id} button[type=submit]").click()
    frame.locator(f"#pergunta-{question.id} .verdict").wait_for()
    inner = next(f for f in page.frames if f.url.startswith(tool.url))
    assert inner.url.startswith(f"{tool.url}/licoes/kernels")
    deadline = time.monotonic() + 30
    scores = []
    while not scores and time.monotonic() < deadline:
        scores = [s for s in platform.gradebook()["scores"] if s["userId"] == "cris-9"]
        time.sleep(0.2)
    assert [(s["scoreGiven"], s["activityProgress"]) for s in scores] == [(1, "InProgress")]


def test_the_lti_pages_pass_axe(lms, new_page):
    tool, platform = lms
    found = {}
    for width in (360, 1280):
        page = new_page(width=width)
        page.goto(f"{platform.url}/launch?user=prof-axe&papel=professor&dl=1")
        page.wait_for_url(f"{tool.url}/lti/conteudo")
        found[(width, "escolha")] = axe_violations(page)
        page.get_by_role("button", name="Adicionar ao AVA").click()
        page.wait_for_url(f"{tool.url}/lti/conteudo")
        assert page.locator("form#lti-resposta").count() == 1
        found[(width, "enviar")] = axe_violations(page)
        page.goto(f"{tool.url}/lti/vincular")
        found[(width, "vincular")] = axe_violations(page)
        page.fill("#vincular-usuario", "ninguem")
        page.fill("#vincular-senha", "senha-errada-1")
        page.get_by_role("button", name="Vincular as contas").click()
        page.locator("#vincular-erro").wait_for()
        found[(width, "vincular-erro")] = axe_violations(page)
        # The platforms page is a site admin's: the LMS instructor is made one here.
        db_rows(
            tool.settings,
            "UPDATE account SET is_instructor = ?, is_admin = ? WHERE id IN"
            " (SELECT account_id FROM lti_user WHERE sub = 'prof-axe')",
            True,
            True,
        )
        page.goto(f"{tool.url}/instrutor/lti")
        assert page.locator(".platforms").count() == 1
        found[(width, "plataformas")] = axe_violations(page)
        page.goto(f"{tool.url}/lti/login")
        found[(width, "recusa")] = axe_violations(page)
    assert found == {key: [] for key in found}


def test_open_in_a_new_tab_is_offered_inside_the_frame_and_keeps_the_learner(lms, new_page):
    tool, platform = lms
    page = new_page()
    page.goto(f"{platform.url}/iframe?user=ivo-3&nome=Ivo+Lopes&licao=kernels")
    link = page.frame_locator("#ferramenta").get_by_role("link", name="Abrir em nova aba")
    with page.context.expect_page() as opened:
        link.click()
    tab = opened.value
    # The new tab carries the frame's launch, so its answers grade the same LMS column.
    tab.wait_for_url(re.compile(re.escape(f"{tool.url}/licoes/kernels?lancamento=") + ".+"))
    assert tab.locator(".nav-account").inner_text() == "Conta: Ivo Lopes"
    assert tab.locator("a[data-new-tab]").is_hidden()  # a tab of its own: no link
