"""The course inside an LMS over HTTPS, cross-site, in Chromium, as a real Moodle shows it:
the course on https://127.0.0.1 with CURSO_SECURE_COOKIES=true, the LMS (lti1p3platform) on
https://localhost, both with a certificate from a CA made for the test (trustme) that the
servers trust and Chromium is told to accept. Deep linking, a launch in the LMS's iframe,
three answers, three scores, and a second launch that finds the progress kept."""

from __future__ import annotations

import pytest

from tests.support.app import BACKENDS
from tests.support.learning import KERNELS
from tests.support.lti_platform import course_and_lms, scores_of
from tests.support.tls import make_certificates

CHOICES = [q for q in KERNELS.questions.values() if q.kind == "single"][:3]


@pytest.fixture(scope="module", params=BACKENDS)
def lms(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("lti-https")
    with course_and_lms(folder, request.param, tls=make_certificates(folder / "tls")) as pair:
        yield pair


def test_deep_link_launch_answers_and_scores_over_https_in_a_cross_site_iframe(lms, new_page):
    tool, platform = lms
    assert tool.url.startswith("https://127.0.0.1:") and platform.url.startswith(
        "https://localhost:"
    )
    teacher = new_page(ignore_https_errors=True)
    teacher.goto(f"{platform.url}/iframe?user=prof-s&papel=professor&dl=1")
    picker = teacher.frame_locator("#ferramenta")
    picker.get_by_role("button", name="Adicionar ao AVA").click()
    picker.get_by_role("button", name="Enviar ao AVA").click()
    picker.get_by_text("Conteúdo salvo").wait_for()
    assert [item["custom"] for item in platform.gradebook()["content_items"]] == [
        {"licao": "kernels"}
    ]

    learner = new_page(ignore_https_errors=True)
    learner.goto(f"{platform.url}/iframe?user=lia-s&nome=Lia+Rocha&licao=kernels")
    frame = learner.frame_locator("#ferramenta")
    assert frame.locator(".nav-account").inner_text() == "Conta: Lia Rocha"
    picks = [
        (CHOICES[0], sorted(CHOICES[0].answer)[0]),
        (CHOICES[1], next(o.id for o in CHOICES[1].options if o.id not in CHOICES[1].answer)),
        (CHOICES[2], sorted(CHOICES[2].answer)[0]),
    ]
    for sent, (question, option) in enumerate(picks, 1):
        frame.locator(f"#op-{question.id}-{option}").check()
        frame.locator(f"#pergunta-{question.id} button[type=submit]").click()
        frame.locator(f"#pergunta-{question.id} .verdict").wait_for()
        # a score still queued when the next answer comes is replaced by the newer one (the
        # queue sends a learner's latest): wait for each before answering the next
        scores_of(platform, "lia-s", sent)
    scores = scores_of(platform, "lia-s", 3)
    assert [s["scoreGiven"] for s in scores] == [1, 1, 2]
    assert len({s["timestamp"] for s in scores}) == 3 and all(s["comment"] for s in scores)

    again = new_page(ignore_https_errors=True)
    again.goto(f"{platform.url}/iframe?user=lia-s&nome=Lia+Rocha&licao=kernels")
    kept = again.frame_locator("#ferramenta")
    for question, _option in picks:
        kept.locator(f"#pergunta-{question.id} .verdict").wait_for()
