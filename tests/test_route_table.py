"""The route table is flat and hot-first: a busy request is matched against a few routes, once
(FastAPI keeps an included router as a wrapper that scans its routes, then scans them again to
handle the request: ``POST /progresso/lugar`` tried 82 route matches by this count)."""

from __future__ import annotations

import pytest
from fastapi.routing import APIRoute
from starlette.routing import Mount, Route

from tests.support.html import HX, csrf_from
from tests.support.learning import KERNELS, answer_form

# The busiest routes come first (app/web/routes/__init__.py, HOT): the lesson, the answer, the
# place, each tried once.
FEW = 4


@pytest.fixture
def matches(monkeypatch) -> list[str]:
    """The path of every route a request was matched against, in order."""
    tried: list[str] = []
    for kind in (APIRoute, Route, Mount):  # an APIRoute's match also calls Route's: once
        original = kind.matches

        def counted(self, scope, original=original, kind=kind):
            if type(self) is kind:
                tried.append(self.path)
            return original(self, scope)

        monkeypatch.setattr(kind, "matches", counted)
    return tried


def test_the_place_post_the_answer_post_and_the_lesson_try_a_few_routes_once(client, matches):
    page = client.get("/licoes/kernels").text
    token = csrf_from(page)
    question = next(iter(KERNELS.questions.values()))
    matches.clear()
    placed = client.post("/progresso/lugar", data={"csrftoken": token, "licao": "kernels"})
    assert placed.status_code == 204
    assert matches.count("/progresso/lugar") == 1
    assert len(matches) <= FEW, matches

    page = client.get(f"/licoes/kernels?refazer={question.id}").text
    matches.clear()
    answered = client.post(
        f"/licoes/kernels/perguntas/{question.id}",
        data=answer_form(page, question.id, token=token, opcao="b"),
        headers=HX,
    )
    assert answered.status_code == 200
    assert matches.count("/licoes/{slug}/perguntas/{question_id}") == 1
    assert len(matches) <= FEW, matches

    matches.clear()  # a learner's lesson (a visitor's is answered before any routing)
    assert client.get("/licoes/kernels").status_code == 200
    assert matches[0] == "/licoes/{slug}"
    assert len(matches) <= FEW, matches
