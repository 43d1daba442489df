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
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import InvalidInput
from launchpod.domain.operations import OperationStore
from launchpod.usecases.ports import ClusterRegistry

from tests.fakes.clusters import Clusters
from tests.fakes.operations import Operations


@pytest.fixture(params=["fake", "dynamodb"])
def stores(request: pytest.FixtureRequest) -> tuple[ClusterRegistry, OperationStore]:
    """The registry, and the operations store whose locks share its table on DynamoDB."""
    if request.param == "fake":
        operations = Operations()
        return Clusters(operations=operations), operations
    tables = request.getfixturevalue("tables")
    return DynamoClusters(tables["clusters"]), DynamoOperations(tables["operations"], tables["clusters"])


def test_a_name_nobody_registered_reads_as_none(stores: tuple[ClusterRegistry, OperationStore]) -> None:
    assert stores[0].get("ghost") is None


def test_a_registered_cluster_reads_back_with_its_facts(stores: tuple[ClusterRegistry, OperationStore]) -> None:
    registry = stores[0]
    registry.register("train", source="created", region="us-east-1", hyperpodName="train-hp", nodes=4)
    record = registry.get("train")
    assert record is not None
    assert {k: record[k] for k in ("name", "source", "region", "hyperpodName", "nodes")} == {
        "name": "train",
        "source": "created",
        "region": "us-east-1",
        "hyperpodName": "train-hp",
        "nodes": 4,
    }
    assert record["registeredAt"]


def test_registering_again_rewrites_the_facts_and_keeps_the_first_time(
    stores: tuple[ClusterRegistry, OperationStore],
) -> None:
    registry = stores[0]
    registry.register("train", source="imported", region="us-east-1", hyperpodName="old")
    first = registry.get("train")
    registry.register("train", source="created", region="us-east-1", hyperpodName="new")
    again = registry.get("train")
    assert first is not None and again is not None
    assert (again["source"], again["hyperpodName"]) == ("created", "new")
    assert again["registeredAt"] == first["registeredAt"]


def test_the_listing_is_by_name_a_page_at_a_time(stores: tuple[ClusterRegistry, OperationStore]) -> None:
    registry = stores[0]
    for name in ("train", "alpha", "infer", "beta", "gamma"):
        registry.register(name, source="created", region="us-east-1")
    seen: list[str] = []
    cursor: str | None = None
    for _ in range(4):
        page, cursor = registry.page(limit=2, cursor=cursor)
        assert len(page) <= 2
        seen += [c["name"] for c in page]
        if cursor is None:
            break
    assert seen == ["alpha", "beta", "gamma", "infer", "train"]
    with pytest.raises(InvalidInput):
        registry.page(limit=2, cursor="not-a-cursor")


def test_a_cluster_only_locked_by_an_operation_is_not_registered(
    stores: tuple[ClusterRegistry, OperationStore],
) -> None:
    """The operations store takes a lock on a name before anything registers it (a create's first step)."""
    registry, operations = stores
    plan = control_plane.plan(CreateClusterRequest(name="fresh", availabilityZones=["us-east-1a", "us-east-1b"]))
    operations.create_holding_cluster(ops.new_operation(plan, ops.Principal("alice", Role.ADMIN)), "k")
    assert registry.get("fresh") is None
    assert registry.page(limit=10) == ([], None)


def test_a_registered_cluster_an_operation_holds_reads_with_its_holder(
    stores: tuple[ClusterRegistry, OperationStore],
) -> None:
    """What the create and delete use cases read to tell a settled cluster from one still being worked on."""
    registry, operations = stores
    registry.register("train", source="created", region="us-east-1")
    plan = control_plane.plan(CreateClusterRequest(name="train", availabilityZones=["us-east-1a", "us-east-1b"]))
    operation = ops.new_operation(plan, ops.Principal("alice", Role.ADMIN))
    operations.create_holding_cluster(operation, "k")
    assert (registry.get("train") or {}).get("lockedBy") == operation.id
    operations.finish(operation.id, OperationStatus.SUCCEEDED, error=None, message=None)
    assert "lockedBy" not in (registry.get("train") or {})
