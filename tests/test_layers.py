"""The floor plan of ``app/``: packages by purpose, imports that only look down.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``) and are checked with
import-linter, the library, not with code of ours.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.platform.settings import PROJECT_ROOT

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PACKAGES = {
    "analytics",
    "authoring",
    "cli",
    "content",
    "i18n",
    "learning",
    "lti",
    "platform",
    "web",
}


def test_import_linter_contracts_are_kept() -> None:
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken." in done.stdout
    contracts = ("Floors only look down", "Content imports nothing", "Routers never", "LTI library")
    for contract in contracts:
        assert contract in done.stdout


def test_app_root_holds_packages_and_the_app_factory_only() -> None:
    app = PROJECT_ROOT / "app"
    modules = {p.name for p in app.glob("*.py")}
    packages = {p.name for p in app.iterdir() if (p / "__init__.py").exists()}
    assert modules == {"__init__.py", "main.py"}
    assert packages == PACKAGES


def test_each_package_says_what_lives_there_and_what_it_may_import() -> None:
    for name in PACKAGES:
        doc = (PROJECT_ROOT / "app" / name / "__init__.py").read_text(encoding="utf-8")
        assert doc.startswith('"""'), name
        assert "import" in doc, f"app/{name}/__init__.py does not say what it may import"


def test_the_tree_command_does_not_import_the_web_framework() -> None:
    probe = (
        "import sys; from app.cli import tree; "
        "print(sorted(m for m in ('fastapi', 'starlette', 'jinja2') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=PROJECT_ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_modules_import_the_test_kit_never_each_other() -> None:
    """Helpers shared by tests live in tests/support; a test module is never imported."""
    tests = PROJECT_ROOT / "tests"
    found = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                last = name.rsplit(".", 1)[-1]
                if name.startswith("tests.") and (last.startswith("test_") or last == "conftest"):
                    found.append(f"{path.relative_to(tests)}:{node.lineno}: {name}")
    assert found == []


def test_every_slow_test_named_in_the_markers_exists() -> None:
    from tests.support.markers import READ_ONLY, SLOW

    tests = PROJECT_ROOT / "tests"
    missing = []
    for entry in sorted(SLOW | READ_ONLY):
        module, _, name = entry.partition("::")
        path = tests / module
        if not path.exists():
            missing.append(entry)
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        if name and name not in defined:
            missing.append(entry)
    assert missing == []


def _app_modules(*skip: str):
    for path in sorted((PROJECT_ROOT / "app").rglob("*.py")):
        relative = path.relative_to(PROJECT_ROOT).as_posix()
        if not relative.startswith(skip):
            yield relative, ast.parse(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("package", ["learning", "lti"])
def test_the_package_docstring_names_each_of_its_modules(package: str) -> None:
    folder = PROJECT_ROOT / "app" / package
    doc = (folder / "__init__.py").read_text(encoding="utf-8")
    modules = {p.stem for p in folder.glob("*.py")} | {
        p.parent.name for p in folder.glob("*/__init__.py")
    }
    missing = sorted(m for m in modules - {"__init__"} if f"app.{package}.{m}`" not in doc)
    assert missing == []


def test_learning_knows_nothing_of_lmss() -> None:
    """LTI is a room of its own (app/lti/): no word of learning's code or docs names it."""
    words = re.compile(r"(?i)\b(lti|lms)")
    found = [
        f"{path.relative_to(PROJECT_ROOT)}:{number}"
        for path in sorted((PROJECT_ROOT / "app" / "learning").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if words.search(line)
    ]
    assert found == []


# Where a floor below web opens a database session itself: the learner store (the second door
# of app/web/deps.py, over the engine it is given) and the threads no request owns. Anything
# else takes its session from the routes' door (app/web/deps.py: SessionDep, read_session).
OWN_SESSIONS = {
    "app/learning/store.py:SqlLearnerStore",
    "app/learning/retention.py:RetentionSweeper",
    "app/lti/sender.py:ScoreSender",
    "app/lti/tool.py:LmsOrigins",
}


def test_below_web_only_the_learner_store_and_the_background_threads_open_sessions() -> None:
    found = set()
    for name, tree in _app_modules("app/web/", "app/cli/", "app/main.py", "app/platform/"):
        for top in tree.body:
            for node in ast.walk(top):
                if isinstance(node, ast.Call) and ast.unparse(node.func) == "Session":
                    found.add(f"{name}:{getattr(top, 'name', node.lineno)}")
    assert found == OWN_SESSIONS


def test_table_handles_are_defined_once_next_to_their_models() -> None:
    """A Core table is taken once, in app/platform/models/, never again by ``__table__`` or
    ``metadata.tables[...]`` where it is used."""
    found = [
        f"{name}:{node.lineno}"
        for name, tree in _app_modules("app/platform/models/")
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and (
            node.attr == "__table__" or (node.attr == "tables" and "metadata" in ast.unparse(node))
        )
    ]
    assert found == []


def test_every_table_is_a_model_of_one_feature_module_with_its_handle_beside_it() -> None:
    from sqlalchemy import Table
    from sqlmodel import SQLModel

    import app.platform.models as models

    owners = {
        model.__tablename__: model.__module__
        for name in models.__all__
        if isinstance(model := getattr(models, name), type)
        and issubclass(model, SQLModel)
        and "__table__" in vars(model)
    }
    assert set(owners) == set(SQLModel.metadata.tables)
    assert all(module.startswith("app.platform.models.") for module in owners.values())
    for name in models.__all__:
        if isinstance(handle := getattr(models, name), Table):
            assert SQLModel.metadata.tables[handle.name] is handle, name
    for path in sorted((PROJECT_ROOT / "app" / "platform" / "models").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        taken = {
            node.args[0].id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "table"
            and node.args
            and isinstance(node.args[0], ast.Name)
        }
        assert taken <= classes, f"{path.name}: handles of models defined elsewhere"


def test_the_schema_holds_no_json_shape() -> None:
    """The API's JSON shapes (``*Public``, the export) live with the API, not with the tables."""
    import app.platform.models as models

    assert [name for name in models.__all__ if name.endswith(("Public", "Export"))] == []


def test_every_read_only_test_takes_a_client_and_nothing_that_writes() -> None:
    """A test in ``READ_ONLY`` shares one app with the others, so it asks for none of the
    fixtures of a database or an app of its own."""
    from tests.support.markers import READ_ONLY

    tests = PROJECT_ROOT / "tests"
    wrong = []
    for entry in sorted(READ_ONLY):
        module, _, name = entry.partition("::")
        tree = ast.parse((tests / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == name:
                arguments = {argument.arg for argument in node.args.args}
                if "client" not in arguments or arguments & WRITERS:
                    wrong.append(f"{entry}: {sorted(arguments)}")
    assert wrong == []


WRITERS = {"settings", "database_url", "tmp_path", "monkeypatch", "caplog", "live_server"}


def test_the_shared_visitor_client_refuses_to_write_and_forgets_each_visitor(tmp_path) -> None:
    from app.main import create_app
    from tests.support.app import make_settings
    from tests.support.visitor import ReadOnlyClient

    with ReadOnlyClient(create_app(make_settings(tmp_path))) as client:
        with client.for_one_test():
            client.cookies.set("tema", "escuro")
            client.headers["HX-Request"] = "true"
            assert client.get("/glossario").status_code == 200
            with pytest.raises(AssertionError, match="este teste escreve"):
                client.post("/tema", data={"tema": "claro"})
        assert not client.cookies and "HX-Request" not in client.headers
