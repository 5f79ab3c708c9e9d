"""Lesson Markdown is untrusted: every payload of the corpus, in every field, stays inert in
Chromium.

The browser context bypasses the CSP on purpose: the escaping itself must hold.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
import yaml
from playwright.sync_api import Browser

from app.content.course import load_course
from tests.support.server import LiveServer

PAYLOADS = [
    line
    for line in (Path(__file__).parent / "data" / "xss_payloads.txt")
    .read_text(encoding="utf-8")
    .splitlines()
    if line.strip()
]
DANGEROUS_URL = ("javascript:", "vbscript:", "data:text", "data:image/svg")
SCAN = (
    """() => {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      const value = attr.value.replace(/[\\u0000-\\u0020]/g, '').toLowerCase();
      if (name.startsWith('on')) bad.push(el.tagName + ' ' + name);
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'srcdoc'].includes(name)
          && """
    + str(list(DANGEROUS_URL))
    + """.some(s => value.startsWith(s))) bad.push(el.tagName + ' ' + name + '=' + value);
    }
  }
  for (const s of document.scripts) {
    // A data island (a tree's data, static/js/tree-walk.js) never runs; it must stay JSON.
    if (s.type === 'application/json' && !s.src) {
      try { JSON.parse(s.textContent); } catch (e) { bad.push('json island'); }
      continue;
    }
    if (!s.src || !new URL(s.src).pathname.startsWith('/static/')) bad.push('script');
  }
  for (const tag of ['iframe', 'object', 'embed', 'base', 'frame'])
    if (document.querySelector(tag)) bad.push(tag);
  if (document.querySelector('meta[http-equiv]')) bad.push('meta refresh');
  if (window.__pwned) bad.push('__pwned');
  return bad;
}"""
)


def lesson_source(index: int, payload: str) -> str:
    front = {
        "title": f"Lição {index} {payload}",
        "slug": f"xss-{index}",
        "order": index + 1,
        "summary": payload,
        "minutes": 1,
        "objectives": [payload],
        "source": payload,
    }
    quiz = [
        {
            "id": "q",
            "kind": "single",
            "prompt": payload,
            "options": [
                {"id": "a", "text": payload, "explanation": payload},
                {"id": "b", "text": f"outra {payload}", "explanation": f"também {payload}"},
            ],
            "answer": ["a"],
        }
    ]
    tree = {
        "id": f"arvore-{index}",
        "title": payload,
        "source": payload,
        "start": "p",
        "facets": {"f": payload},
        "questions": {
            "p": {
                "facet": "f",
                "text": payload,
                "options": [
                    {"label": payload, "value": "sim", "next": "r"},
                    {"label": f"não {payload}", "value": "nao", "next": "r"},
                ],
            }
        },
        "results": {
            "r": {"engines": [payload], "verdict": "avoid", "why": payload, "note": payload}
        },
    }
    chart = {
        "title": payload,
        "unit": payload,
        "before": payload,
        "after": payload,
        "bars": [{"label": payload, "before": 1, "after": 2, "note": payload}],
    }
    dump = lambda data: yaml.safe_dump(data, allow_unicode=True, sort_keys=False)  # noqa: E731
    return (
        f"---\n{dump(front)}---\n\n## {payload}\n\n{payload} palavra{index}\n\n| a | b "
        f"|\n|---|---|\n| {payload} | x |\n\n"
        f"::: tip {payload}\n{payload}\n:::\n\n"
        f"```decision-tree\n{dump(tree)}```\n\n```chart\n{dump(chart)}```\n\n```quiz\n{dump(quiz)}```\n"
    )


# Files an author could drop next to the lesson images: each tries to run a same-origin script.
STEAL = "document.title = 'roubado'; window.__pwned = 1;"
HOSTILE_FILES = {
    "roubo.js": STEAL,
    "pagina.html": '<script src="/licoes/imagens/roubo.js"></script>',
    "figura.svg": (
        '<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned = 1">'
        '<script href="/licoes/imagens/roubo.js"></script><circle r="5"/></svg>'
    ),
    "disfarce.png": '<script src="/licoes/imagens/roubo.js"></script>',
}


def glossary_source() -> str:
    """One glossary entry per payload: in the term, the definition and an alias the lesson uses."""
    entries = [
        {"term": f"t{index} {payload}"[:60], "aliases": [f"palavra{index}"], "definition": payload}
        for index, payload in enumerate(PAYLOADS)
    ]
    return yaml.safe_dump(entries, allow_unicode=True, sort_keys=False)


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostil")
    lessons = folder / "lessons"
    lessons.mkdir()
    for index, payload in enumerate(PAYLOADS):
        (lessons / f"{index:02d}.md").write_text(lesson_source(index, payload), encoding="utf-8")
    (lessons / "glossario.yml").write_text(glossary_source(), encoding="utf-8")
    for name, content in HOSTILE_FILES.items():
        (lessons / "imagens").mkdir(exist_ok=True)
        (lessons / "imagens" / name).write_text(content, encoding="utf-8")
    course = load_course(lessons)
    assert course.errors == (), course.errors[:3]
    assert len(course.lessons) == len(PAYLOADS)
    assert len(course.glossary.terms) == len(PAYLOADS)
    server = LiveServer(folder, lessons)
    server.start()
    yield server
    server.stop()


def test_corpus_is_large_enough():
    assert len(PAYLOADS) >= 60


# The lesson page, in one round trip: the scan as it loaded, whether the glossary marked the
# term, then the question answered (the wrong option, so both explanations show) and the scan
# again once htmx has put the graded question in. The clicks are DOM clicks, not Playwright's:
# its actionability checks (scrolling into view, waiting over animation frames for the element
# to be stable) and a round trip per action were most of this test's time, and they prove
# nothing about escaping. A click on the button still submits the form the way a reader's
# does: htmx-on-demand.js holds the submit, loads htmx and replays it, and htmx posts the
# answer and swaps the graded question in. The loop waits for the verdict as
# `locator(".verdict").wait_for()` did, then for the swap to settle.
ANSWER_AND_SCAN = (
    """async () => {
  const scan = """
    + SCAN
    + """;
  const loaded = scan();
  const term = document.querySelector('dfn.term') !== null;
  const settled = new Promise(done =>
    document.addEventListener('htmx:afterSettle', done, {once: true}));
  const option = document.getElementById('op-q-b');
  const button = document.querySelector('#pergunta-q button');
  if (!option || !button) return {loaded, term, answered: null};
  option.click();
  button.click();
  const start = performance.now();
  while (!document.querySelector('#pergunta-q .verdict')) {
    if (performance.now() - start > 15000) return {loaded, term, answered: null};
    await new Promise(frame => setTimeout(frame, 10));
  }
  await Promise.race([settled, new Promise(later => setTimeout(later, 1000))]);
  return {loaded, term, answered: scan()};
}"""
)


def test_no_payload_runs_in_any_field(hostile_server: LiveServer, browser: Browser):
    context = browser.new_context(bypass_csp=True)
    # Each lesson page fetches the next lesson ahead (<link rel="prefetch">, twice: again after
    # the answer's POST). The loop opens lessons with a query string, so those copies are never
    # shown, only rendered by the server for nothing; a reader who asked to save data gets no
    # prefetch (static/js/prefetch.js), and so does this one.
    context.add_init_script(
        "Object.defineProperty(NetworkInformation.prototype, 'saveData', {get: () => true});"
    )
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    failures: dict[str, list[str]] = {}

    # goto waits for the load event (its default), not just DOMContentLoaded: a payload that got
    # through as an <img onerror> or <svg onload> runs then, and window.__pwned is in the scan.
    def check(url: str) -> None:
        page.goto(hostile_server.url + url)
        bad = page.evaluate(SCAN)
        if bad:
            failures[url] = bad

    for url in ("/", "/arvores", "/arvores/comparar?f=sim", "/glossario", "/busca?q=licao"):
        check(url)
    for index, payload in enumerate(PAYLOADS):
        check(f"/busca?q={quote(payload)}")
        url = f"/licoes/xss-{index}?arvore=arvore-{index}&c=sim"
        page.goto(hostile_server.url + url)
        lesson = page.evaluate(ANSWER_AND_SCAN)
        if lesson["loaded"]:
            failures[url] = lesson["loaded"]
        if not lesson["term"]:
            failures[f"xss-{index} glossário"] = ["o termo do glossário não aparece na lição"]
        if lesson["answered"] is None:
            failures[f"xss-{index} respondida"] = ["a pergunta não foi respondida e corrigida"]
        elif lesson["answered"]:
            failures[f"xss-{index} respondida"] = lesson["answered"]
    context.close()
    assert dialogs == []
    assert failures == {}


def test_csp_forbids_inline_scripts(hostile_server: LiveServer):
    import httpx

    response = httpx.get(hostile_server.url + "/licoes/xss-0")
    csp = response.headers["content-security-policy"]
    assert (
        "script-src 'self'" in csp
        and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    )
    assert "frame-ancestors 'none'" in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"


def test_files_beside_the_lesson_images_run_nothing(hostile_server: LiveServer, browser: Browser):
    """Only images are served from ``imagens/``, and an SVG opened alone cannot run a script."""
    import httpx

    base = hostile_server.url + "/licoes/imagens/"
    assert httpx.get(base + "pagina.html").status_code == 404
    assert httpx.get(base + "roubo.js").status_code == 404
    png = httpx.get(base + "disfarce.png")
    assert png.headers["content-type"] == "image/png"
    assert "sandbox" in png.headers["content-security-policy"]
    page = browser.new_context().new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for name in HOSTILE_FILES:
        page.goto(base + name)
        page.wait_for_timeout(100)
        assert page.evaluate("document.title") != "roubado", name
        assert not page.evaluate("window.__pwned === 1"), name
    page.context.close()
    assert dialogs == []


# The editor page, in one round trip: the text in the box (to compare with the file), then the
# payload added to it and the preview asked for at once, what typing does 600 ms after the last
# key (hx-trigger="input changed delay:600ms") without the wait. htmx.ajax's promise resolves
# once the response is in and swapped; the scan waits for the swap to settle too.
EDIT_PREVIEW_AND_SCAN = (
    """async (added) => {
  const scan = """
    + SCAN
    + """;
  const box = document.getElementById('editor-texto');
  const text = box.value;
  box.value += added;
  const settled = new Promise(done =>
    document.addEventListener('htmx:afterSettle', done, {once: true}));
  await htmx.ajax("POST", box.getAttribute("hx-post"),
                  {source: box, target: box.getAttribute("hx-target"), swap: "innerHTML"});
  await Promise.race([settled, new Promise(later => setTimeout(later, 1000))]);
  return {text, bad: scan()};
}"""
)


def test_no_payload_runs_in_the_editor_its_preview_or_the_history(
    hostile_server: LiveServer, browser: Browser
):
    """An instructor opens every hostile lesson in the editor (with its live preview), adds to
    it (the htmx preview), and reads its history (diffs of every line)."""
    import httpx

    from tests.support.accounts import sign_up
    from tests.support.server import grant_instructor

    with httpx.Client(base_url=hostile_server.url) as client:
        assert sign_up(client, "revisora").status_code == 303
    grant_instructor(hostile_server, "revisora")
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(hostile_server.url + "/conta")
    page.fill("#entrar-usuario", "revisora")
    page.fill("#entrar-senha", "senha-boa-123")
    page.get_by_role("button", name="Entrar").click()
    failures: dict[str, list[str]] = {}
    for index, payload in enumerate(PAYLOADS):
        page.goto(f"{hostile_server.url}/instrutor/licoes/xss-{index}/editar")
        with page.expect_response(lambda r, index=index: r.url.endswith(f"/xss-{index}/previa")):
            edited = page.evaluate(EDIT_PREVIEW_AND_SCAN, f"\n{payload}\n")
        if edited["text"] != lesson_source(index, payload):
            failures[f"xss-{index} editor"] = ["o texto no editor não é o do arquivo"]
        if edited["bad"]:
            failures[f"xss-{index} editor"] = edited["bad"]
        page.goto(f"{hostile_server.url}/instrutor/licoes/xss-{index}/historico")
        bad = page.evaluate(SCAN)
        if bad:
            failures[f"xss-{index} histórico"] = bad
    context.close()
    assert dialogs == []
    assert failures == {}


def test_no_payload_runs_in_the_class_pages(hostile_server: LiveServer, browser: Browser):
    """Classes named and described with every payload, with due dates on the hostile lessons:
    the instructor's list and class pages, the join page, the learner's home and "Meus dados"."""
    import re

    import httpx

    from tests.support.accounts import sign_up
    from tests.support.html import csrf_from
    from tests.support.server import grant_instructor

    with (
        httpx.Client(base_url=hostile_server.url) as teacher,
        httpx.Client(base_url=hostile_server.url) as learner,
    ):
        assert sign_up(teacher, "turmeira").status_code == 303
        grant_instructor(hostile_server, "turmeira")
        assert sign_up(learner, "aluna-xss").status_code == 303
        token = csrf_from(teacher.get("/conta").text)
        learner_token = csrf_from(learner.get("/conta").text)
        ids = []
        for index, payload in enumerate(PAYLOADS):
            created = teacher.post(
                "/instrutor/turmas",
                data={"csrftoken": token, "nome": payload[:120], "descricao": payload},
            )
            assert created.status_code == 303, payload
            class_url = created.headers["location"]
            ids.append(class_url)
            due = {"csrftoken": token, "licao": f"xss-{index}", "prazo": "2099-12-12T23:59"}
            assert teacher.post(class_url + "/prazos", data=due).status_code == 303
            code = re.search(r"/turmas/entrar/([\w-]+)", teacher.get(class_url).text).group(1)
            assert (
                learner.post(
                    f"/turmas/entrar/{code}", data={"csrftoken": learner_token}
                ).status_code
                == 303
            )
        codes = [
            re.search(r"/turmas/entrar/([\w-]+)", teacher.get(url).text).group(1) for url in ids[:5]
        ]
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    failures: dict[str, list[str]] = {}

    def sign_in(username: str) -> None:
        page.goto(hostile_server.url + "/conta")
        if page.locator("#entrar-usuario").count():
            page.fill("#entrar-usuario", username)
            page.fill("#entrar-senha", "senha-boa-123")
            page.get_by_role("button", name="Entrar").click()

    def check(url: str) -> None:
        page.goto(hostile_server.url + url)
        bad = page.evaluate(SCAN)
        if bad:
            failures[url] = bad

    sign_in("turmeira")
    check("/instrutor/turmas")
    for url in ids:
        check(url)
    context.clear_cookies()
    sign_in("aluna-xss")
    for url in ("/", "/meus-dados", *(f"/turmas/entrar/{code}" for code in codes)):
        check(url)
    context.close()
    assert dialogs == []
    assert failures == {}


def test_no_payload_runs_in_the_lti_pages(hostile_server: LiveServer, browser: Browser):
    """The LMS's picker lists every hostile lesson; platforms, a class and the LMS's error
    messages carry every payload on /instrutor/lti and the dashboard."""
    from tests.support.app import db_rows
    from tests.support.cli import curso
    from tests.support.lti_platform import course_and_lms

    lessons = hostile_server.lessons_dir
    with course_and_lms(hostile_server.tmp / "lti-xss", lessons_dir=lessons) as (tool, lms):
        for index, payload in enumerate(PAYLOADS[:20]):
            args = ["lti", "registrar", "--issuer", payload[:255], "--client-id", f"c{index}"]
            urls = [f"https://lms{index}.example.org/{x}" for x in ("auth", "token", "jwks")]
            done = curso(
                tool.settings,
                *args,
                "--deployment-id",
                payload[:255],
                "--auth-url",
                urls[0],
                "--token-url",
                urls[1],
                "--jwks-url",
                urls[2],
            )
            assert done.returncode == 0, done.stderr
        context = browser.new_context(bypass_csp=True)
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(f"{lms.url}/launch?user=prof-xss&papel=professor&dl=1&titulo=t")
        page.wait_for_url(f"{tool.url}/lti/conteudo")
        failures = {"picker": page.evaluate(SCAN)}
        learner = db_rows(tool.settings, "SELECT learner_id FROM lti_user")[0][0]
        class_id = db_rows(tool.settings, "SELECT class_id FROM lti_context")[0][0]
        for number, payload in enumerate(PAYLOADS):
            db_rows(
                tool.settings,
                "INSERT INTO lti_score (platform_id, class_id, learner_id, user_sub, lineitem_url,"
                " lineitems_url, resource_link_id, lesson_slug, lesson_title, score_given,"
                " score_maximum, comment, activity_progress, grading_progress, created_at,"
                " status, tries, next_try_at, last_error, target, answered_at, claim) VALUES"
                " (1, ?, ?, 's', '', '', '', 'xss-0', '', 0, 1, '', 'InProgress', 'FullyGraded',"
                " '2026-12-01', 'failed', 1, '2099-12-01', ?, ?, '2026-12-01', '')",
                class_id,
                learner,
                payload[:1000],
                f"coluna-{number}",
            )
        db_rows(tool.settings, "UPDATE classroom SET name = ?", PAYLOADS[0][:120])
        # /instrutor/lti is a site admin's page, and half the platforms wait for confirmation.
        db_rows(
            tool.settings,
            "UPDATE account SET is_instructor = ?, is_admin = ? WHERE id IN"
            " (SELECT account_id FROM lti_user WHERE sub = 'prof-xss')",
            True,
            True,
        )
        db_rows(tool.settings, "UPDATE lti_platform SET confirmed_at = NULL WHERE id % 2 = 0")
        for url in ("/instrutor/lti", f"/instrutor?turma={class_id}"):
            page.goto(tool.url + url)
            failures[url] = page.evaluate(SCAN)
        for payload in PAYLOADS[:10]:
            page.goto(tool.url + "/lti/vincular")
            page.fill("#vincular-usuario", payload[:300])
            page.fill("#vincular-senha", "senha-errada-1")
            page.get_by_role("button", name="Vincular as contas").click()
            failures[f"vincular {payload}"] = page.evaluate(SCAN)
        page.goto(tool.url + "/lti/conteudo")
        page.get_by_role("button", name="Adicionar ao AVA").click()
        failures["answer"] = page.evaluate(SCAN)
        context.close()
    assert dialogs == []
    assert failures == {key: [] for key in failures}
