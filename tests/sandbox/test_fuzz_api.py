"""Schemathesis over every operation of the OpenAPI document, against a sandbox of its own.

Each case goes through the sandbox's gateway to the real API Lambda with an admin token (a viewer's
would stop every mutation at the role check). Every check schemathesis has runs: no server error, only
documented status codes, content types and bodies, 405 with Allow for an undeclared method, 415 for
an undeclared content type, schema-violating bodies refused. One is left out: positive data
acceptance, which treats a schema-valid request refused with 422 as a failure; Launchpod refuses those
when a rule needs AWS to check (a zone not offered, a nextToken it never issued, a confirm that does
not match), and the documented-status and response-schema checks still see each such answer.

The run is derandomized (the same cases every time) so a failure reproduces by running the test
again; schemathesis prints each failing case with a curl command.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from launchpod.entrypoints.api.app import app
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.sandbox.conftest import RunningSandbox, start_sandbox

pytestmark = pytest.mark.e2e

EXAMPLES_PER_OPERATION = 5
schema = schemathesis.openapi.from_dict(json.loads(app.get_openapi_json_schema(title="Launchpod API", version="1")))


@pytest.fixture(scope="module")
def fuzzed() -> Iterator[RunningSandbox]:
    # Its own sandbox: the clusters the fuzzer creates keep their workflows running, away from the
    # sandbox the other end-to-end tests share.
    with start_sandbox() as running:
        yield running


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_as_its_document_says(case: Any, fuzzed: RunningSandbox) -> None:
    case.call_and_validate(
        base_url=fuzzed.url,
        headers=fuzzed.headers("admin"),
        excluded_checks=[positive_data_acceptance],
        timeout=60,
    )
