"""One list of error codes for REST and MCP: every code either path can answer with is an ErrorCode,
and the API maps each domain error's code to its HTTP status in one table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from launchpod.contracts.errors import ErrorCode, ErrorView
from launchpod.domain import errors as domain_errors
from launchpod.entrypoints.api.errors import STATUS
from pydantic import ValidationError

ROOT = Path(__file__).resolve().parents[2]


def test_an_error_view_takes_only_the_known_codes():
    assert ErrorView(code="VALIDATION_FAILED", message="m").code == ErrorCode.VALIDATION_FAILED
    with pytest.raises(ValidationError):
        ErrorView(code="VALIDATION_ERROR", message="m")  # the MCP gateway's old spelling


def test_every_domain_error_has_a_code_with_an_http_status_and_no_status_of_its_own():
    classes = [c for c in vars(domain_errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    for cls in classes:
        if issubclass(cls, domain_errors.LaunchpodError):
            assert ErrorCode(cls.code) in STATUS, cls
            assert "status" not in vars(cls), f"{cls.__name__} carries an HTTP status; the API maps codes"


def test_no_code_path_spells_an_error_code_outside_the_list():
    # String literals handed to the envelopes as codes, in the API, the MCP gateway and the sandbox gateway.
    # (The sandbox's MLflow server answers with MLflow's own codes through _mlflow_error: not Launchpod's.)
    pattern = re.compile(
        r'(?:code=|envelope\([^,]+,\s*\d{3},\s*|\b_error\(\d{3},\s*|envelope\(\s*\d{3},\s*)"([A-Z_]+)"'
    )
    found = set()
    for folder in ("functions/launchpod", "mcp_gateway", "sandbox"):
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(pattern.findall(path.read_text()))
    assert found, "the pattern no longer finds the codes: update this test with the code"
    assert found <= {c.value for c in ErrorCode}, found - {c.value for c in ErrorCode}
