"""Schemathesis over every operation of the OpenAPI document, against a sandbox of its own.

Each case goes through the sandbox's gateway to the real API Lambda with an admin token (a viewer's
would stop every mutation at the role check). Every check schemathesis has runs: no server error, only
documented status codes, content types and bodies, 405 with Allow for an undeclared method, 415 for
an undeclared content type, schema-violating bodies refused, and schema-valid requests accepted
(positive data acceptance). A schema-valid request may still be refused for what the document cannot
state (a zone not offered, a nextToken never issued, a confirm that does not match the path): exactly the
refusals launchpod.contracts.refusals lists, each with its rule, status and code, are accepted; any other
422 (or 400) to a schema-valid request fails, as it means the document says less than the API enforces. A
404 (unknown) or 409 (busy) must carry the code that list gives it.

The run has a fixed seed (FUZZ_SEED overrides it) so a failure reproduces by running the test again;
schemathesis prints each failing case with a curl command, and the run prints its seed and figures.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
import schemathesis.pytest
from hypothesis import HealthCheck, seed, settings
from launchpod.contracts.refusals import BY_STATUS, refusal_of
from launchpod.entrypoints.api.app import app
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.sandbox.conftest import RunningSandbox, start_sandbox

pytestmark = pytest.mark.e2e

EXAMPLES_PER_OPERATION = 5
SEED = int(os.environ.get("FUZZ_SEED", "20261205"))
# The document is read, and each operation's cases made, when the test runs, on the one worker that runs it
# (every pytest-xdist worker collects every module; building 90 operations' tests took each of them seconds).
schema = schemathesis.pytest.from_fixture("document")
figures: Counter[str] = Counter()
by_rule: Counter[str] = Counter()


@pytest.fixture(scope="module")
def document() -> Any:
    return schemathesis.openapi.from_dict(json.loads(app.get_openapi_json_schema(title="Launchpod API", version="1")))


@pytest.fixture(scope="module")
def fuzzed(request: pytest.FixtureRequest) -> Iterator[RunningSandbox]:
    # Its own sandbox: the clusters the fuzzer creates keep their workflows running, away from the
    # sandbox the other end-to-end tests share.
    with start_sandbox() as running:
        yield running
    line = (
        f"schemathesis: seed {SEED}, {figures['cases']} cases over {figures['operations']} operations, "
        f"{figures['listed']} refused as launchpod.contracts.refusals lists ({dict(by_rule) or 'none'}), "
        f"{figures['404']} answered 404 and {figures['409']} 409"
    )
    with request.config.pluginmanager.getplugin("capturemanager").global_and_fixture_disabled():
        print(f"\n{line}")  # past pytest's capture: the seed and the figures belong in the run's output


def listed_refusals_only(ctx: Any, response: Any, case: Any) -> bool | None:
    """positive_data_acceptance, except for a refusal launchpod.contracts.refusals lists: every rule the
    error names is listed, with the status and the code it came with."""
    figures["cases"] += 1
    if case.meta is not None and case.meta.generation.mode.is_positive and response.status_code in BY_STATUS:
        code, _ = BY_STATUS[response.status_code]
        assert response.json().get("code") == code, f"{response.status_code} without code {code}: {response.text}"
        figures[str(response.status_code)] += 1
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        error = response.json()
        rules = [str(d.get("rule")) for d in error.get("details") or []]
        listed = [refusal_of(rule) for rule in rules]
        if not rules or not all(
            r is not None and r.status == response.status_code and r.code == error.get("code") for r in listed
        ):
            raise
        figures["listed"] += 1
        by_rule.update(rules)
        return None


# One test runs every operation as a subtest: the suite's 300 s per test is each operation's budget times 90
# (the whole took 7 minutes at load average 17).
@pytest.mark.timeout(1800)
@schema.parametrize()
@seed(SEED)
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_as_its_document_says(case: Any, fuzzed: RunningSandbox) -> None:
    figures["operations"] += case.operation.label not in _seen
    _seen.add(case.operation.label)
    case.call_and_validate(
        base_url=fuzzed.url,
        headers=fuzzed.headers("admin"),
        excluded_checks=[positive_data_acceptance],
        additional_checks=[listed_refusals_only],
        timeout=60,
    )


_seen: set[str] = set()
