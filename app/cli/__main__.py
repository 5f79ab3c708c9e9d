"""``python -m app.cli``: the ``curso`` command (see :mod:`app.cli.main`)."""

from app.cli.main import main

main()
