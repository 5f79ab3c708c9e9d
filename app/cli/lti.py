"""``curso lti``: register an LMS (LTI 1.3 platform), rotate the tool's key, send queued scores."""

from __future__ import annotations

from typing import Annotated

import typer
from sqlmodel import Session

from app.i18n import gettext
from app.platform.db import make_engine
from app.platform.settings import load_settings

lti_cli = typer.Typer(
    help=gettext("The course as an LTI 1.3 tool (Moodle, Canvas...)."), no_args_is_help=True
)


def _engine():
    return make_engine(load_settings().resolved_database_url())


@lti_cli.command(help=gettext("Registers an LMS (an LTI 1.3 platform), or updates its URLs."))
def registrar(
    issuer: Annotated[str, typer.Option("--issuer", help=gettext("The platform's issuer (iss)."))],
    client_id: Annotated[
        str, typer.Option("--client-id", help=gettext("The tool's client id on the platform."))
    ],
    deployment_id: Annotated[
        list[str],
        typer.Option("--deployment-id", help=gettext("A deployment id (repeat for several).")),
    ],
    auth_url: Annotated[
        str, typer.Option("--auth-url", help=gettext("The platform's authentication URL."))
    ],
    token_url: Annotated[
        str, typer.Option("--token-url", help=gettext("The platform's access token URL."))
    ],
    jwks_url: Annotated[
        str, typer.Option("--jwks-url", help=gettext("The platform's public keyset URL."))
    ],
) -> None:
    """Register a platform (or update it, adding deployments), confirmed: whoever runs the
    server's commands needs no admin to confirm it (the web form's platforms wait for one)."""
    from app.lti.tool import PlatformRefused, register_platform

    with Session(_engine()) as db:
        try:
            _platform, new = register_platform(
                db, issuer, client_id, deployment_id, auth_url, token_url, jwks_url, confirmed=True
            )
        except PlatformRefused as refused:
            typer.echo(f"--{refused.field.replace('_', '-')}: {refused}", err=True)
            raise typer.Exit(1) from None
    done = (
        gettext("Platform registered: %(issuer)s")
        if new
        else gettext("Platform updated: %(issuer)s")
    )
    typer.echo(done % {"issuer": issuer})


@lti_cli.command(
    help=gettext("Makes a new key for the tool; the previous one stays in the JWKS for two days.")
)
def chaves() -> None:
    """Rotate the tool's signing key."""
    from app.lti.tool import rotate_key

    with Session(_engine()) as db:
        key = rotate_key(db)
    typer.echo(gettext("New key: %(kid)s") % {"kid": key.kid})


@lti_cli.command(help=gettext("Sends the queued scores to the LMS gradebooks now."))
def enviar(
    todos: Annotated[
        bool,
        typer.Option("--todos", help=gettext("Also the ones waiting for their next try.")),
    ] = False,
) -> None:
    """Send the queued scores that are due (every unsent one with ``--todos``)."""
    from app.lti.sender import send_due

    with Session(_engine()) as db:
        sent, failed = send_due(db, everything=todos)
    typer.echo(
        gettext("Scores sent: %(sent)s; failed: %(failed)s.") % {"sent": sent, "failed": failed}
    )
    if failed:
        raise typer.Exit(1)
