"""Clusters as a caller reads, imports and deletes them: status from EKS and HyperPod, 404 for a name nobody
knows, the name typed to delete, and NOOP for a cluster already known."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import pytest
from launchpod.contracts.clusters import DeleteClusterInput, ImportClusterRequest
from launchpod.contracts.common import Role
from launchpod.domain import operations as ops
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import InvalidInput, NotFound
from launchpod.usecases import clusters

from tests.fakes.clusters import Clusters
from tests.fakes.eks import Eks
from tests.fakes.mlflow import Servers
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker

ADMIN = ops.Principal("alice", Role.ADMIN)
ACTIVE = {"name": "train", "status": "ACTIVE", "version": "1.32", "tags": {"launchpod:cluster": "train"}}


def _ports(records: dict[str, dict[str, Any]], eks: dict[str, dict[str, Any]]) -> clusters.ClusterPorts:
    operations = Operations()  # one table with the registry: the locks show on the records
    return clusters.ClusterPorts(
        region="us-east-1",
        clusters=Clusters(records, operations=operations),
        operations=operations,
        workflows=Workflows(),
        eks=Eks(eks),
        sagemaker=SageMaker({}),
        mlflow=Servers({}),
    )


def test_a_cluster_only_eks_knows_is_read_with_its_eks_status() -> None:
    view = clusters.get_cluster("train", ports=_ports({}, {"train": ACTIVE}))
    assert view.eks.status == "ACTIVE"


def test_a_name_nobody_knows_is_404_in_words() -> None:
    with pytest.raises(NotFound) as refused:
        clusters.get_cluster("ghost", ports=_ports({}, {}))
    assert str(refused.value) == "Cluster ghost is not known to Launchpod and EKS has no cluster by that name."


def test_the_list_pages_the_registry_and_reads_each_status() -> None:
    ports = _ports({"a": {}, "b": {}, "train": {}}, {"train": ACTIVE})
    first = clusters.list_clusters(2, None, ports=ports)
    assert [c.name for c in first.items] == ["a", "b"] and first.nextToken
    rest = clusters.list_clusters(2, first.nextToken, ports=ports)
    assert [(c.name, c.eks.status) for c in rest.items] == [("train", "ACTIVE")] and rest.nextToken is None


def test_a_page_reads_its_clusters_from_aws_side_by_side_and_keeps_the_registry_order() -> None:
    names = [f"c{i:02d}" for i in range(25)]
    ports = _ports({n: {} for n in names}, {n: {**ACTIVE, "name": n} for n in names})
    # Each DescribeCluster waits until four are in flight at once: read one after another, the first never returns.
    together = threading.Barrier(4, timeout=30)

    class WaitingEks(Eks):
        def cluster(self, name: str) -> EksCluster | None:
            together.wait()
            return super().cluster(name)

    page = clusters.list_clusters(20, None, ports=replace(ports, eks=WaitingEks(ports.eks.clusters)))
    assert [(c.name, c.eks.status) for c in page.items] == [(n, "ACTIVE") for n in names[:20]]


def test_a_page_describes_only_the_clusters_each_service_lists_and_shows_the_rest_as_gone() -> None:
    hp = {"ClusterName": "train", "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/train"}
    ports = _ports({"gone": {}, "old": {}, "train": {}}, {"train": ACTIVE, "old": {**ACTIVE, "name": "old"}})
    described: list[tuple[str, str]] = []

    class CountingEks(Eks):
        def cluster(self, name: str) -> EksCluster | None:
            described.append(("eks", name))
            return super().cluster(name)

    class CountingSageMaker(SageMaker):
        def hyperpod_cluster(self, name: str) -> HyperPodCluster | None:
            described.append(("sagemaker", name))
            return super().hyperpod_cluster(name)

    eks, sagemaker = CountingEks(ports.eks.clusters), CountingSageMaker({"train": {**hp, "ClusterStatus": "InService"}})
    page = clusters.list_clusters(10, None, ports=replace(ports, eks=eks, sagemaker=sagemaker))
    assert [(c.name, c.eks.status, c.hyperpod.status) for c in page.items] == [
        ("gone", "NOT_FOUND", "NOT_CREATED"),
        ("old", "ACTIVE", "NOT_CREATED"),
        ("train", "ACTIVE", "InService"),
    ]
    assert sorted(described) == [("eks", "old"), ("eks", "train"), ("sagemaker", "train")]


def test_delete_needs_the_name_typed_and_starts_nothing_without_it() -> None:
    ports = _ports({"train": {}}, {"train": ACTIVE})
    with pytest.raises(InvalidInput):
        clusters.delete_cluster(DeleteClusterInput(name="train", confirm="tra"), ADMIN, ports=ports)
    assert ports.workflows.started == []  # type: ignore[attr-defined]


def test_delete_plans_each_teardown_phase_and_starts_delete_cluster() -> None:
    ports = _ports({"train": {}}, {"train": ACTIVE})
    proposal = clusters.delete_cluster(DeleteClusterInput(name="train", confirm="train"), ADMIN, ports=ports)
    phases = [s.phase for s in proposal.plan.steps]
    # EKS exists, HyperPod and a tracking server do not: no step to delete them
    assert phases == [
        "DeleteLoadBalancers",
        "DeleteControlPlane",
        "DeleteIdentity",
        "DeleteNetwork",
        "DeleteScripts",
        "Deregister",
    ]
    assert proposal.plan.steps[1].target == "EKS cluster train (ACTIVE)"
    assert proposal.start().kind == "delete-cluster"


def test_deleting_a_name_nobody_knows_is_404() -> None:
    with pytest.raises(NotFound):
        clusters.delete_cluster(DeleteClusterInput(name="ghost", confirm="ghost"), ADMIN, ports=_ports({}, {}))


def test_importing_a_cluster_launchpod_knows_is_a_noop_in_its_words() -> None:
    proposal = clusters.import_cluster(ImportClusterRequest(name="train"), ADMIN, ports=_ports({"train": {}}, {}))
    assert proposal.plan.empty
    assert proposal.noop == "Cluster train is already known to Launchpod; no changes."


def test_importing_an_eks_cluster_plans_the_import_phases() -> None:
    ports = _ports({}, {"train": {**ACTIVE, "tags": {}, "accessConfig": {"authenticationMode": "API_AND_CONFIG_MAP"}}})
    proposal = clusters.import_cluster(ImportClusterRequest(name="train"), ADMIN, ports=ports)
    assert proposal.plan.steps and proposal.plan.steps[0].reason == "Launchpod does not know train"
    assert proposal.start().kind == "import-cluster"
