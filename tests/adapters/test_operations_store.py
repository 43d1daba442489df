"""The operations table on DynamoDB (moto): one writer per cluster, phase records, release on finish."""

from __future__ import annotations

import pytest
from launchpod.adapters.store.operations import DynamoOperations
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import Conflict

ADMIN = ops.Principal("alice", Role.ADMIN)


def _operation(name: str = "c1") -> ops.WorkflowPlan:
    plan = control_plane.plan(CreateClusterRequest(name=name, availabilityZones=["us-east-1a", "us-east-1b"]))
    return ops.new_operation(plan, ADMIN)


@pytest.fixture
def store(tables) -> DynamoOperations:
    return DynamoOperations(tables["operations"], tables["clusters"], tables["runners"])


@pytest.fixture
def op(store: DynamoOperations) -> ops.WorkflowPlan:
    """An operation on c1 that holds the cluster."""
    op = _operation()
    store.create_holding_cluster(op, "k")
    return op


def test_a_second_operation_on_the_same_cluster_is_refused_naming_the_holder(store):
    first, second = _operation(), _operation()
    store.create_holding_cluster(first, "k1")
    with pytest.raises(Conflict) as caught:
        store.create_holding_cluster(second, "k2")
    assert caught.value.extra["holder"] == first.id
    assert store.holder("c1") == first.id
    store.create_holding_cluster(_operation("c2"), "k3")  # other clusters are free


def test_a_holder_that_finishes_between_the_refusal_and_its_lookup_lets_the_next_one_in(store, monkeypatch):
    """The lock op at the write is gone when its holder is read: nobody holds the cluster any more, so the
    second operation is written (it was refused naming no holder, "busy with operation None")."""
    first, second = _operation(), _operation()
    store.create_holding_cluster(first, "k1")
    read_holder = store.holder

    def finishes_first(cluster: str) -> str | None:
        store.finish(first.id, OperationStatus.SUCCEEDED, error=None, message="done")
        return read_holder(cluster)

    monkeypatch.setattr(store, "holder", finishes_first)
    store.create_holding_cluster(second, "k2")
    assert read_holder("c1") == second.id
    assert store.get(second.id).createdAt >= store.get(first.id).updatedAt  # recorded once the first let go


def test_phases_record_status_times_attempts_and_errors(store, op):
    store.phase_started(op.id, "Network", fresh=True)
    store.phase_succeeded(op.id, "Network", "vpc-1", {"vpcId": "vpc-1"})
    store.phase_started(op.id, "ClusterRole", fresh=True)
    store.phase_failed(op.id, "ClusterRole", error="Throttling", message="Retrying: slow down", terminal=False)
    store.phase_started(op.id, "ClusterRole", fresh=True)
    view = store.get(op.id)
    network, role = view.phases[0], view.phases[1]
    assert (network.status, network.attempts, network.message) == ("SUCCEEDED", 1, "vpc-1")
    assert network.startedAt and network.endedAt and network.startedAt <= network.endedAt
    assert (role.status, role.attempts, role.error) == ("RUNNING", 2, "Throttling")
    assert view.status == OperationStatus.RUNNING
    assert store.outputs(op.id) == {"Network": {"vpcId": "vpc-1"}}


def test_finish_releases_the_cluster_and_cancelled_operations_take_no_more_phase_updates(store, op):
    store.finish(op.id, OperationStatus.CANCELLED, error=None, message="stop")
    assert store.holder("c1") is None
    with pytest.raises(Conflict, match="cancelled or has finished"):
        store.phase_started(op.id, "Network", fresh=True)
    assert store.get(op.id).phases[0].status == "CANCELLED"


def test_a_failed_operation_is_not_turned_back_to_running_by_a_step_still_in_flight(store, op):
    store.phase_started(op.id, "Network", fresh=True)
    store.finish(op.id, OperationStatus.FAILED, error="UnsupportedAvailabilityZoneException", message="zone")
    # A parallel branch's step that was already running when the operation failed:
    with pytest.raises(Conflict):
        store.phase_started(op.id, "ClusterRole", fresh=True, known=[p.name for p in op.phases])
    with pytest.raises(Conflict):
        store.phase_succeeded(op.id, "Network", "vpc-1", {"vpcId": "vpc-1"})
    view = store.get(op.id)
    assert view.status == OperationStatus.FAILED  # so it can be retried
    assert view.phases[1].status == "PENDING"


def test_the_phase_order_a_caller_already_read_saves_a_read_and_lands_on_the_same_phase(store, op):
    known = [p.name for p in op.phases]
    store.phase_started(op.id, "ClusterRole", fresh=True, known=known)
    store.phase_succeeded(op.id, "ClusterRole", "role", {"roleArn": "arn:r"}, known=known)
    role = store.get(op.id).phases[1]
    assert (role.name, role.status, role.message) == ("ClusterRole", "SUCCEEDED", "role")
    assert store.outputs(op.id) == {"ClusterRole": {"roleArn": "arn:r"}}


def test_list_filters_by_cluster_and_status_newest_first(store):
    a, b = _operation("c1"), _operation("c2")
    store.create_holding_cluster(a, "k1")
    store.create_holding_cluster(b, "k2")
    store.finish(a.id, OperationStatus.SUCCEEDED, error=None, message=None)
    assert [o.id for o in store.list(target="c1", status=None, limit=10)] == [a.id]
    assert [o.id for o in store.list(target=None, status="SUCCEEDED", limit=10)] == [a.id]
    assert [o.id for o in store.list(target=None, status=None, limit=10)] == [b.id, a.id]


def test_a_listed_operation_shows_everything_reading_it_shows(store, op):
    store.phase_started(op.id, "Network", fresh=True)
    store.phase_succeeded(op.id, "Network", "vpc-1", {"vpcId": "vpc-1"})
    store.phase_started(op.id, "ClusterRole", fresh=True)
    store.phase_failed(op.id, "ClusterRole", error="AccessDenied", message="iam:CreateRole denied", terminal=True)
    store.finish(op.id, OperationStatus.FAILED, error="AccessDenied", message="iam:CreateRole denied")
    read = store.get(op.id)
    for target, status in ((None, None), ("c1", None), (None, "FAILED")):
        (listed,) = store.list(target=target, status=status, limit=10)
        assert listed == read, (target, status)
    assert read.phases[0].message == "vpc-1" and read.message == "iam:CreateRole denied" and read.plan


def test_a_holder_that_has_ended_but_not_yet_let_go_is_waited_for_not_named_busy(store, monkeypatch):
    """``finish`` writes the end, then removes the lock: a request arriving between the two is let in once the
    lock goes, rather than told the cluster is busy with an operation that is already over."""
    first, second = _operation(), _operation()
    store.create_holding_cluster(first, "k1")
    release = store.release
    monkeypatch.setattr(store, "release", lambda cluster, operation_id: None)
    store.finish(first.id, OperationStatus.SUCCEEDED, error=None, message="done")
    assert store.holder("c1") == first.id  # ended, still holding
    waits: list[float] = []

    def lock_goes_during_the_wait(seconds: float) -> None:
        waits.append(seconds)
        release("c1", first.id)

    monkeypatch.setattr("launchpod.adapters.store.operations.time.sleep", lock_goes_during_the_wait)
    store.create_holding_cluster(second, "k2")
    assert store.holder("c1") == second.id and len(waits) == 1


def test_a_holder_still_running_is_named_at_once(store, monkeypatch):
    first, second = _operation(), _operation()
    store.create_holding_cluster(first, "k1")
    monkeypatch.setattr("launchpod.adapters.store.operations.time.sleep", lambda s: pytest.fail("waited"))
    with pytest.raises(Conflict) as caught:
        store.create_holding_cluster(second, "k2")
    assert caught.value.extra["holder"] == first.id


def test_a_finish_that_stopped_before_its_release_is_healed_by_the_next_finish(store, op):
    """The end was written but the function stopped before it removed the lock (a timeout, a killed
    environment): the next finish (the execution's end event) writes no second end, and frees the cluster."""
    store.table.update_item(
        Key={"id": op.id},
        UpdateExpression="SET #s = :s",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": "SUCCEEDED"},
    )
    assert store.holder("c1") == op.id
    ended = store.get(op.id)
    assert store.finish(op.id, OperationStatus.FAILED, error="TIMED_OUT", message="late") is False
    assert store.get(op.id) == ended
    assert store.holder("c1") is None
    store.create_holding_cluster(_operation(), "k2")
