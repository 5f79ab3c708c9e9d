"""schemathesis against the JSON API's own OpenAPI schema: no 5xx, no response off its schema."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings

from app.main import create_app


def test_every_api_operation_answers_within_its_schema(settings):
    schema = schemathesis.openapi.from_asgi("/api/openapi.json", create_app(settings))
    operations = [result.ok() for result in schema.get_all_operations()]
    paths = {op.path for op in operations}
    assert {"/api/arvores", "/api/arvores/{tree_id}", "/api/progresso"} <= paths, paths
    for operation in operations:

        @given(case=operation.as_strategy())
        @hypothesis_settings(
            max_examples=30, deadline=None, suppress_health_check=list(HealthCheck)
        )
        def check(case):
            case.call_and_validate()

        check()
