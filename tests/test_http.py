"""The pages and the quiz over HTTP, against a temporary SQLite file."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.learning.progress import lesson_shape_total
from app.main import create_app
from tests.support.app import db_rows, make_settings
from tests.support.html import HX, csrf_from, is_fragment, soup, text
from tests.support.learning import (
    COURSE,
    KERNELS,
    answer,
    key_of,
    stored,
    version_of,
    wrong_form,
    wrong_option,
)
from tests.support.lessons import GOOD


def test_home_lists_the_lessons_in_order_with_status(client):
    page = soup(client.get("/"))
    assert page.html["lang"] == "pt-BR"
    cards = page.select(".lesson-card")
    assert [c.h2.a["href"] for c in cards] == [
        f"/licoes/{lesson.slug}" for lesson in COURSE.lessons
    ]
    first = cards[0]
    assert text(first.h2) == KERNELS.meta.title
    assert KERNELS.meta.summary in first.get_text()
    assert f"{KERNELS.meta.minutes} min" in first.get_text()
    assert text(first.select_one(".status")) == "Não iniciada"


def test_the_home_counts_a_lessons_questions_as_progress_does(client):
    """The walk-through found "25 perguntas" and "7 de 23 certas" on the same card: the home
    counted every question of the lesson's pools, progress counts the ones drawn."""
    opener = next(iter(KERNELS.questions.values()))
    answer(client, "kernels", opener.id, ["b"])
    total = lesson_shape_total(KERNELS)
    assert total < len(KERNELS.questions)  # the lesson has a pool drawing fewer than it holds
    home = soup(client.get("/"))
    counts = {
        card.h2.a["href"]: text(card.select_one(".question-count"))
        for card in home.select(".lesson-card")
    }
    assert counts == {
        f"/licoes/{lesson.slug}": f"{lesson_shape_total(lesson)} perguntas"
        for lesson in COURSE.lessons
    }
    progress = soup(client.get("/progresso")).select_one('.progress-card[data-licao="kernels"]')
    right = text(progress.select_one(".stat-right"))
    assert right.endswith(f" de {total}")
    assert f"{right} certas" in text(home.select_one(".lesson-card"))


def test_the_pages_icon_is_a_small_png(client):
    """Issue 38 (Lighthouse's blocking time): the SVG icon made Chromium set up an SVG document
    on the page's main thread at start (about 110 ms of style on a throttled phone); a 32 px
    PNG is decoded off it."""
    for path in ("/", "/licoes/kernels", "/api/docs"):
        (icon,) = soup(client.get(path)).select("link[rel=icon]")
        assert (icon["type"], icon["sizes"]) == ("image/png", "32x32"), path
        served = client.get(icon["href"])
        assert served.headers["content-type"] == "image/png"
        assert served.content.startswith(b"\x89PNG\r\n\x1a\n")


def test_lesson_page_has_toc_body_quiz_and_pager(client):
    page = soup(client.get("/licoes/escolha-self-hosted"))
    assert text(page.h1) == COURSE.get("escolha-self-hosted").meta.title
    toc = [a["href"] for a in page.select("nav.toc a")]
    for href in toc:
        assert page.select_one(href), f"âncora sem alvo: {href}"
    assert len(toc) >= 4
    shown = lesson_shape_total(COURSE.get("escolha-self-hosted"))  # a pool shows its draw
    assert len(page.select(".question > form")) == shown
    assert page.select_one('a[rel="prev"]')["href"] == "/licoes/kernels"
    assert page.select_one('a[rel="next"]')["href"] == "/licoes/alem-do-ollama"


def test_no_key_and_no_explanation_reach_the_page_before_answering(client):
    hinted = 0
    for lesson in COURSE.lessons:
        html = client.get(f"/licoes/{lesson.slug}").text
        for question in lesson.questions.values():
            for option in question.options:
                assert option.explanation_html.strip() not in html, (
                    lesson.slug,
                    question.id,
                    option.id,
                )
            for hint in question.hints:  # a hint, the worked answer above all, waits to be opened
                hinted += 1
                assert hint.html.strip() not in html, (lesson.slug, question.id, hint.number)
        page = soup(html)
        for node in page.select(".question"):
            seen = node.get_text()
            assert "Resposta certa" not in seen and "correct" not in str(node).lower()
    assert hinted, "the course's hints are covered"


def test_right_answer_is_graded_explained_and_stored(client, settings):
    question = (
        KERNELS.questions["troca-de-engine"]
        if "troca-de-engine" in KERNELS.questions
        else next(iter(KERNELS.questions.values()))
    )
    response = answer(client, "kernels", question.id, ["b"])
    assert response.status_code == 200
    assert response.headers["vary"].startswith("HX-Request")
    fragment = soup(response)
    assert text(fragment.select_one(".verdict")) == "✓ Resposta correta"
    assert question.option("b").explanation_html.strip() in response.text
    assert is_fragment(response), "htmx recebe só o fragmento"
    assert stored(settings) == [("kernels", question.id, "b", 1)]


def test_wrong_answer_shows_both_explanations(client, settings):
    question = list(KERNELS.questions.values())[1]
    wrong = wrong_option(question)
    response = answer(client, "kernels", question.id, [wrong])
    fragment = soup(response)
    assert text(fragment.select_one(".verdict")) == "✗ Resposta incorreta"
    chosen = fragment.select_one(".graded-option.chosen")
    right = fragment.select_one(".graded-option.right")
    assert question.option(wrong).explanation_html.strip() in str(chosen)
    assert question.option("c").explanation_html.strip() in str(right)
    assert stored(settings) == [("kernels", question.id, wrong, 0)]


def test_answers_are_shown_graded_after_reload_and_restart(settings):
    first, second = list(KERNELS.questions.values())[:2]
    with TestClient(create_app(settings)) as client:
        answer(client, "kernels", first.id, ["b"])
        answer(client, "kernels", second.id, [wrong_option(second)])
        cookies = dict(client.cookies)
        page = soup(client.get("/licoes/kernels"))
        assert page.select_one(f"#pergunta-{first.id}.is-correct")
    with TestClient(create_app(settings), cookies=cookies) as restarted:
        page = soup(restarted.get("/licoes/kernels"))
        assert page.select_one(f"#pergunta-{first.id}.is-correct .verdict")
        assert page.select_one(f"#pergunta-{second.id}.is-wrong .verdict")
        assert not page.select_one(f"#pergunta-{first.id} form")
        assert page.select(".question form"), "as outras perguntas seguem abertas"
        home = soup(restarted.get("/"))
    assert text(home.select_one(".lesson-card .status")) == "Em andamento"


def test_plain_form_post_redirects_back_to_the_graded_question(client):
    question = next(iter(KERNELS.questions.values()))
    response = answer(client, "kernels", question.id, ["b"], htmx=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/licoes/kernels#pergunta-{question.id}"
    page = soup(client.get(response.headers["location"]))
    assert text(page.select_one(f"#pergunta-{question.id} .verdict")) == "✓ Resposta correta"


def test_without_javascript_the_explanations_are_open_right_after_an_answer(client):
    """The walk-through (phone, JS off) saw only "✗ Resposta incorreta  ver explicação ▸" after
    answering: with htmx the explanations open at once; now the page the plain POST redirects
    to opens them too, for that question only, and a later visit shows them folded."""
    first, second = list(KERNELS.questions.values())[:2]
    answer(client, "kernels", first.id, wrong_form(first), htmx=False)
    response = answer(client, "kernels", second.id, wrong_form(second), htmx=False)
    page = soup(client.get(response.headers["location"]))
    graded = page.select_one(f"#pergunta-{second.id}")
    assert text(graded.select_one(".verdict")) == "✗ Resposta incorreta"
    assert graded.select_one("details.answer-details").has_attr("open")
    earlier = page.select_one(f"#pergunta-{first.id} details.answer-details")
    assert not earlier.has_attr("open"), "só a pergunta que acabou de ser respondida"
    again = soup(client.get("/licoes/kernels")).select_one(f"#pergunta-{second.id}")
    assert not again.select_one("details.answer-details").has_attr("open")


def test_multiple_answer_question(client, settings):
    lesson = COURSE.get("escolha-self-hosted")
    question = next(q for q in lesson.questions.values() if q.kind == "multiple")
    response = answer(client, lesson.slug, question.id, sorted(question.answer))
    assert text(soup(response).select_one(".verdict")) == "✓ Resposta correta"
    assert stored(settings) == [(lesson.slug, question.id, ",".join(sorted(question.answer)), 1)]


def test_post_without_csrf_token_is_refused_and_stores_nothing(client, settings):
    client.get("/licoes/kernels")
    question = next(iter(KERNELS.questions.values()))
    response = client.post(f"/licoes/kernels/perguntas/{question.id}", data={"opcao": "b"})
    assert response.status_code == 403
    assert "Sessão expirada, recarregue a página." in response.text
    forged = client.post(
        f"/licoes/kernels/perguntas/{question.id}", data={"opcao": "b", "csrftoken": "forjado"}
    )
    assert forged.status_code == 403
    assert stored(settings) == []


def test_post_without_any_cookie_is_refused(settings):
    with TestClient(create_app(settings)) as client:
        question = next(iter(KERNELS.questions.values()))
        response = client.post(f"/licoes/kernels/perguntas/{question.id}", data={"opcao": "b"})
    assert response.status_code == 403
    assert "Sessão expirada, recarregue a página." in response.text
    assert stored(settings) == []


def test_empty_or_unknown_choice_gets_422_in_portuguese(client, settings):
    question = next(iter(KERNELS.questions.values()))
    empty = answer(client, "kernels", question.id, [])
    assert empty.status_code == 422
    assert (
        text(soup(empty).select_one(".form-error"))
        == "Escolha uma opção antes de enviar a resposta."
    )
    multiple = next(
        q for q in COURSE.get("escolha-self-hosted").questions.values() if q.kind == "multiple"
    )
    none_marked = answer(client, "escolha-self-hosted", multiple.id, [])
    assert (
        text(soup(none_marked).select_one(".form-error"))
        == "Marque pelo menos uma opção antes de enviar a resposta."
    )
    plain = answer(client, "kernels", question.id, ["zzz"], htmx=False)
    assert plain.status_code == 303, "sem JS: volta para a pergunta na página da lição"
    assert plain.headers["location"] == f"/licoes/kernels#pergunta-{question.id}"
    page = soup(client.get(plain.headers["location"]))
    assert text(page.select_one(f"#pergunta-{question.id} .form-error")).startswith(
        "Essa opção não existe"
    )
    again = soup(client.get("/licoes/kernels"))
    assert not again.select_one(".form-error"), "o aviso aparece uma vez só"
    assert stored(settings) == []


def test_unknown_lesson_and_question_are_404_pages_in_portuguese(client):
    missing = client.get("/licoes/nao-existe")
    assert missing.status_code == 404
    assert text(soup(missing).h1) == "Página não encontrada"
    response = answer(client, "kernels", "nao-existe", ["a"], key="k" * 22)
    assert response.status_code == 404
    assert "Pergunta não encontrada" in response.text


def test_malformed_bodies_get_4xx_not_5xx(client, settings):
    token = csrf_from(client.get("/licoes/kernels").text)
    url = "/licoes/kernels/perguntas/" + next(iter(KERNELS.questions))
    form = {"content-type": "application/x-www-form-urlencoded"}
    bad_utf8 = client.post(
        url, content=b"csrftoken=" + token.encode() + b"&opcao=\xff", headers=form
    )
    assert bad_utf8.status_code == 400 and "não está em UTF-8" in bad_utf8.text
    for content_type in ("multipart/form-data", "multipart/form-data;boundary=XX", "text/plain"):
        refused = client.post(url, content=b"x", headers={"content-type": content_type})
        assert refused.status_code == 415, content_type
        assert "Envie o formulário da própria página." in refused.text
    upload = client.post(url, data={"csrftoken": token}, files={"f": ("a.txt", b"x")})
    assert upload.status_code == 415
    huge = client.post(url, content=b"opcao=" + b"a" * 70_000, headers=form)
    assert huge.status_code == 413
    many = client.post(
        url, content=("&".join(["opcao=a"] * 1500) + f"&csrftoken={token}").encode(), headers=form
    )
    assert many.status_code == 400
    assert "O formulário enviado está incompleto ou malformado" in many.text
    json_body = client.post(
        url, content=b"{}", headers={"content-type": "application/json", "x-csrftoken": token, **HX}
    )
    assert json_body.status_code == 422
    bearer = client.post(url, data={"opcao": "b"}, headers={"Authorization": "Bearer x"})
    assert bearer.status_code == 403, "um cabeçalho Bearer não pula a verificação de CSRF"
    assert stored(settings) == []


def test_fields_past_their_limits_get_422_and_store_nothing(client, settings):
    """The answer and the place read their forms without FastAPI (app/web/forms.py,
    PostedForm): the same limits as before, the same page."""
    page = client.get("/licoes/kernels").text
    token = csrf_from(page)
    question = next(iter(KERNELS.questions.values()))
    url = f"/licoes/kernels/perguntas/{question.id}"
    base = {"csrftoken": token, "chave": key_of(page, question.id), "opcao": "b"}
    limits = (("versao", 65), ("confirmado", 101), ("variante", 41), ("lancamento", 2001))
    for field, size in limits:
        sent = {"versao": version_of(page, question.id), **base, field: "a" * size}
        refused = client.post(url, data=sent)
        assert refused.status_code == 422, field
        assert "O formulário enviado está incompleto ou malformado" in refused.text
    for form in ({"licao": "k" * 101}, {"licao": "kernels", "secao": "s" * 201}, {}):
        placed = client.post("/progresso/lugar", data={"csrftoken": token, **form})
        assert placed.status_code == 422, form
    assert stored(settings) == []


def test_csrf_failure_under_htmx_is_a_short_fragment(client):
    client.get("/licoes/kernels")
    url = "/licoes/kernels/perguntas/" + next(iter(KERNELS.questions))
    response = client.post(url, data={"opcao": "b"}, headers=HX)
    assert response.status_code == 403
    assert text(soup(response)) == "Sessão expirada, recarregue a página."


def test_head_and_wrong_method(client):
    assert client.head("/").status_code == 200
    assert client.head("/licoes/kernels").status_code == 200
    wrong = client.get("/arvores/guia-osman/passo")
    assert wrong.status_code == 405 and "POST" in wrong.headers["allow"]
    assert "Este endereço não aceita esse tipo de pedido." in wrong.text


def test_session_cookie_is_an_opaque_id_httponly_and_lax(client, settings):
    token = csrf_from(client.get("/").text)
    assert "curso_sessao" not in client.cookies, "ler não cria sessão"
    response = client.post("/progresso/lugar", data={"csrftoken": token, "licao": "kernels"})
    cookie = next(
        c for c in response.headers.get_list("set-cookie") if c.startswith("curso_sessao=")
    )
    assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower()
    session_id = client.cookies.get("curso_sessao")
    assert len(session_id) == 32 and learner_ids(settings) == []
    ((data,),) = db_rows(settings, "SELECT data FROM websession WHERE id = ?", session_id)
    assert session_id not in data, "o cookie guarda só o id da sessão; os dados ficam no servidor"
    tampered = TestClient(client.app, cookies={"curso_sessao": "eyJsZWFybmVyIjogIngifQ==.forjado"})
    assert tampered.get("/").status_code == 200
    token = tampered.cookies["csrftoken"]
    fresh = tampered.post("/progresso/lugar", data={"csrftoken": token, "licao": "kernels"})
    assert fresh.status_code == 204
    new_cookie = next(
        c for c in fresh.headers.get_list("set-cookie") if c.startswith("curso_sessao=")
    )
    assert "forjado" not in new_cookie, "um id desconhecido ganha uma sessão nova"


def learner_ids(settings) -> list[tuple]:
    return db_rows(settings, "SELECT id FROM learner")


def test_broken_lesson_does_not_stop_the_course(tmp_path: Path):
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "01-boa.md").write_text(GOOD, encoding="utf-8")
    broken = GOOD.replace("slug: decode-prefill", "slug: quebrada").replace("order: 1", "order: 2")
    (tmp_path / "lessons" / "02-quebrada.md").write_text(
        broken.replace("answer: [b]", "answer: [x]"), encoding="utf-8"
    )
    settings = make_settings(tmp_path, tmp_path / "lessons")
    with TestClient(create_app(settings)) as client:
        assert [a["href"] for a in soup(client.get("/")).select(".lesson-card h2 a")] == [
            "/licoes/decode-prefill"
        ]
        assert client.get("/licoes/decode-prefill").status_code == 200
        unavailable = client.get("/licoes/quebrada")
        assert unavailable.status_code == 503, "a lição que nunca carregou fica indisponível"
        assert text(soup(unavailable).h1) == "Lição indisponível"
        assert not soup(unavailable).select(".check-panel"), "o aluno não vê os erros do arquivo"
        assert client.get("/licoes/nao-existe").status_code == 404


def test_empty_course_shows_a_friendly_message(tmp_path: Path):
    (tmp_path / "vazio").mkdir()
    with TestClient(create_app(make_settings(tmp_path, tmp_path / "vazio"))) as client:
        assert "Nenhuma lição publicada ainda" in client.get("/").text
