# curso: `make run` serves the course, `make test` runs every test.
VENV   ?= .venv
PY     := $(VENV)/bin/python
UV     := $(VENV)/bin/uv
HOST   ?= 127.0.0.1
PORT   ?= 8000
PYTHON ?= python3
# pytest keeps the test modules it rewrote (for assert messages) as .pyc files only where Python
# may write bytecode; with PYTHONDONTWRITEBYTECODE set, every run and every xdist worker parsed,
# rewrote and compiled all of tests/ and app/ again (about 8 of the 13 s of a collection).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/pytest

.PHONY: run test suites test-fast screenshots bench bytecode lighthouse install install-dev install-bench chromium migrate check lint vulture types fmt messages clean

run: install bytecode ## install, migrate and serve on $(HOST):$(PORT)
	$(VENV)/bin/curso migrate
	$(VENV)/bin/uvicorn --factory app.main:create_app --host $(HOST) --port $(PORT) --no-access-log

test: install-dev chromium ## install test dependencies and run the whole suite (SQLite and PostgreSQL)
	tests/with_postgres.sh $(MAKE) --no-print-directory suites

# Everything but the load runs on both cores (pytest-xdist: each worker its own databases, its
# own uvicorn and its own Chromium); the load runs measure a server on their own, after (only
# tests/load is collected for them: collecting the whole suite to deselect it cost seconds).
suites: install-dev
	$(PYTEST) -n 2 -m "not load"
	$(PYTEST) -m load tests/load

FAST := not browser and not load and not postgres and not slow

test-fast: install-dev ## the quick loop (under 2 minutes): no browser, load, PostgreSQL or slow tests, on both cores
	$(PYTEST) -n 2 -m "$(FAST)"

screenshots: install-dev chromium ## every page type at 360 and 1280 px, light and dark, into test-artifacts/
	$(PYTEST) tests/test_pages_browser.py -k test_page_type --screenshots

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# Without .pyc files every start compiles ~1,000 modules again (seconds: uv installs without
# compiling, and PYTHONDONTWRITEBYTECODE=1 keeps Python from saving them). Compiled once here,
# they are only read; compileall skips what is up to date, so running it again costs little.
# pip and setuptools (a quarter of the venv's files) are never imported by the app: skipped
# (their _distutils_hack is, by a .pth file at every start, so it stays).
NO_PYC := '/(pip|setuptools|pkg_resources)/'
bytecode: ## compile the app and its installed packages to .pyc (a fast cold start)
	$(PY) -m compileall -q -j 0 -x $(NO_PYC) app $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') >/dev/null || true

$(VENV)/bin/uv:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check uv

# No --compile-bytecode: the targets that start the app run `bytecode` after, which skips pip.
$(VENV)/.installed: pyproject.toml | $(VENV)/bin/uv
	$(UV) pip install --quiet --python $(PY) -e .
	touch $@

# MkDocs Material, for the bench's side-by-side table only (the `bench` extra).
install-bench: $(VENV)/.installed-bench
$(VENV)/.installed-bench: pyproject.toml | $(VENV)/bin/uv
	$(UV) pip install --quiet --python $(PY) -e '.[dev,bench]'
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/uv
	$(UV) pip install --quiet --compile-bytecode --python $(PY) -e '.[dev]'
	touch $(VENV)/.installed $@

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

chromium: ## Debian's Chromium (and an emoji font for screenshots); never `playwright install`
	@test -x /usr/bin/chromium -a -d /usr/share/fonts/truetype/noto || { \
	  echo "Instalando o Chromium do Debian..."; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null; }

bench: install-dev install-bench bytecode chromium ## benchmark against nginx (installs wrk and nginx from Debian), search as you type, lesson to lesson, Lighthouse, the walk's slow steps, lesson height, and the course beside MkDocs Material
	@command -v wrk >/dev/null && command -v nginx >/dev/null || { \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq wrk nginx >/dev/null; }
	@failed=""; \
	for step in "tests/with_postgres.sh $(PY) -m bench.run" "$(PY) -m bench.search_typing" \
	  "$(PY) -m bench.lesson_navigation" "$(PY) -m bench.lighthouse" "$(PY) -m bench.steps" \
	  "$(PY) -m bench.lesson_height" "$(PY) -m bench.side_by_side"; do \
	  echo "$$step"; $$step || failed="$$failed\n  $$step"; \
	done; \
	if [ -n "$$failed" ]; then printf "Falharam (os outros rodaram até o fim):$$failed\n" >&2; exit 1; fi

lighthouse: install-dev chromium ## Lighthouse 12 on the "kernels" lesson (installs it with npm into ~/.cache/curso-lighthouse)
	$(PY) -m bench.lighthouse

migrate: install bytecode
	$(VENV)/bin/curso migrate

check: install bytecode ## validate every lesson
	$(VENV)/bin/curso check lessons

lint: install-dev vulture ## ruff: lint and formatting; the floor plan; unused code
	$(VENV)/bin/ruff check app tests migrations bench
	$(VENV)/bin/ruff format --check app tests migrations bench
	$(VENV)/bin/lint-imports --no-cache

# What only a template, a library or a test uses is answered in .ci/vulture_whitelist.py, with
# its reason; routes, commands and validators by their decorators (pyproject.toml).
vulture: install-dev ## code in app/ that nothing uses (vulture)
	$(VENV)/bin/vulture

types: install-dev ## type-check the app (mypy; strict on app/content, app/learning and app/lti)
	$(VENV)/bin/mypy app

fmt: install-dev
	$(VENV)/bin/ruff format app tests migrations bench
	$(VENV)/bin/ruff check --fix app tests migrations bench

messages: install-dev ## collect the texts of templates and code into the pt-BR catalog (then translate the new ones)
	mkdir -p var
	$(VENV)/bin/pybabel extract -F app/locale/babel.cfg -k N_ --no-location -o var/messages.pot .
	$(VENV)/bin/pybabel update -i var/messages.pot -l pt_BR -d app/locale --no-fuzzy-matching --ignore-obsolete

clean:
	rm -rf $(VENV) var test-artifacts .pytest_cache
