"""The cluster registry's contract: the in-memory fake (tests/fakes/clusters.py) and DynamoClusters on the
sandbox's DynamoDB answer each case alike: an unknown name, a registration and its repeat, the listing's
order and pages, and a lock that is not a registration."""

from __future__ import annotations

import pytest
from launchpod.adapters.store.clusters import DynamoClusters
from launchpod.adapters.store.operations import DynamoOperations
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus
from launchpod.domain import operations as ops
from launchpod.domain import ownership
from launchpod.domain.clusters import control_plane
from launchpod.domain.clusters.cluster_record import ClusterRecord
from launchpod.domain.errors import InvalidInput
from launchpod.domain.operations import OperationStore

from tests.fakes.clusters import Clusters
from tests.fakes.operations import Operations

EKS_ARN = "arn:aws:eks:us-east-1:123456789012:cluster/train"
# The registry port (usecases.ports.ClusterRegistry) and the writes only the workflow phases make through the
# adapter itself (record_requested, record_created), on both sides.
Stores = tuple[DynamoClusters | Clusters, OperationStore]


@pytest.fixture(params=["fake", "dynamodb"])
def stores(request: pytest.FixtureRequest) -> Stores:
    """The registry, and the operations store whose locks share its table on DynamoDB."""
    if request.param == "fake":
        operations = Operations()
        return Clusters(operations=operations), operations
    tables = request.getfixturevalue("tables")
    return DynamoClusters(tables["clusters"]), DynamoOperations(
        tables["operations"], tables["clusters"], tables["runners"]
    )


def test_a_name_nobody_registered_reads_as_none(stores: Stores) -> None:
    assert stores[0].get("ghost") is None


def test_a_registered_cluster_reads_back_as_registered(stores: Stores) -> None:
    registry = stores[0]
    before = ops.now()
    registry.register("train", source="imported", region="us-west-2", eks_arn=EKS_ARN)
    record = registry.get("train")
    assert record is not None and before <= record.registered_at <= ops.now()
    assert record == ClusterRecord("train", "imported", "us-west-2", registered_at=record.registered_at)


def test_a_record_reads_the_tracking_server_and_what_the_create_phases_recorded(
    stores: Stores,
) -> None:
    """What delete-cluster trusts beyond the tags (launchpod.domain.ownership), and the server jobs log to."""
    registry = stores[0]
    registry.register("train", source="created", region="us-east-1", mlflow_tracking_server="lp-train")
    assert registry.record_requested("train", ownership.CREATED_EKS)
    assert registry.record_created("train", ownership.CREATED_EKS, EKS_ARN)
    assert registry.record_requested("train", ownership.CREATED_HYPERPOD)
    record = registry.get("train")
    assert record is not None
    assert (record.mlflow_tracking_server, record.created, record.requested) == (
        "lp-train",
        {ownership.CREATED_EKS: EKS_ARN},
        {ownership.CREATED_EKS, ownership.CREATED_HYPERPOD},
    )
    assert ownership.recorded_as_created(record, ownership.CREATED_EKS, EKS_ARN)
    assert not ownership.may_record_existing(record, ownership.CREATED_EKS)  # already recorded
    assert ownership.may_record_existing(record, ownership.CREATED_HYPERPOD)  # asked for, not recorded yet


def test_what_a_create_phase_made_is_not_recorded_on_a_name_nobody_registered_or_holds(stores: Stores) -> None:
    registry = stores[0]
    assert not registry.record_requested("ghost", ownership.CREATED_EKS)
    assert not registry.record_created("ghost", ownership.CREATED_EKS, EKS_ARN)
    assert registry.get("ghost") is None


def test_registering_again_rewrites_the_facts_and_keeps_the_first_time(
    stores: Stores,
) -> None:
    registry = stores[0]
    registry.register("train", source="imported", region="us-east-1", mlflow_tracking_server="old")
    first = registry.get("train")
    registry.register("train", source="created", region="us-east-1", mlflow_tracking_server="new")
    again = registry.get("train")
    assert first is not None and again is not None
    assert (again.source, again.mlflow_tracking_server) == ("created", "new")
    assert again.registered_at == first.registered_at


def test_the_listing_is_by_name_a_page_at_a_time(stores: Stores) -> None:
    registry = stores[0]
    for name in ("train", "alpha", "infer", "beta", "gamma"):
        registry.register(name, source="created", region="us-east-1")
    seen: list[str] = []
    cursor: str | None = None
    for _ in range(4):
        page, cursor = registry.page(limit=2, cursor=cursor)
        assert len(page) <= 2
        assert all(isinstance(c, ClusterRecord) for c in page)
        seen += [c.name for c in page]
        if cursor is None:
            break
    assert seen == ["alpha", "beta", "gamma", "infer", "train"]
    with pytest.raises(InvalidInput):
        registry.page(limit=2, cursor="not-a-cursor")


def test_a_cluster_only_locked_by_an_operation_is_not_registered(
    stores: Stores,
) -> None:
    """The operations store takes a lock on a name before anything registers it (a create's first step)."""
    registry, operations = stores
    plan = control_plane.plan(CreateClusterRequest(name="fresh", availabilityZones=["us-east-1a", "us-east-1b"]))
    operations.create_holding_cluster(ops.new_operation(plan, ops.Principal("alice", Role.ADMIN)), "k")
    assert registry.get("fresh") is None
    assert registry.page(limit=10) == ([], None)


def test_a_registered_cluster_an_operation_holds_reads_with_its_holder(
    stores: Stores,
) -> None:
    """What the create and delete use cases read to tell a settled cluster from one still being worked on."""
    registry, operations = stores
    registry.register("train", source="created", region="us-east-1")
    plan = control_plane.plan(CreateClusterRequest(name="train", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN))
    operations.create_holding_cluster(operation, "k")
    held = registry.get("train")
    assert held is not None and held.locked_by == operation.id
    operations.finish(operation.id, OperationStatus.SUCCEEDED, error=None, message=None)
    freed = registry.get("train")
    assert freed is not None and freed.locked_by is None
