"""The people the benchmark plays: a learner with progress, many answering learners,
an instructor.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx

from app.content.course import Course

TOKEN_RE = re.compile(r'"x-csrftoken": "([^"]+)"')
INSTRUCTOR = "instrutora-bench"
PASSWORD = "senha-do-benchmark-2026"


def cookie_header(client: httpx.Client) -> str:
    """The client's cookies as one ``Cookie`` header value."""
    return "; ".join(f"{name}={value}" for name, value in client.cookies.items())


def reading_learner(base: str, course: Course) -> dict:
    """A learner with three answers in the first lesson: their cookie, CSRF token and client.

    Args:
        base: the app's base URL.
        course: the course served, to pick the questions.

    Returns:
        ``cookie`` (header value), ``token`` (CSRF) and ``client`` (still signed in).
    """
    client = httpx.Client(base_url=base, timeout=30)
    page = client.get("/licoes/kernels").text
    token = TOKEN_RE.search(page).group(1)
    for question in list(course.get("kernels").questions.values())[:3]:
        page = client.get("/licoes/kernels").text
        key = re.search(
            rf'id="pergunta-{question.id}".*?name="chave" value="([^"]+)"', page, re.S
        ).group(1)
        client.post(
            f"/licoes/kernels/perguntas/{question.id}",
            data={
                "opcao": next(iter(question.answer)),
                "chave": key,
                "versao": question.content_hash,
            },
            headers={"HX-Request": "true", "x-csrftoken": token},
        )
    return {"cookie": cookie_header(client), "token": token, "client": client}


def answering_learners(base: str, count: int, target: Path) -> Path:
    """Make ``count`` learners, each with a session (the reading place that ``app.js`` posts
    when a reader opens the first lesson), and write ``cookie<TAB>token`` lines.

    The quiz-answer scenarios rotate over them, as a class answering at once would. Without a
    session every answer would make a new learner: identity lives only in the session.
    """
    lines = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for _ in range(count):
            client.cookies.clear()
            page = client.get("/licoes/kernels").text
            token = TOKEN_RE.search(page).group(1)
            placed = client.post(
                "/progresso/lugar", data={"licao": "kernels"}, headers={"x-csrftoken": token}
            )
            if placed.status_code != 204 or "curso_sessao" not in client.cookies:
                raise RuntimeError(f"o aluno do benchmark não ganhou sessão ({placed.status_code})")
            lines.append(f"{cookie_header(client)}\t{token}")
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def instructor_cookie(base: str, env: dict) -> str:
    """Sign up an account, give it the instructor role with the CLI, and return its cookie.

    Args:
        base: the app's base URL.
        env: the app's environment (``CURSO_DATABASE_URL`` and the rest) for ``curso instrutor``.
    """
    client = httpx.Client(base_url=base, timeout=30)
    token = TOKEN_RE.search(client.get("/conta").text).group(1)
    client.post(
        "/conta/criar",
        data={
            "usuario": INSTRUCTOR,
            "senha": PASSWORD,
            "confirmacao": PASSWORD,
            "csrftoken": token,
        },
    )
    curso = Path(sys.executable).with_name("curso")
    subprocess.run(
        [str(curso), "instrutor", "adicionar", INSTRUCTOR],
        env={**os.environ, **env},
        check=True,
        capture_output=True,
    )
    if client.get("/instrutor").status_code != 200:
        raise RuntimeError("a conta de instrutora do benchmark não abriu o painel")
    return cookie_header(client)


def with_variant_tokens(base: str, learners: Path, question_id: str, target: Path) -> Path:
    """The ``cookie<TAB>token`` lines of ``learners``, each with a third column: the signed
    variant (``variante=…``) the lesson's form of ``question_id`` shows that learner (a
    numeric question with ``params``; a form of another learner's variant is refused)."""
    lines = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for line in learners.read_text(encoding="utf-8").splitlines():
            cookie, token = line.split("\t")[:2]
            page = client.get("/licoes/kernels", headers={"Cookie": cookie}).text
            found = re.search(
                rf'id="pergunta-{question_id}".*?name="variante" value="([^"]+)"', page, re.S
            )
            if found is None:
                raise RuntimeError(f"o formulário de {question_id} não trouxe a variante")
            lines.append(f"{cookie}\t{token}\tvariante={found.group(1)}")
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target
