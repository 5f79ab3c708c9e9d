"""The routers, one per feature. A router never imports another (the import contract in
``pyproject.toml`` covers every module here); what two of them share lives in the kit one
floor up, :mod:`app.web` (``deps``, ``forms``, ``lookups``, ``templating``, ``urls``...).
"""

from __future__ import annotations

from fastapi import FastAPI


def include_all(app: FastAPI) -> None:
    """Add every router to ``app``, in the order routes are matched."""
    from app.web.routes import (
        account,
        api,
        calculators,
        classes,
        editor,
        glossary,
        health,
        instructor,
        lessons,
        lti,
        mydata,
        pools,
        preferences,
        progress,
        quizzes,
        review,
        search,
        sitemap,
        trees,
    )

    # The editor comes before the instructor pages: its /instrutor/licoes/nova is not a lesson slug.
    for module in (
        lessons,
        quizzes,
        pools,
        trees,
        search,
        glossary,
        sitemap,
        preferences,
        health,
        account,
        editor,
        classes,
        instructor,
        review,
        calculators,
        lti,
    ):
        app.include_router(module.router, include_in_schema=False)
    for module in (api, progress, mydata):  # their HTML routes opt out of the schema one by one
        app.include_router(module.router)
