"""The test kit: what more than one test module uses lives here, never in a test module.

- ``app``: settings, a migrated database per test (SQLite or PostgreSQL), SQL against it
- ``html``: ``soup``, ``text``, ``csrf_from``, ``HX``
- ``accounts``: ``sign_up``, ``sign_in``, ``new_browser``, ``instructor``
- ``learning``: the repository's course, ``answer`` and the right or wrong form of a question
- ``lessons``: lesson texts (``GOOD``, ``TREE``...) and folders of them
- ``problems``: broken lessons and their messages
- ``cohort``: the seeded database of the dashboard tests
- ``cli``: the ``curso`` command in a subprocess
- ``server``: ``LiveServer`` (uvicorn on a free port) and helpers that act on it
- ``browser``: Chromium helpers and axe-core
- ``offline``: the service worker made ready, a lesson downloaded, the device's cache read back
- ``markers``: what tests/conftest.py marks browser and slow
- ``seeds``: where the course's source texts are (``CURSO_SEEDS_DIR`` or ../shared/seeds)
- ``tls``: a CA made for the run and a certificate for 127.0.0.1 and localhost (trustme)
- ``tls_proxy``: a small TLS-terminating reverse proxy in front of a live server
- ``coroutines``: ``run``, a coroutine to its end from a test, even after a browser test

Test modules import from here and from nothing else under tests/ (tests/test_layers.py checks).
"""
