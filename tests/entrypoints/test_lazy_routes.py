"""The API registers every route at import and imports a route's router module on its first call
(entrypoints/api/lazy_routes.py): a cold start pays for the route it serves, and callers see the same API.

Each check runs in a new interpreter, as a Lambda cold start does: this process has imported every router.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from launchpod.entrypoints.api import lazy_routes

ROOT = Path(__file__).resolve().parents[2]

_COLD = """
import json, sys
from types import SimpleNamespace
from launchpod.entrypoints.api.app import handler
from tests.entrypoints.fakes import rest_event

context = SimpleNamespace(function_name="f", memory_limit_in_mb=128, invoked_function_arn="arn", aws_request_id="1",
                          function_version="1", log_group_name="g", log_stream_name="s")

def routers():
    return sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("launchpod.entrypoints.api.routers."))

UNUSED = ("boto3", "s3transfer", "launchpod.adapters", "launchpod.contracts.catalog_ops", "launchpod.runtime.wiring")
seen = {"import": routers(), "unused": sorted(m for m in sys.modules if m.startswith(UNUSED))}
health = handler(rest_event("GET", "/api/health", None), context)
seen["health"] = [health["statusCode"], routers()]
event = rest_event("POST", "/api/clusters", {"cognito:username": "ana", "cognito:groups": ["admin"]})
event["headers"] = {"Content-Type": "application/json"}
event["body"] = json.dumps({"region": "us-east-1"})
refused = handler(event, context)
seen["create"] = [refused["statusCode"], json.loads(refused["body"]), routers()]
print(json.dumps(seen))
"""


def _cold(probe: str) -> dict:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'functions'}:{ROOT}"}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True, cwd=ROOT)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_committed_route_table_is_what_the_catalog_and_the_routers_declare():
    committed = lazy_routes.TABLE.read_text(encoding="utf-8")
    assert committed == lazy_routes.render(), "run: python -m launchpod.entrypoints.api.lazy_routes"


def test_a_cold_start_imports_only_the_routers_of_the_routes_it_serves_and_validates_as_before():
    seen = _cold(_COLD)
    assert seen["import"] == []
    assert seen["unused"] == [], "the routes' contracts, use cases, adapters and boto3 are imported by the routes"
    assert seen["health"] == [200, ["health"]]
    status, body, loaded = seen["create"]
    # The create route's body model came with its router on this first call, and refuses as it always did.
    assert status == 422, body
    assert body["code"] == "VALIDATION_FAILED"
    assert any(d["field"] == "body.cluster" for d in body["details"]), body
    assert loaded == ["clusters", "health"]
