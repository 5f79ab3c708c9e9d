"""The routers, one per feature. A router never imports another (the import contract in
``pyproject.toml`` covers every module here); what two of them share lives in the kit one
floor up, :mod:`app.web` (``deps``, ``forms``, ``lookups``, ``templating``, ``urls``...).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.routing import Route

# Matched first, the busiest first (route names): a request is matched against the app's one
# route list in order, so the lesson, the answer and the place cost a few regex matches each.
HOT = (
    "lesson",
    "answer",
    "place",
    "tree_widget",
    "tree_step",
    "search",
    "search_listbox",
    "progress_api",
    "review_answer",
    "hint",
    "home",
)


def include_all(app: FastAPI) -> None:
    """Put every router's routes in the app's own route list: :data:`HOT` first (before the
    mounts), then the others in the routers' order below.

    Not ``include_router``: FastAPI keeps an included router as a wrapper that scans its
    routes to match a request and scans them again to handle it (``POST /progresso/lugar``
    tried 74 route matches behind 17 routers). Each route is declared with its whole path and
    dependencies (an ``APIRouter``'s prefix and dependencies are in its routes already), and
    is added again here so that it resolves the app's ``dependency_overrides``. The busiest
    POSTs (the answer, the place) are plain Starlette routes, added as they are.
    """
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
        offline,
        pools,
        preferences,
        progress,
        quizzes,
        review,
        search,
        sitemap,
        trees,
    )

    # The editor comes before the instructor pages: its /instrutor/licoes/nova is not a lesson
    # slug. The routers of the last three opt their HTML routes out of the schema one by one.
    pages = [lessons, quizzes, pools, trees, search, glossary, sitemap, preferences, health]
    pages += [account]
    pages += [editor, classes, instructor, review, calculators, lti, offline]
    ordered = [(route, False) for module in pages for route in module.router.routes]
    ordered += [
        (route, True) for module in (api, progress, mydata) for route in module.router.routes
    ]
    rank = {name: n for n, name in enumerate(HOT)}
    ordered.sort(key=lambda pair: rank.get(pair[0].name, len(HOT)))  # stable: the rest keep order
    before = len(app.router.routes)  # the schema's route and the mounts
    for route, in_schema in ordered:
        if isinstance(route, APIRoute):
            _add(app, route, in_schema)
        else:  # a plain Starlette endpoint (the answer, the place): no dependency to resolve
            assert isinstance(route, Route), route
            app.router.routes.append(route)
    table = app.router.routes
    hot = [route for route in table[before:] if getattr(route, "name", "") in rank]
    first = {id(route) for route in hot}
    table[:] = [*hot, *(route for route in table if id(route) not in first)]


def _add(app: FastAPI, route: APIRoute, in_schema: bool) -> None:
    """``route`` again on ``app``'s router, every setting kept."""
    app.router.add_api_route(
        route.path,
        route.endpoint,
        response_model=route.response_model,
        status_code=route.status_code,
        tags=route.tags,
        dependencies=route.dependencies,
        summary=route.summary,
        description=route.description,
        response_description=route.response_description,
        responses=route.responses,
        deprecated=route.deprecated,
        methods=route.methods,
        operation_id=route.operation_id,
        response_model_include=route.response_model_include,
        response_model_exclude=route.response_model_exclude,
        response_model_by_alias=route.response_model_by_alias,
        response_model_exclude_unset=route.response_model_exclude_unset,
        response_model_exclude_defaults=route.response_model_exclude_defaults,
        response_model_exclude_none=route.response_model_exclude_none,
        include_in_schema=route.include_in_schema and in_schema,
        response_class=route.response_class,
        name=route.name,
        route_class_override=type(route),
        callbacks=route.callbacks,
        openapi_extra=route.openapi_extra,
        generate_unique_id_function=route.generate_unique_id_function,
        strict_content_type=route.strict_content_type,
        max_body_size=route.max_body_size,
        form_limits=route.form_limits,
    )
