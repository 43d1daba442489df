"""The phase decorator: an execution left over from an earlier attempt records nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from launchpod.adapters.store.operations import DynamoOperations
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.common import Role
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

RAN: list[int] = []


@phase("ClusterRole")
def cluster_role(doc) -> PhaseResult:
    RAN.append(doc.attempt)
    return PhaseResult(outputs={"roleArn": "arn:aws:iam::123456789012:role/r"}, message="made")


@pytest.fixture
def store(tables, monkeypatch):
    store = DynamoOperations(tables["operations"], tables["clusters"], tables["runners"])
    monkeypatch.setattr(wiring, "operations", lambda: store)
    RAN.clear()
    return store


def _document(operation, attempt: int) -> dict:
    return {**ops.workflow_document(operation), "attempt": attempt}


def test_a_stale_attempt_stops_before_it_touches_anything(store, lambda_context):
    plan = control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN)).model_copy(update={"attempt": 2})
    store.create_holding_cluster(operation, "k")
    with pytest.raises(PermanentError, match="attempt 2"):
        cluster_role(_document(operation, 1), lambda_context)
    assert RAN == [] and store.get(operation.id).phases[1].status == "PENDING"
    cluster_role(_document(operation, 2), lambda_context)
    assert RAN == [2] and store.get(operation.id).phases[1].status == "SUCCEEDED"


def test_a_retry_waits_for_the_cancelled_attempts_invocation_of_the_phase(store, lambda_context):
    """Step Functions lets a running function finish after StopExecution: the retry's run of the phase
    waits (RetryableError, the Task's Retry) until that invocation returns, then runs."""
    plan = control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN)).model_copy(update={"attempt": 2})
    store.create_holding_cluster(operation, "k")
    assert store.hold_phase(operation.id, "ClusterRole", 1, ops.now() + timedelta(minutes=5)) is None
    with pytest.raises(RetryableError, match="cancelled attempt's run of ClusterRole"):
        cluster_role(_document(operation, 2), lambda_context)
    record = store.get(operation.id).phases[1]
    assert RAN == [] and "Waiting for the cancelled attempt" in record.message
    store.let_go(operation.id, "ClusterRole", 1)  # the cancelled attempt's invocation returns
    cluster_role(_document(operation, 2), lambda_context)
    assert RAN == [2] and store.get(operation.id).phases[1].status == "SUCCEEDED"


def test_an_invocation_past_its_timeout_holds_the_phase_no_longer(store, lambda_context):
    plan = control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN)).model_copy(update={"attempt": 2})
    store.create_holding_cluster(operation, "k")
    store.hold_phase(operation.id, "ClusterRole", 1, ops.now() - timedelta(seconds=1))  # Lambda ended it
    cluster_role(_document(operation, 2), lambda_context)
    assert RAN == [2]


def test_the_failure_of_a_replaced_attempt_does_not_end_its_retry(store, lambda_context):
    """A branch of attempt 1 that Step Functions let finish reaches RecordFailure after the retry began: the
    retry's operation stays as it is, and keeps the cluster."""
    from launchpod.entrypoints.workflows import record_failure

    plan = control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN)).model_copy(update={"attempt": 2})
    store.create_holding_cluster(operation, "k")
    cluster_role(_document(operation, 2), lambda_context)
    late = {**_document(operation, 1), "error": {"Error": "PermanentError", "Cause": "attempt 1's branch"}}
    record_failure.handler(late, lambda_context)
    assert store.get(operation.id).status not in ("FAILED", "SUCCEEDED") and store.holder("c1") == operation.id
    record_failure.handler({**late, "attempt": 2}, lambda_context)
    assert store.get(operation.id).status == "FAILED" and store.holder("c1") is None


WAITING: list[str] = []


@phase("ClusterRole")
def waiting_role(doc) -> PhaseResult:
    return PhaseResult(ready=False, message=WAITING[-1])


def test_a_poll_that_has_nothing_new_to_say_leaves_the_record_as_it_was(store, lambda_context):
    """Each write of an operation is a stream record and a push to its subscribers: a wait phase polled again
    with the same words writes nothing; new words are written."""
    plan = control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN))
    store.create_holding_cluster(operation, "k")
    WAITING[:] = ["Waiting for the role to be usable"]
    waiting_role(_document(operation, 1), lambda_context)
    first = store.get(operation.id)
    assert first.phases[1].status == "RUNNING" and first.phases[1].message == WAITING[-1]

    waiting_role(_document(operation, 1), lambda_context)
    assert store.get(operation.id) == first  # not even updatedAt

    WAITING.append("The role is visible in us-east-1")
    waiting_role(_document(operation, 1), lambda_context)
    again = store.get(operation.id)
    assert again.phases[1].message == WAITING[-1] and again.updatedAt > first.updatedAt


def test_a_poll_of_an_operation_that_has_ended_is_refused(store, lambda_context):
    plan = control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN))
    store.create_holding_cluster(operation, "k")
    WAITING[:] = ["Waiting for the role to be usable"]
    waiting_role(_document(operation, 1), lambda_context)
    store.finish(operation.id, ops.OperationStatus.CANCELLED, error=None, message="Cancelled by alice")
    with pytest.raises(PermanentError, match="cancelled or has finished"):
        waiting_role(_document(operation, 1), lambda_context)


def test_holding_a_phase_writes_nothing_on_the_operation_its_subscribers_are_pushed(store, tables, lambda_context):
    """Every write to the operation's item is a record on the operations stream, pushed to the WebSocket
    subscribers: a phase's hold and let-go change nothing they see, so they are kept in the runners table."""
    import boto3

    plan = control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN))
    store.create_holding_cluster(operation, "k")
    operations = boto3.resource("dynamodb", region_name="us-east-1").Table(tables["operations"])
    before = operations.get_item(Key={"id": operation.id})["Item"]
    assert store.hold_phase(operation.id, "ClusterRole", 1, ops.now() + timedelta(minutes=5)) is None
    runners = boto3.resource("dynamodb", region_name="us-east-1").Table(tables["runners"])
    assert runners.get_item(Key={"id": f"{operation.id}#ClusterRole"})["Item"]["attempt"] == 1
    store.let_go(operation.id, "ClusterRole", 1)
    assert "Item" not in runners.get_item(Key={"id": f"{operation.id}#ClusterRole"})
    assert operations.get_item(Key={"id": operation.id})["Item"] == before


def test_a_refused_hold_answers_when_the_earlier_attempts_hold_lapses(store):
    """A retry's hold refused by the earlier attempt's says until when that one holds the phase, from the
    failed write itself; the same attempt holds again (a Task's retry), and a let-go frees the phase."""
    plan = control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN))
    store.create_holding_cluster(operation, "k")
    until = ops.now() + timedelta(minutes=5)
    assert store.hold_phase(operation.id, "ClusterRole", 1, until) is None
    assert store.hold_phase(operation.id, "ClusterRole", 2, ops.now() + timedelta(minutes=9)) == until
    assert store.hold_phase(operation.id, "ClusterRole", 1, until + timedelta(minutes=1)) is None
    store.let_go(operation.id, "ClusterRole", 1)
    assert store.hold_phase(operation.id, "ClusterRole", 2, until) is None
