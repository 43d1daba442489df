"""The operations store's contract: the in-memory fake (tests/fakes/operations.py) and DynamoOperations on the
sandbox's DynamoDB answer each case alike: the one-writer-per-cluster lock, a missing operation, what a
finish and a retry record, and the listing's order and pages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from launchpod.adapters.store.operations import DynamoOperations
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus, OperationView, PhaseStatus
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.usecases.ports import OperationLog

from tests.fakes.operations import Operations

ADMIN = ops.Principal("alice", Role.ADMIN)


@pytest.fixture(params=["fake", "dynamodb"])
def store(request: pytest.FixtureRequest) -> OperationLog:
    if request.param == "fake":
        return Operations()
    tables = request.getfixturevalue("tables")
    return DynamoOperations(tables["operations"], tables["clusters"], tables["runners"])


def _operation(cluster: str = "c1", minutes_ago: int = 0) -> OperationView:
    plan = control_plane.plan(CreateClusterRequest(name=cluster, availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ADMIN)
    created = operation.createdAt - timedelta(minutes=minutes_ago)
    return operation.model_copy(update={"createdAt": created, "updatedAt": created})


def test_an_operation_reads_back_as_it_was_created(store: OperationLog) -> None:
    operation = _operation()
    store.create_holding_cluster(operation, "key-1")
    assert store.get(operation.id) == operation
    assert store.request_key_of(operation.id) == "key-1"
    assert store.execution_of(operation.id) is None


def test_a_second_operation_on_a_held_cluster_is_refused_naming_the_holder(store: OperationLog) -> None:
    first, second = _operation(), _operation()
    store.create_holding_cluster(first, "k1")
    with pytest.raises(Conflict) as refused:
        store.create_holding_cluster(second, "k2")
    assert refused.value.extra["holder"] == first.id
    assert str(refused.value) == f"Cluster c1 is busy with operation {first.id}; wait for it to finish or cancel it."
    with pytest.raises(NotFound):
        store.get(second.id)
    store.create_holding_cluster(_operation("c2"), "k3")  # another cluster is free


@pytest.mark.parametrize("read", ["get", "request_key_of", "execution_of"])
def test_an_unknown_operation_is_not_found(store: OperationLog, read: str) -> None:
    with pytest.raises(NotFound, match="Operation op-unknown does not exist"):
        getattr(store, read)("op-unknown")


def test_the_execution_is_recorded_and_the_operation_stays_pending(store: OperationLog) -> None:
    operation = _operation()
    store.create_holding_cluster(operation, "k")
    assert store.set_execution(operation.id, "arn:aws:states:us-east-1:123456789012:execution:w:x") is True
    assert store.execution_of(operation.id) == "arn:aws:states:us-east-1:123456789012:execution:w:x"
    assert store.get(operation.id).status == OperationStatus.PENDING


def test_finish_records_the_end_and_frees_the_cluster(store: OperationLog) -> None:
    operation = _operation()
    store.create_holding_cluster(operation, "k")
    store.finish(operation.id, OperationStatus.FAILED, error="Throttling", message="slow down")
    ended = store.get(operation.id)
    assert (ended.status, ended.error, ended.message) == (OperationStatus.FAILED, "Throttling", "slow down")
    assert [p.status for p in ended.phases] == [p.status for p in operation.phases]
    assert ended.updatedAt >= operation.updatedAt
    store.create_holding_cluster(_operation(), "k2")


def test_a_cancel_ends_the_phases_not_done(store: OperationLog) -> None:
    operation = _operation()
    store.create_holding_cluster(operation, "k")
    store.finish(operation.id, OperationStatus.CANCELLED, error=None, message="Cancelled by alice")
    cancelled = store.get(operation.id)
    assert cancelled.status == OperationStatus.CANCELLED
    assert {p.status for p in cancelled.phases} == {PhaseStatus.CANCELLED}
    assert all(p.endedAt is None for p in cancelled.phases)  # none had started


def test_the_finish_of_a_replaced_attempt_changes_nothing(store: OperationLog) -> None:
    operation = _operation()
    store.create_holding_cluster(operation, "k")
    store.finish(operation.id, OperationStatus.FAILED, error="x", message="x")
    store.restart(operation.model_copy(update={"attempt": 2}))
    assert store.finish(operation.id, OperationStatus.FAILED, error="late", message="late", attempt=1) is False
    current = store.get(operation.id)
    assert (current.status, current.attempt, current.error) == (OperationStatus.PENDING, 2, None)
    with pytest.raises(Conflict):  # the retry still holds the cluster
        store.create_holding_cluster(_operation(), "k2")


def test_an_operation_ends_once_and_its_first_end_stands(store: OperationLog) -> None:
    """A cancel and its stopped execution's end, or a Finish and a cancel, race to end one operation: the
    first end is what the user reads, and the second writes nothing (not even updatedAt)."""
    operation = _operation()
    store.create_holding_cluster(operation, "k")
    assert store.finish(operation.id, OperationStatus.SUCCEEDED, error=None, message="Done") is True
    ended = store.get(operation.id)
    assert store.finish(operation.id, OperationStatus.CANCELLED, error=None, message="Cancelled by alice") is False
    assert store.finish(operation.id, OperationStatus.FAILED, error="ABORTED", message="late", attempt=1) is False
    assert store.get(operation.id) == ended
    store.create_holding_cluster(_operation(), "k2")  # the cluster stayed free


def test_an_ended_operation_takes_no_execution(store: OperationLog) -> None:
    """Cancelled before its workflow started: the execution is not recorded, so none is started for it."""
    operation = _operation()
    store.create_holding_cluster(operation, "k")
    store.finish(operation.id, OperationStatus.CANCELLED, error=None, message="Cancelled by alice")
    cancelled = store.get(operation.id)
    assert store.set_execution(operation.id, "arn:aws:states:us-east-1:123456789012:execution:w:x") is False
    assert store.execution_of(operation.id) is None
    assert store.get(operation.id) == cancelled


def test_a_restart_takes_the_cluster_again_and_clears_the_last_error(store: OperationLog) -> None:
    operation = _operation()
    store.create_holding_cluster(operation, "k")
    store.finish(operation.id, OperationStatus.FAILED, error="Throttling", message="slow down")
    other = _operation()
    store.create_holding_cluster(other, "k2")
    with pytest.raises(Conflict) as refused:
        store.restart(operation.model_copy(update={"attempt": 2}))
    assert refused.value.extra["holder"] == other.id
    store.finish(other.id, OperationStatus.SUCCEEDED, error=None, message=None)
    store.restart(operation.model_copy(update={"attempt": 2, "status": OperationStatus.PENDING}))
    again = store.get(operation.id)
    assert (again.status, again.attempt, again.error, again.message) == (OperationStatus.PENDING, 2, None, None)
    with pytest.raises(Conflict) as busy:
        store.create_holding_cluster(_operation(), "k3")
    assert busy.value.extra["holder"] == operation.id


def _listed(store: OperationLog) -> list[OperationView]:
    """Four operations on three clusters, created a minute apart (oldest first); the first has failed."""
    made = [_operation("a", 4), _operation("b", 3), _operation("a2", 2), _operation("c", 1)]
    for operation in made:
        store.create_holding_cluster(operation, operation.id)
    store.finish(made[0].id, OperationStatus.FAILED, error="x", message="x")
    return made


def test_the_listing_is_newest_first_and_filtered_by_cluster_and_status(store: OperationLog) -> None:
    made = _listed(store)
    newest_first = [o.id for o in reversed(made)]
    assert [o.id for o in store.list(target=None, status=None, limit=10)] == newest_first
    assert [o.id for o in store.list(target="a", status=None, limit=10)] == [made[0].id]
    assert [o.id for o in store.list(target=None, status="FAILED", limit=10)] == [made[0].id]
    assert [o.id for o in store.list(target=None, status="PENDING", limit=10)] == newest_first[:3]
    assert store.list(target="a", status="PENDING", limit=10) == []


def test_pages_continue_where_the_last_ended_and_end_without_a_cursor(store: OperationLog) -> None:
    made = _listed(store)
    seen: list[str] = []
    cursor: str | None = None
    for _ in range(len(made) + 1):
        page, cursor = store.page(target=None, status=None, limit=3, cursor=cursor)
        seen += [o.id for o in page]
        if cursor is None:
            break
    assert seen == [o.id for o in reversed(made)]


def test_a_cursor_given_with_other_filters_is_refused(store: OperationLog) -> None:
    _listed(store)
    _, cursor = store.page(target=None, status=None, limit=1)
    assert cursor is not None
    with pytest.raises(InvalidInput, match="nextToken is not one this listing returned"):
        store.page(target=None, status="FAILED", limit=1, cursor=cursor)
    with pytest.raises(InvalidInput):
        store.page(target=None, status=None, limit=1, cursor="not-a-cursor")
