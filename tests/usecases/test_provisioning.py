"""What the provisioning routes share: an ACTIVE control plane before dependencies or storage, and the zones
of an existing control plane, which the planner compares with the zones a request asks for."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import pytest
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.domain import operations as ops
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.usecases import provisioning
from launchpod.usecases.provisioning import require_active, subnet_zones

from tests.fakes.clusters import Clusters
from tests.fakes.ec2 import Ec2
from tests.fakes.eks import Eks
from tests.fakes.kube import Kube
from tests.fakes.operations import Operations, Workflows

ARN = "arn:aws:eks:us-east-1:123456789012:cluster/train"


def test_the_zones_are_those_of_the_eks_clusters_subnets_in_order() -> None:
    eks = EksCluster("train", ARN, "ACTIVE", subnet_ids=("subnet-b", "subnet-a"))
    ec2 = Ec2(subnets={"subnet-a": "us-east-1a", "subnet-b": "us-east-1b"})
    assert subnet_zones(eks, ec2=ec2) == ["us-east-1b", "us-east-1a"]
    assert ec2.asked == [["subnet-b", "subnet-a"]]


def test_no_control_plane_has_no_zones_and_ec2_is_not_asked() -> None:
    ec2 = Ec2(subnets={"subnet-a": "us-east-1a"})
    assert subnet_zones(None, ec2=ec2) == []
    assert subnet_zones(EksCluster("train", ARN, "ACTIVE"), ec2=ec2) == []
    assert ec2.asked == []


def test_storage_on_a_control_plane_still_creating_is_refused_with_its_state() -> None:
    eks = Eks({"train": {"name": "train", "status": "CREATING"}})
    with pytest.raises(Conflict) as refused:
        require_active("train", "storage needs", eks_clusters=eks)
    assert str(refused.value) == "The EKS control plane of train is CREATING; storage needs an ACTIVE cluster."


def test_dependencies_without_a_control_plane_say_it_is_not_created() -> None:
    with pytest.raises(Conflict) as refused:
        require_active("train", "dependencies need", eks_clusters=Eks({}))
    assert "of train is not created; dependencies need an ACTIVE cluster" in str(refused.value)


def test_an_active_control_plane_passes() -> None:
    require_active("train", "storage needs", eks_clusters=Eks({"train": {"status": "ACTIVE"}}))


# ---------------------------------------------------------------------------- POST /api/clusters, dependencies

ADMIN = ops.Principal("alice", Role.ADMIN)
ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]
ASKED = CreateClusterRequest(name="train", availabilityZones=["us-east-1a", "us-east-1b"])


def _ports(eks: dict[str, dict[str, Any]] | None = None, records: dict[str, dict[str, Any]] | None = None) -> Any:
    operations = Operations()  # one table with the registry: the locks show on the records
    return provisioning.ProvisioningPorts(
        region="us-east-1",
        prefix="launchpod",
        clusters=Clusters(records or {}, operations=operations),
        operations=operations,
        workflows=Workflows(),
        eks=Eks(eks or {}),
        ec2=Ec2(ZONES, subnets={"subnet-a": "us-east-1a", "subnet-b": "us-east-1b"}),
        read=Kube(),
    )


def _active(tags: dict[str, str]) -> dict[str, Any]:
    return {
        "name": "train",
        "status": "ACTIVE",
        "version": "1.32",
        "tags": tags,
        "resourcesVpcConfig": {"subnetIds": ["subnet-a", "subnet-b"], "vpcId": "vpc-1"},
        "logging": {"clusterLogging": []},
    }


def test_a_new_cluster_plans_every_control_plane_phase_and_starts_create_control_plane() -> None:
    ports = _ports()
    proposal = provisioning.create_cluster(ASKED, ADMIN, ports=ports)
    assert [s.action for s in proposal.plan.steps] == ["create"] * len(proposal.plan.steps)
    assert proposal.plan.steps[0].reason == "EKS has no cluster train"
    assert ports.workflows.started == []  # planning starts nothing: a dry run stops here
    operation = proposal.start()
    assert (operation.kind, operation.target) == ("create-control-plane", "train")
    assert [w for w, _, _ in ports.workflows.started] == ["create-control-plane"]
    assert ports.clusters.registered == [("train", "created", "us-east-1")]


def test_a_zone_the_region_lacks_is_refused_naming_the_field_and_the_zones_it_has() -> None:
    asked = CreateClusterRequest(name="train", availabilityZones=["us-east-1a", "us-west-2a"])
    with pytest.raises(InvalidInput) as refused:
        provisioning.create_cluster(asked, ADMIN, ports=_ports())
    assert str(refused.value) == (
        "us-west-2a is not an availability zone in us-east-1; choose from us-east-1a, us-east-1b, us-east-1c."
    )
    assert refused.value.details[0]["field"] == "body.availabilityZones.1"


def test_an_eks_cluster_launchpod_did_not_create_is_refused() -> None:
    ports = _ports({"train": _active({"team": "ml"})})
    with pytest.raises(Conflict) as refused:
        provisioning.create_cluster(ASKED, ADMIN, ports=ports)
    assert "already exists and Launchpod did not create it; choose another name" in str(refused.value)


def test_the_same_request_on_a_settled_cluster_is_a_noop_in_its_words() -> None:
    ports = _ports({"train": _active({"launchpod:cluster": "train"})}, {"train": {"name": "train"}})
    proposal = provisioning.create_cluster(ASKED, ADMIN, ports=ports)
    assert proposal.plan.empty
    assert proposal.noop == "Cluster train already exists as asked; no changes."
    assert ports.ec2.asked == [["subnet-a", "subnet-b"]]


def test_a_control_plane_an_operation_still_holds_is_resumed_not_noop() -> None:
    ports = _ports({"train": _active({"launchpod:cluster": "train"})}, {"train": {"name": "train", "lockedBy": "op"}})
    proposal = provisioning.create_cluster(ASKED, ADMIN, ports=ports)
    assert {s.action for s in proposal.plan.steps} == {"resume"}


def test_dependencies_on_a_creating_control_plane_are_refused_before_kubernetes_is_read() -> None:
    ports = _ports({"train": {"name": "train", "status": "CREATING"}})
    request = ReconcileDependenciesInput(name="train", includeOptional=False)
    with pytest.raises(Conflict) as refused:
        provisioning.reconcile_dependencies(request, ADMIN, ports=ports)
    assert str(refused.value) == "The EKS control plane of train is CREATING; dependencies need an ACTIVE cluster."
    assert ports.read.reads == []


def test_dependencies_none_installed_are_planned_and_listed_as_missing() -> None:
    ports = _ports({"train": _active({"launchpod:cluster": "train"})})
    listed = provisioning.list_dependencies("train", ports=ports)
    assert listed.items and all(d.installed is None and d.state == "NOT_INSTALLED" for d in listed.items)
    request = ReconcileDependenciesInput(name="train", includeOptional=False)
    proposal = provisioning.reconcile_dependencies(request, ADMIN, ports=ports)
    assert not proposal.plan.empty
    assert proposal.start().kind == "reconcile-dependencies"


def test_dependencies_read_their_workloads_side_by_side_and_list_each_as_installed() -> None:
    ports = _ports({"train": _active({"launchpod:cluster": "train"})})
    # Each workload read waits until three are in flight at once: read one after another, the first never returns.
    together = threading.Barrier(3, timeout=30)
    labels = {"metadata": {"labels": {"app.kubernetes.io/version": "9.9.9"}}}

    def read(cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None:
        together.wait()
        return labels

    listed = provisioning.list_dependencies("train", ports=replace(ports, read=read))
    workloads = [d for d in listed.items if d.kind != "addon"]
    assert len(workloads) % 3 == 0 and workloads and all(d.installed == "9.9.9" for d in workloads)


def test_the_dependency_listing_and_its_reconcile_plan_describe_the_eks_cluster_once_each() -> None:
    ports = _ports({"train": _active({"launchpod:cluster": "train"})})
    described: list[str] = []
    cluster = ports.eks.cluster

    def counted(name: str) -> EksCluster | None:
        described.append(name)
        return cluster(name)

    ports.eks.cluster = counted  # type: ignore[method-assign]
    listed = provisioning.list_dependencies("train", ports=ports)
    assert listed.items and described == ["train"]
    provisioning.reconcile_dependencies(
        ReconcileDependenciesInput(name="train", includeOptional=False), ADMIN, ports=ports
    )
    assert described == ["train", "train"]


def test_dependencies_list_a_pin_eks_does_not_offer_for_the_clusters_kubernetes_version_as_drift() -> None:
    ports = _ports({"train": _active({"launchpod:cluster": "train"})})
    ports.eks.offered["cert-manager"] = (["v1.19.0-eksbuild.1"], "v1.19.0-eksbuild.1")
    ports.eks.addon_map["train"] = {"cert-manager": {"addonVersion": "v1.19.0-eksbuild.1", "status": "ACTIVE"}}

    listed = {d.name: d for d in provisioning.list_dependencies("train", ports=ports).items}

    row = listed["cert-manager"]
    assert row.drift and row.installed == "v1.19.0-eksbuild.1"
    assert row.note == f"{row.pinned} is not offered for Kubernetes 1.32; EKS's default v1.19.0-eksbuild.1 is used"
    request = ReconcileDependenciesInput(name="train", includeOptional=False)
    steps = provisioning.reconcile_dependencies(request, ADMIN, ports=ports).plan.steps
    assert not any("cert-manager" in s.target for s in steps)  # the default runs: nothing to do
