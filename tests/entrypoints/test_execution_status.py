"""An execution that ends outside the workflow's own Finish/RecordFailure still ends its operation."""

from __future__ import annotations

from launchpod.adapters.store.operations import DynamoOperations
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.common import Role
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane
from launchpod.entrypoints.events import execution_status
from launchpod.usecases.events import execution_status as ending


def _event(name: str, status: str) -> dict:
    return {
        "version": "0",
        "id": "e",
        "detail-type": "Step Functions Execution Status Change",
        "source": "aws.states",
        "account": "123456789012",
        "time": "2026-11-30T00:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": {
            "name": name,
            "status": status,
            "error": "States.Timeout",
            "cause": "took too long",
            "executionArn": f"arn:aws:states:us-east-1:123456789012:execution:m:{name}",
        },
    }


def test_execution_names_map_back_to_their_operation():
    assert ending.operation_id_of("op-01abcdefgh12345678") == "op-01abcdefgh12345678"
    assert ending.operation_id_of("op-01abcdefgh12345678-r2") == "op-01abcdefgh12345678"


def test_a_timed_out_execution_fails_its_operation_and_frees_the_cluster(lambda_context, tables, monkeypatch):
    from launchpod.runtime import wiring

    store = DynamoOperations(tables["operations"], tables["clusters"], tables["runners"])
    monkeypatch.setattr(wiring, "operations", lambda: store)
    plan = control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    op = ops.new_operation(plan, ops.Principal("a", Role.ADMIN))
    store.create_holding_cluster(op, "k")

    # the execution of another attempt than the operation's own changes nothing
    assert execution_status.handler(_event(f"{op.id}-r1", "TIMED_OUT"), lambda_context) == {"changed": False}
    result = execution_status.handler(_event(op.id, "TIMED_OUT"), lambda_context)

    assert result == {"changed": True, "operationId": op.id, "status": "FAILED"}
    view = store.get(op.id)
    assert view.status == "FAILED" and "timed out: took too long" in (view.message or "")
    assert store.holder("c1") is None
    assert execution_status.handler(_event(op.id, "FAILED"), lambda_context) == {"changed": False}
