"""How a workflow ends (usecases.workflows.operation_end): RecordFailure puts Step Functions' error in words
on the phase that was running and on the operation, releases the cluster and tells the subscribers once;
Finish records success, except in a child execution, whose parent finishes the operation."""

from __future__ import annotations

import json

import pytest
from launchpod.adapters.store.operations import DynamoOperations
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus
from launchpod.contracts.workflows import WorkflowFailure, WorkflowInput
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane
from launchpod.runtime import wiring
from launchpod.usecases.workflows import operation_end


class Told:
    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, cluster: str, kind: str, key: str, subject: str, text: str, path: str) -> bool:
        self.calls.append((cluster, kind, key, subject, text, path))
        return True


@pytest.fixture
def store(tables, monkeypatch):
    store = DynamoOperations(tables["operations"], tables["clusters"], tables["runners"])
    monkeypatch.setattr(wiring, "operations", lambda: store)
    return store


@pytest.fixture
def operation(store):
    plan = control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN))
    store.create_holding_cluster(operation, "k")
    store.phase_started(operation.id, "Network", fresh=True)
    return operation


def _failure(operation, error: dict[str, str], attempt: int = 1) -> WorkflowFailure:
    return WorkflowFailure.model_validate({**ops.workflow_document(operation), "attempt": attempt, "error": error})


def test_a_lambda_error_is_recorded_in_its_own_words_and_the_cluster_is_released(store, operation):
    cause = json.dumps({"errorMessage": "VPC vpc-1 does not exist in this region.", "errorType": "PermanentError"})
    told = Told()
    recorded = operation_end.record_failure(_failure(operation, {"Error": "PermanentError", "Cause": cause}), told)
    assert recorded.answer == {"operationId": operation.id, "status": "FAILED", "error": "PermanentError"}
    found = store.get(operation.id)
    assert (found.status, found.message) == ("FAILED", "VPC vpc-1 does not exist in this region.")
    assert found.phases[0].status == "FAILED" and store.holder("c1") is None
    assert [(c[1], c[3]) for c in told.calls] == [("operation-failed", "create-control-plane failed on c1")]


def test_a_timeout_without_a_cause_says_the_step_ran_out_of_time(store, operation):
    recorded = operation_end.record_failure(_failure(operation, {"Error": "States.Timeout"}), Told())
    assert (recorded.error, recorded.cause) == ("States.Timeout", "The step took longer than its time limit.")
    assert store.get(operation.id).message == "The step took longer than its time limit."


def test_a_replaced_attempts_failure_leaves_the_retry_alone(store, operation):
    told = Told()
    recorded = operation_end.record_failure(_failure(operation, {"Error": "PermanentError"}, attempt=2), told)
    assert recorded.answer["staleAttempt"] == 2 and recorded.error is None and told.calls == []
    assert store.get(operation.id).status != "FAILED" and store.holder("c1") == operation.id


def test_finish_records_success_but_a_child_leaves_it_to_its_parent(store, operation):
    child = WorkflowInput.model_validate({**ops.workflow_document(operation), "child": True})
    assert operation_end.finish(child)["status"] == "CHILD_SUCCEEDED"
    assert store.holder("c1") == operation.id
    done = operation_end.finish(WorkflowInput.model_validate(ops.workflow_document(operation)))
    assert done == {"operationId": operation.id, "status": "SUCCEEDED"}
    assert store.get(operation.id).status == "SUCCEEDED" and store.holder("c1") is None


def test_a_failure_that_loses_the_race_to_a_cancel_keeps_the_cancel_and_tells_nobody(store, operation, monkeypatch):
    """RecordFailure read the operation RUNNING; a cancel ended it before RecordFailure's write."""
    told, read = Told(), store.get
    reads = iter([True])

    def cancelled_after_the_read(operation_id: str):
        found = read(operation_id)
        if next(reads, False):
            store.finish(operation_id, OperationStatus.CANCELLED, error=None, message="Cancelled by alice")
        return found

    monkeypatch.setattr(store, "get", cancelled_after_the_read)
    recorded = operation_end.record_failure(_failure(operation, {"Error": "PermanentError"}), told)
    assert recorded.error is None and told.calls == []
    found = read(operation.id)
    assert (found.status, found.message) == ("CANCELLED", "Cancelled by alice")
