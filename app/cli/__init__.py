"""The ``curso`` command (Typer): the top floor, imported by nothing in the app.

- :mod:`app.cli.main`: the command and its small subcommands (migrate, backup, check);
- :mod:`app.cli.authoring`: scaffolding lessons and managing instructors;
- :mod:`app.cli.tree`: walking a decision tree in the terminal (``curso arvore``).

May import every other floor; HTTP only where a command serves pages.
"""
