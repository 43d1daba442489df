"""A workflow phase whose Lambda execution environment dies mid-invocation, right after its change was made
(sandbox.lambda_env.faults): Step Functions retries it (Lambda.Unknown, statemachines/*.asl.json), the re-run
phase finds the change already made, and the operation ends SUCCEEDED with exactly one mutation, counted from
the sandbox's log of mutating AWS calls."""

from __future__ import annotations

import pytest

from tests.sandbox.clusters import ZONES

pytestmark = pytest.mark.e2e

NAME = "e2e-killed-phase"


def test_a_phase_killed_after_its_create_cluster_ends_succeeded_with_one_create(sandbox):
    sandbox.faults(functionFault={"kind": "kill", "function": "ccp-create-cluster"})
    with sandbox.client() as c:
        answer = c.post("/api/clusters", json={"name": NAME, "availabilityZones": ZONES})
    assert answer.status_code == 202

    done = sandbox.wait_operation(answer.json()["operation"]["id"])

    assert done["status"] == "SUCCEEDED", done.get("message")
    assert sandbox.faults()["functionFaults"]["injectedByFunction"] == {"launchpod-ccp-create-cluster:kill": 1}
    with sandbox.client() as c:
        rows = c.get("/api/sandbox/calls", params={"action": "eks:CreateCluster"}).json()["mutations"]
    assert sum(r["count"] for r in rows if r["target"] == NAME) == 1
    assert sandbox.aws("eks").describe_cluster(name=NAME)["cluster"]["status"] == "ACTIVE"
