"""Classes over HTTP: create, join by link (with an account), rotate, leave, staff and admins,
due dates in the class zone, late answers counted, the learner's next due dates, LGPD."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, available_timezones

import pytest
from fastapi.testclient import TestClient

from app.learning.classes import due_label, parse_due
from app.main import create_app
from tests.support.accounts import instructor, sign_up
from tests.support.app import db_rows
from tests.support.cli import curso
from tests.support.html import csrf_from, soup, text
from tests.support.learning import COURSE, KERNELS, answer, finish

FIRST = next(iter(KERNELS.questions))
CHOICE = next(
    q.id for q in COURSE.get("escolha-self-hosted").questions.values() if q.scenario is None
)


def post(client: TestClient, url: str, **fields):
    token = csrf_from(client.get("/conta").text)
    return client.post(url, data={"csrftoken": token, **fields})


@pytest.fixture
def school(settings):
    app = create_app(settings)
    teacher = instructor(TestClient(app, follow_redirects=False), settings, "prof")
    learner = TestClient(app, follow_redirects=False)
    answer(learner, "kernels", FIRST, ["b"])
    sign_up(learner, "ana")
    created = post(teacher, "/instrutor/turmas", nome="Turma A", descricao="Noite")
    assert created.status_code == 303
    page = soup(teacher.get(created.headers["location"]).text)
    link = text(page.select_one(".join-link"))
    return app, teacher, learner, created.headers["location"], link.split("/turmas/entrar/")[1]


def test_create_join_by_link_and_see_the_username_only_in_the_class(school, settings):
    app, teacher, learner, class_url, code = school
    # Issue 38: a class named "Turma A" is titled so, not "Turma Turma A" ("B" below is "Turma B").
    page = soup(teacher.get(class_url).text)
    assert (text(page.select_one("h1")), text(page.select_one("title"))) == (
        "Turma A",
        "Turma A · Engines de inferência",
    )
    copy = page.select_one("button[data-copy]")
    assert (text(copy), copy["data-copy"], copy.has_attr("hidden")) == (
        "Copiar o link",
        "#link-turma",
        True,  # shown by static/js/copy-code.js: without JavaScript it could not copy
    )
    assert page.select_one("#link-turma") is page.select_one(".join-link")
    assert len(code) >= 32
    listed = soup(teacher.get("/instrutor/turmas").text)
    assert [text(a) for a in listed.select(".class-list a")] == ["Turma A"]
    anonymous = TestClient(app, follow_redirects=False)
    response = anonymous.get(f"/turmas/entrar/{code}")
    assert response.status_code == 303
    assert response.headers["location"] == f"/conta?proximo=%2Fturmas%2Fentrar%2F{code}"
    page = soup(learner.get(f"/turmas/entrar/{code}").text)
    assert text(page.select_one("h1")) == "Entrar na turma Turma A"
    assert post(learner, f"/turmas/entrar/{code}").status_code == 303
    members = soup(teacher.get(class_url).text).select(".member-name")
    assert [text(m) for m in members] == ["ana"]
    assert "ana" not in teacher.get("/instrutor").text
    assert db_rows(settings, "SELECT count(*) FROM class_member") == [(1,)]
    other = post(teacher, "/instrutor/turmas", nome="B")
    assert text(soup(teacher.get(other.headers["location"]).text).select_one("h1")) == "Turma B"


def test_a_rotated_link_stops_working(school):
    _, teacher, learner, class_url, code = school
    class_id = class_url.rsplit("/", 1)[1]
    assert post(teacher, f"/instrutor/turmas/{class_id}/codigo").status_code == 303
    response = learner.get(f"/turmas/entrar/{code}")
    assert response.status_code == 404
    assert "não funciona" in text(soup(response.text).select_one("main"))
    fresh = text(soup(teacher.get(class_url).text).select_one(".join-link"))
    assert fresh.split("/turmas/entrar/")[1] != code


def test_instructors_see_only_their_classes_and_admins_see_all(school, settings):
    app, _, _, class_url, _ = school
    other = instructor(TestClient(app, follow_redirects=False), settings, "outra")
    assert other.get(class_url).status_code == 404
    assert soup(other.get("/instrutor/turmas").text).select(".class-list a") == []
    done = curso(settings, "instrutor", "adicionar", "outra", "--admin")
    assert done.returncode == 0 and "vê todas as turmas" in done.stdout
    assert other.get(class_url).status_code == 200
    assert [text(a) for a in soup(other.get("/instrutor/turmas").text).select(".class-list a")] == [
        "Turma A"
    ]


def test_a_class_without_a_name_is_refused_next_to_the_field_with_the_rest_kept(school):
    _, teacher, _, _, _ = school
    refused = post(teacher, "/instrutor/turmas", nome="  ", descricao="Noite")
    assert refused.status_code == 422
    form = soup(refused.text).select_one("form[action='/instrutor/turmas']")
    field = form.select_one("#turma-nome")
    error = form.select_one(".form-error")
    assert text(error) == "Dê um nome à turma."
    assert (field["aria-describedby"], field["aria-invalid"], field.has_attr("autofocus")) == (
        error["id"],
        "true",
        True,
    )
    assert form.select_one("#turma-descricao")["value"] == "Noite"


def test_staff_can_be_added_and_then_see_the_class(school, settings):
    app, teacher, _, class_url, _ = school
    other = instructor(TestClient(app, follow_redirects=False), settings, "colega")
    class_id = class_url.rsplit("/", 1)[1]
    for typed in ("ninguem", "ana"):  # no account; a learner's account
        bad = post(teacher, f"/instrutor/turmas/{class_id}/equipe", usuario=typed)
        assert bad.status_code == 422
        page = soup(bad.text)
        form = page.select_one("form[action$='/equipe']")
        assert [text(e) for e in page.select(".form-error")] == [
            f"Não há instrutor com o usuário “{typed}”: peça ao administrador do curso que "
            "torne essa conta instrutora e depois adicione-a aqui."
        ]
        error = form.select_one(".form-error")  # next to the field, not at the top of the page
        field = form.select_one("input[name=usuario]")
        assert error["role"] == "alert"
        assert field["aria-describedby"].split() == ["equipe-dica", error["id"]]
        assert (field["value"], field["aria-invalid"], field.has_attr("autofocus")) == (
            typed,
            "true",
            True,
        )
        assert text(form.select_one("#equipe-dica")) == (
            "Só instrutores do curso podem ser adicionados. Para outra pessoa, peça antes ao "
            "administrador do curso que torne a conta dela instrutora."
        )
    assert (
        post(teacher, f"/instrutor/turmas/{class_id}/equipe", usuario="colega").status_code == 303
    )
    assert other.get(class_url).status_code == 200


def test_due_dates_are_entered_in_the_class_zone_and_late_answers_are_accepted_and_counted(
    school, settings
):
    _, teacher, learner, class_url, code = school
    class_id = class_url.rsplit("/", 1)[1]
    post(learner, f"/turmas/entrar/{code}")
    past = datetime.now(ZoneInfo("America/Sao_Paulo")) - timedelta(hours=1)
    form = {"licao": "kernels", "prazo": past.strftime("%Y-%m-%dT%H:%M")}
    assert post(teacher, f"/instrutor/turmas/{class_id}/prazos", **form).status_code == 303
    stored = db_rows(settings, "SELECT due_at FROM class_due")[0][0]
    assert str(stored).startswith((past.astimezone(UTC)).strftime("%Y-%m-%d %H:%M"))
    assert answer(learner, "kernels", FIRST, ["a"]).status_code == 200  # late, still accepted
    later = {"licao": "escolha-self-hosted", "prazo": "2099-01-01T12:00"}
    assert post(teacher, f"/instrutor/turmas/{class_id}/prazos", **later).status_code == 303
    assert answer(learner, "escolha-self-hosted", CHOICE, ["a"]).status_code == 200
    page = soup(teacher.get(class_url).text)
    row = page.select_one('tr[data-licao="kernels"]')
    assert (
        text(row.select_one("td")) == f"até {past.strftime('%d/%m, %H:%M')} (horário de Brasília)"
    )
    assert (text(row.select_one(".on-time")), text(row.select_one(".late"))) == (
        "0",
        "2 1 aluno atrasado",
    )
    row = page.select_one('tr[data-licao="escolha-self-hosted"]')
    assert (text(row.select_one(".on-time")), text(row.select_one(".late"))) == ("1", "0")
    bad = post(teacher, f"/instrutor/turmas/{class_id}/prazos", licao="kernels", prazo="amanhã")
    assert bad.status_code == 422
    form = soup(bad.text).select_one("form.due-form")  # the error next to the field
    assert text(form.select_one(".form-error")) == (
        "Escreva o prazo com dia, mês, ano e hora, por exemplo 12/12/2026 23:59."
    )
    field = form.select_one("input[name=prazo]")
    assert (field["value"], field["aria-describedby"], field.has_attr("autofocus")) == (
        "amanhã",
        form.select_one(".form-error")["id"],
        True,
    )


def test_the_learner_home_shows_what_is_due_next(school):
    _, teacher, learner, class_url, code = school
    class_id = class_url.rsplit("/", 1)[1]
    post(learner, f"/turmas/entrar/{code}")
    post(teacher, f"/instrutor/turmas/{class_id}/prazos", licao="kernels", prazo="2099-12-12T23:59")
    item = soup(learner.get("/").text).select_one(".due-next li")
    assert (
        text(item)
        == f"{KERNELS.meta.title} até 12/12/2099, 23:59 (horário de Brasília) turma Turma A"
    )


def test_the_learner_sees_an_overdue_lesson_and_that_an_answer_was_late(school, settings):
    # Issue 27: the instructor saw "1 aluno atrasado"; the learner never saw anything.
    _, teacher, learner, class_url, code = school
    class_id = class_url.rsplit("/", 1)[1]
    post(learner, f"/turmas/entrar/{code}")
    two_hours_ago = (datetime.now(UTC) - timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S")
    db_rows(settings, "UPDATE attempt SET created_at = ?", two_hours_ago)  # before the due date
    on_time = learner.get("/licoes/kernels").text  # cached before the due date is set
    assert soup(on_time).select_one(".lesson-due") is None
    past = datetime.now(ZoneInfo("America/Sao_Paulo")) - timedelta(hours=1)
    form = {"licao": "kernels", "prazo": past.strftime("%Y-%m-%dT%H:%M")}
    assert post(teacher, f"/instrutor/turmas/{class_id}/prazos", **form).status_code == 303
    later = {"licao": "escolha-self-hosted", "prazo": "2099-12-12T23:59"}
    assert post(teacher, f"/instrutor/turmas/{class_id}/prazos", **later).status_code == 303
    when = f"até {past.strftime('%d/%m, %H:%M')} (horário de Brasília)"

    items = soup(learner.get("/").text).select(".due-next li")
    assert [text(item) for item in items] == [
        f"{KERNELS.meta.title} atrasada {when} turma Turma A",
        f"{COURSE.get('escolha-self-hosted').meta.title} até 12/12/2099, 23:59 "
        "(horário de Brasília) turma Turma A",
    ]
    page = soup(learner.get("/licoes/kernels").text)
    assert text(page.select_one(".lesson-due")) == (
        f"atrasada Prazo da turma Turma A: {when}. Você ainda pode responder; as respostas "
        "enviadas agora contam como atrasadas."
    )
    # The answer sent before the due date is not late; the one sent now is, in the fragment
    # and on the page.
    first = page.select_one(f"#pergunta-{FIRST}")
    assert first.select_one(".answered-at") and first.select_one(".answered-late") is None
    late = soup(answer(learner, "kernels", FIRST, ["a"]).text)
    assert text(late.select_one(".answered-late")) == "atrasada: depois do prazo"
    page = soup(learner.get("/licoes/kernels").text)
    tag = page.select_one(f"#pergunta-{FIRST} .answered-late")
    assert tag is not None and text(tag) == "atrasada: depois do prazo"
    later_page = soup(learner.get("/licoes/escolha-self-hosted").text)
    assert text(later_page.select_one(".lesson-due")) == (
        "Prazo da turma Turma A: até 12/12/2099, 23:59 (horário de Brasília)."
    )


def test_a_lesson_finished_on_time_is_not_listed_as_overdue(school, settings):
    # The lesson page still says the due date passed; the home lists only what is left to do.
    _, teacher, learner, class_url, code = school
    class_id = class_url.rsplit("/", 1)[1]
    post(learner, f"/turmas/entrar/{code}")
    finish(learner, KERNELS)
    soon = datetime.now(ZoneInfo("America/Sao_Paulo")) + timedelta(minutes=2)
    form = {"licao": "kernels", "prazo": soon.strftime("%Y-%m-%dT%H:%M")}
    assert post(teacher, f"/instrutor/turmas/{class_id}/prazos", **form).status_code == 303
    an_hour_ago = (datetime.now(UTC) - timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")
    db_rows(settings, "UPDATE class_due SET due_at = ?", an_hour_ago)  # it passed since
    page = soup(learner.get("/licoes/kernels").text)
    assert text(page.select_one(".lesson-due")).startswith("atrasada")
    assert soup(learner.get("/").text).select_one(".due-next") is None


def test_leaving_and_lgpd_export_and_delete_include_memberships(school, settings):
    _, teacher, learner, class_url, code = school
    class_id = class_url.rsplit("/", 1)[1]
    post(learner, f"/turmas/entrar/{code}")
    exported = learner.get("/meus-dados/exportar").json()
    assert [c["class_name"] for c in exported["classes"]] == ["Turma A"]
    page = soup(learner.get("/meus-dados").text)
    assert "usuário" in text(page.select_one(".mydata-page"))
    assert post(learner, f"/turmas/{class_id}/sair").status_code == 303
    assert learner.get("/meus-dados/exportar").json()["classes"] == []
    post(learner, f"/turmas/entrar/{code}")
    assert post(learner, "/meus-dados/apagar", confirmo="sim").status_code == 303
    assert db_rows(settings, "SELECT count(*) FROM class_member") == [(0,)]


def test_due_label_and_parse_due_round_trip():
    moment = parse_due("2026-12-12T23:59", "America/Sao_Paulo")
    assert moment == datetime(2026, 12, 13, 2, 59, tzinfo=UTC)  # 13/12 in UTC, 12/12 in Brasília
    this_year = datetime(2026, 6, 1, tzinfo=UTC)
    label = due_label(moment, "America/Sao_Paulo", this_year)
    assert label == "até 12/12, 23:59 (horário de Brasília)"


def test_a_due_date_outside_the_current_year_shows_its_year():
    moment = parse_due("2027-01-12T23:59", "America/Sao_Paulo")
    now = datetime(2026, 12, 1, tzinfo=UTC)
    assert due_label(moment, "America/Sao_Paulo", now) == (
        "até 12/01/2027, 23:59 (horário de Brasília)"
    )
    last_year = parse_due("2025-12-31T23:59", "America/Sao_Paulo")  # 2026 in UTC, 2025 here
    assert due_label(last_year, "America/Sao_Paulo", now) == (
        "até 31/12/2025, 23:59 (horário de Brasília)"
    )


def test_a_due_date_in_the_hour_daylight_saving_skips_is_refused_with_the_time_to_use(
    school, settings
):
    """New York's clocks go from 02:00 to 03:00 on 14/03/2027: 02:30 never happens there
    (zoneinfo would have moved it to 03:30 without a word)."""
    _, teacher, _, class_url, _ = school
    class_id = class_url.rsplit("/", 1)[1]
    zone = {"fuso": "America/New_York"}
    assert post(teacher, f"/instrutor/turmas/{class_id}/fuso", **zone).status_code == 303
    form = {"licao": "escolha-self-hosted", "prazo": "2027-03-14T02:30"}
    refused = post(teacher, f"/instrutor/turmas/{class_id}/prazos", **form)
    assert refused.status_code == 422
    page = soup(refused.text)
    assert text(page.select_one(".form-error")) == (
        "14/03/2027 02:30 não existe no fuso da turma (horário do Leste): nessa noite o relógio "
        "é adiantado em uma hora (horário de verão). Escolha outro horário, por exemplo "
        "14/03/2027 03:30."
    )
    assert page.select_one("#prazo-data")["value"] == "2027-03-14T02:30", "o que foi digitado fica"
    chosen = page.select_one("#prazo-licao option[selected]")["value"]
    assert chosen == "escolha-self-hosted"
    assert db_rows(settings, "SELECT count(*) FROM class_due") == [(0,)]
    form["prazo"] = "2027-03-14T03:30"
    assert post(teacher, f"/instrutor/turmas/{class_id}/prazos", **form).status_code == 303
    row = soup(teacher.get(class_url).text).select_one('tr[data-licao="escolha-self-hosted"]')
    assert text(row.select_one("td")) == "até 14/03/2027, 03:30 (horário do Leste)"


def test_deleting_a_class_removes_memberships_and_due_dates_but_not_attempts(school, settings):
    _, teacher, learner, class_url, code = school
    post(learner, f"/turmas/entrar/{code}")
    post(teacher, class_url + "/prazos", licao="kernels", prazo="2099-12-12T23:59")
    attempts = db_rows(settings, "SELECT count(*) FROM attempt")
    assert post(teacher, class_url + "/apagar").status_code == 303
    assert teacher.get(class_url).status_code == 404
    for table in ("classroom", "class_member", "class_due", "class_staff"):
        assert db_rows(settings, f"SELECT count(*) FROM {table}") == [(0,)], table
    assert db_rows(settings, "SELECT count(*) FROM attempt") == attempts != [(0,)]


def test_csv_exports_take_a_class_filter_and_keep_the_pseudonyms(school, settings):
    app, teacher, learner, class_url, code = school
    class_id = class_url.rsplit("/", 1)[1]
    outsider = TestClient(app, follow_redirects=False)
    answer(outsider, "kernels", FIRST, ["a"])
    everyone = teacher.get("/instrutor/exportar/tentativas.csv").text.strip().splitlines()
    assert len(everyone) == 3  # header, ana's attempt, the outsider's
    assert (
        teacher.get(f"/instrutor/exportar/tentativas.csv?turma={class_id}")
        .text.strip()
        .splitlines()
        == everyone[:1]
    )
    post(learner, f"/turmas/entrar/{code}")
    only = (
        teacher.get(f"/instrutor/exportar/tentativas.csv?turma={class_id}")
        .text.strip()
        .splitlines()
    )
    assert len(only) == 2 and only[1] in everyone and "ana" not in only[1]
    progress = (
        teacher.get(f"/instrutor/exportar/progresso.csv?turma={class_id}").text.strip().splitlines()
    )
    assert {line.split(",")[0] for line in progress[1:]} == {only[1].split(",")[1]}
    assert teacher.get("/instrutor/exportar/progresso.csv?turma=999").status_code == 404


def _funnel(page) -> dict[str, tuple[str, str]]:
    return {
        tr["data-licao"]: (text(tr.select_one(".started")), text(tr.select_one(".completed")))
        for tr in page.select("#funil table.funnel tbody tr")
    }


def _item(page, slug: str, qid: str) -> tuple[str, ...]:
    card = page.select_one(f"#q-{slug}-{qid}")
    return tuple(
        text(card.select_one(s)) for s in (".fig-attempts", ".fig-learners", ".fig-facility")
    )


def test_the_dashboard_shows_one_class_picked_in_a_get_form(school, settings):
    app, teacher, learner, class_url, code = school
    class_id = class_url.rsplit("/", 1)[1]
    post(learner, f"/turmas/entrar/{code}")  # ana: right on the first try, in the class
    outsider = TestClient(app, follow_redirects=False)
    answer(outsider, "kernels", FIRST, ["a"])  # wrong, twice, not in the class
    answer(outsider, "kernels", FIRST, ["c"])
    post(teacher, "/instrutor/turmas", nome="Turma B")
    past = datetime.now(ZoneInfo("America/Sao_Paulo")) - timedelta(hours=1)
    form = {"licao": "kernels", "prazo": past.strftime("%Y-%m-%dT%H:%M")}
    assert post(teacher, f"/instrutor/turmas/{class_id}/prazos", **form).status_code == 303
    answer(learner, "kernels", FIRST, ["b"])  # both of ana's answers came after the due date

    everyone = soup(teacher.get("/instrutor").text)
    picker = everyone.select_one("form.class-filter")
    assert (picker["method"], picker["action"]) == ("get", "/instrutor")
    options = [(o["value"], text(o)) for o in picker.select("select[name=turma] option")]
    assert options[0] == ("", "Todos os alunos")
    assert sorted(name for _, name in options[1:]) == ["Turma A", "Turma B"]
    assert _funnel(soup(teacher.get("/instrutor/funil").text))["kernels"][0] == "2"
    questions = soup(teacher.get("/instrutor/perguntas").text)
    assert _item(questions, "kernels", FIRST) == ("4", "2", "50%")
    assert everyone.select_one("#prazos") is None

    response = teacher.get(f"/instrutor?turma={class_id}")
    assert response.status_code == 200
    page = soup(response.text)
    assert page.select_one(f'select[name=turma] option[value="{class_id}"]').has_attr("selected")
    scope = page.select_one(".class-scope")
    assert scope.get_text().startswith("Só os alunos da turma Turma A; números calculados agora.")
    from_class = soup(teacher.get(class_url).text).select_one("a.class-dashboard")
    assert (text(from_class), from_class["href"]) == ("Painel", f"/instrutor?turma={class_id}")
    assert scope.select_one("a")["href"] == class_url
    funnel = soup(teacher.get(f"/instrutor/funil?turma={class_id}").text)
    assert _funnel(funnel)["kernels"][0] == "1"
    questions = soup(teacher.get(f"/instrutor/perguntas?turma={class_id}").text)
    assert _item(questions, "kernels", FIRST) == ("2", "1", "100%")
    assert text(page.select_one(".fig-total")) == "1"
    due = page.select_one('#prazos tr[data-licao="kernels"]')
    assert (text(due.select_one(".on-time")), text(due.select_one(".late"))) == (
        "0",
        "2 1 aluno atrasado",
    )
    export = page.select_one("#exportar a[href^='/instrutor/exportar/tentativas.csv']")
    assert export["href"] == f"/instrutor/exportar/tentativas.csv?turma={class_id}"


def test_the_dashboard_class_filter_is_limited_to_the_instructors_classes(school, settings):
    app, _, _, class_url, _ = school
    class_id = class_url.rsplit("/", 1)[1]
    other = instructor(TestClient(app, follow_redirects=False), settings, "outra")
    assert other.get(f"/instrutor?turma={class_id}").status_code == 404
    assert soup(other.get("/instrutor").text).select_one("form.class-filter") is None
    assert other.get("/instrutor?turma=abc").status_code == 422
    assert other.get("/instrutor?turma=").status_code == 200
    curso(settings, "instrutor", "adicionar", "outra", "--admin")
    assert other.get(f"/instrutor?turma={class_id}").status_code == 200


def test_the_class_time_zone_is_chosen_from_a_select_and_changes_how_due_dates_read(
    school, settings
):
    _, teacher, _, class_url, _ = school
    class_id = class_url.rsplit("/", 1)[1]
    form = {"licao": "kernels", "prazo": "2099-01-01T12:00"}
    assert post(teacher, f"/instrutor/turmas/{class_id}/prazos", **form).status_code == 303
    page = soup(teacher.get(class_url).text)
    select = page.select_one("form.zone-form select[name=fuso]")
    assert select.select_one("option[selected]")["value"] == "America/Sao_Paulo"
    assert "America/Manaus" in [o["value"] for o in select.select("option")]
    # Issue 38: Brazil's zones first, by city in Portuguese; the rest after, every zone once.
    brazil, others = select.select("optgroup")
    assert (brazil["label"], others["label"]) == ("Brasil", "Outros fusos")
    cities = [text(o) for o in brazil.select("option")]
    assert cities[0] == "Araguaína (Horário de Brasília)" and cities == sorted(cities)
    assert "Manaus (Horário do Amazonas)" in cities and "São Paulo (Horário de Brasília)" in cities
    assert "Rio Branco (Horário do Acre)" in cities and len(cities) == 16
    values = [o["value"] for o in select.select("option")]
    assert len(values) == len(set(values)) == len(available_timezones())
    assert [text(o) for o in others.select("option")][:2] == ["Africa/Abidjan", "Africa/Accra"]
    assert (
        post(teacher, f"/instrutor/turmas/{class_id}/fuso", fuso="America/Manaus").status_code
        == 303
    )
    assert db_rows(settings, "SELECT time_zone FROM classroom") == [("America/Manaus",)]
    row = soup(teacher.get(class_url).text).select_one('tr[data-licao="kernels"]')
    # The same instant (15:00 UTC), now read in Manaus (UTC-4).
    assert text(row.select_one("td")) == "até 01/01/2099, 11:00 (horário do Amazonas)"
    bad = post(teacher, f"/instrutor/turmas/{class_id}/fuso", fuso="Marte/Olimpo")
    assert bad.status_code == 422
    form = soup(bad.text).select_one("form.zone-form")  # the error next to the field
    assert text(form.select_one(".form-error")) == "Escolha um dos fusos horários da lista."
    field = form.select_one("select[name=fuso]")
    assert (field["aria-describedby"], field["aria-invalid"], field.has_attr("autofocus")) == (
        form.select_one(".form-error")["id"],
        "true",
        True,
    )
    assert db_rows(settings, "SELECT time_zone FROM classroom") == [("America/Manaus",)]


def test_an_instructor_can_be_removed_but_never_the_last_one(school, settings):
    app, teacher, _, class_url, _ = school
    class_id = class_url.rsplit("/", 1)[1]
    other = instructor(TestClient(app, follow_redirects=False), settings, "outra")
    alone = soup(teacher.get(class_url).text)
    assert alone.select("form[action$='/equipe/remover']") == []
    last = post(teacher, f"/instrutor/turmas/{class_id}/equipe/remover", usuario="prof")
    assert last.status_code == 422
    assert (
        text(soup(last.text).select_one(".class-staff + .form-error"))
        == "Uma turma precisa de pelo menos um instrutor: adicione outro antes de remover “prof”."
    )
    assert post(teacher, f"/instrutor/turmas/{class_id}/equipe", usuario="outra").status_code == 303
    page = soup(teacher.get(class_url).text)
    assert [text(s) for s in page.select(".class-staff .staff-name")] == ["outra", "prof"]
    assert len(page.select("form[action$='/equipe/remover']")) == 2
    nobody = post(teacher, f"/instrutor/turmas/{class_id}/equipe/remover", usuario="ninguem")
    assert nobody.status_code == 422
    removed = post(teacher, f"/instrutor/turmas/{class_id}/equipe/remover", usuario="outra")
    assert (removed.status_code, removed.headers["location"]) == (303, class_url)
    assert other.get(class_url).status_code == 404
    assert post(teacher, f"/instrutor/turmas/{class_id}/equipe", usuario="outra").status_code == 303
    itself = post(teacher, f"/instrutor/turmas/{class_id}/equipe/remover", usuario="prof")
    assert (itself.status_code, itself.headers["location"]) == (303, "/instrutor/turmas")
    assert teacher.get(class_url).status_code == 404
    assert other.get(class_url).status_code == 200
