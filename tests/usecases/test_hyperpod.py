"""The HyperPod routes' use cases against in-memory AWS and Kubernetes: what is refused before anything is
created (zone, offered types, quota, control plane, dependencies), the plan, and what is started."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.clusters import ProvisionClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.hyperpod import CreateHyperPodInput, CreateHyperPodRequest, UpdateSoftwareInput
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod as hyperpod_rules
from launchpod.domain.dependencies.objects import health_agent_ref
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.usecases import hyperpod

from tests.fakes.clusters import Clusters
from tests.fakes.ec2 import Ec2
from tests.fakes.eks import Eks
from tests.fakes.kube import Kube
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker
from tests.fakes.service_quotas import ServiceQuotas

ADMIN = ops.Principal("alice", Role.ADMIN)
GPU = {"name": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 2}
ASKED = CreateHyperPodRequest.model_validate({"availabilityZone": "us-east-1a", "instanceGroups": [GPU]})
ACTIVE = {"name": "train", "status": "ACTIVE", "tags": {"launchpod:cluster": "train"}}
AGENT = [health_agent_ref()]


def _ports(
    eks: dict[str, Any] | None = ACTIVE,
    kube: list[dict[str, Any]] | None = None,
    quotas: dict[str, float] | None = None,
    clusters: dict[str, dict[str, Any]] | None = None,
) -> hyperpod.HyperPodPorts:
    operations = Operations()  # one table with the registry: the locks show on the records
    return hyperpod.HyperPodPorts(
        region="us-east-1",
        prefix="launchpod",
        clusters=Clusters({}, operations=operations),
        operations=operations,
        workflows=Workflows(),
        eks=Eks({"train": eks} if eks else {}),
        ec2=Ec2(["us-east-1a", "us-east-1b"], {"g5.8xlarge": ["us-east-1a"]}, {"subnet-a": "us-east-1a"}),
        sagemaker=SageMaker(clusters or {}),
        quotas=ServiceQuotas(quotas or {}),
        read=Kube(AGENT if kube is None else kube),
    )


def test_hyperpod_on_a_ready_control_plane_plans_its_phases_and_starts_create_hyperpod() -> None:
    ports = _ports()
    proposal = hyperpod.create_hyperpod("train", ASKED, ADMIN, ports=ports)
    assert proposal.plan.steps and {s.action for s in proposal.plan.steps} == {"create"}
    assert ports.workflows.started == []  # type: ignore[attr-defined]
    assert proposal.start().kind == "create-hyperpod"


def _hyperpod(status: str) -> dict[str, Any]:
    return {
        "ClusterName": "train",
        "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/abc",
        "ClusterStatus": status,
        "FailureMessage": "InsufficientInstanceCapacity: no ml.g5.8xlarge capacity in us-east-1a",
        "VpcConfig": {"Subnets": ["subnet-a"]},
        "InstanceGroups": [{"InstanceGroupName": "gpu", "InstanceType": "ml.g5.8xlarge", "TargetCount": 2}],
    }


def test_a_failed_hyperpod_cluster_is_asked_for_again_in_another_zone_instead_of_a_409() -> None:
    """No capacity in the zone, the most common HyperPod failure: asking again in another zone was a 409
    (the zone of an existing cluster cannot change), a dead end. A failed cluster is deleted and created
    again as asked; an InService one still keeps its zone."""
    ports = _ports(clusters={"train": _hyperpod("Failed")})
    ports.ec2.offered["g5.8xlarge"] = ["us-east-1a", "us-east-1b"]  # type: ignore[attr-defined]
    elsewhere = CreateHyperPodRequest.model_validate({"availabilityZone": "us-east-1b", "instanceGroups": [GPU]})
    proposal = hyperpod.create_hyperpod("train", elsewhere, ADMIN, ports=ports)
    first = proposal.plan.steps[0]
    assert (first.action, first.target) == ("delete", "HyperPod cluster train (Failed)")
    assert "no ml.g5.8xlarge capacity in us-east-1a" in first.reason and "availabilityZone changed" in first.reason
    assert proposal.start().request["availabilityZone"] == "us-east-1b"
    in_service = _ports(clusters={"train": _hyperpod("InService")})
    in_service.ec2.offered["g5.8xlarge"] = ["us-east-1a", "us-east-1b"]  # type: ignore[attr-defined]
    with pytest.raises(Conflict, match="availabilityZone"):
        hyperpod.create_hyperpod("train", elsewhere, ADMIN, ports=in_service)


def test_a_zone_that_does_not_offer_the_type_is_refused_before_anything_is_read() -> None:
    asked = CreateHyperPodRequest.model_validate({"availabilityZone": "us-east-1b", "instanceGroups": [GPU]})
    ports = _ports()
    with pytest.raises(InvalidInput) as refused:
        hyperpod.create_hyperpod("train", asked, ADMIN, ports=ports)
    assert "ml.g5.8xlarge" in str(refused.value) and "us-east-1b" in str(refused.value)
    assert ports.read.reads == []  # type: ignore[attr-defined]


def test_a_zone_the_region_lacks_names_the_zones_it_has() -> None:
    asked = CreateHyperPodRequest.model_validate({"availabilityZone": "us-west-2a", "instanceGroups": [GPU]})
    with pytest.raises(InvalidInput) as refused:
        hyperpod.create_hyperpod("train", asked, ADMIN, ports=_ports())
    assert (
        str(refused.value) == "us-west-2a is not an availability zone in us-east-1; choose from us-east-1a, us-east-1b."
    )


def test_a_control_plane_still_creating_is_refused_with_what_to_do() -> None:
    with pytest.raises(Conflict) as refused:
        hyperpod.create_hyperpod("train", ASKED, ADMIN, ports=_ports(eks={"status": "CREATING"}))
    assert str(refused.value) == (
        "The EKS control plane of train is CREATING; create it first and wait until that operation succeeds."
    )
    assert refused.value.details == [{"field": None, "rule": "next_step", "message": "POST /api/clusters"}]


def test_without_the_health_agent_hyperpod_is_refused_and_the_dependencies_route_named() -> None:
    with pytest.raises(Conflict) as refused:
        hyperpod.create_hyperpod("train", ASKED, ADMIN, ports=_ports(kube=[]))
    assert "Install the cluster's dependencies, wait until that operation succeeds" in str(refused.value)
    assert refused.value.details == [
        {"field": None, "rule": "next_step", "message": "POST /api/clusters/train/dependencies"}
    ]


def test_a_quota_other_clusters_already_use_is_refused_with_how_much_to_raise_it() -> None:
    other = {
        "ClusterName": "other",
        "InstanceGroups": [{"InstanceGroupName": "workers", "InstanceType": "ml.g5.8xlarge", "TargetCount": 3}],
    }
    ports = _ports(quotas={"ml.g5.8xlarge for cluster usage": 4}, clusters={"other": other})
    with pytest.raises(Conflict) as refused:
        hyperpod.create_hyperpod("train", ASKED, ADMIN, ports=ports)
    assert "Raise it by 1 (to 5)" in str(refused.value)
    assert ports.quotas.asked == ["ml.g5.8xlarge for cluster usage"]  # type: ignore[attr-defined]


def test_provisioning_over_an_eks_cluster_launchpod_did_not_create_is_refused_with_import_named() -> None:
    request = ProvisionClusterRequest.model_validate(
        {"name": "train", "availabilityZones": ["us-east-1a", "us-east-1b"], "hyperpod": ASKED.model_dump()}
    )
    with pytest.raises(Conflict) as refused:
        hyperpod.provision_cluster(request, ADMIN, ports=_ports(eks={**ACTIVE, "tags": {}}))
    assert "import it into Launchpod or choose another name" in str(refused.value)
    assert refused.value.details == [{"field": None, "rule": "next_step", "message": "POST /api/clusters/import"}]


def test_a_new_provision_plans_every_part_and_registers_the_cluster_once_started() -> None:
    request = ProvisionClusterRequest.model_validate(
        {"name": "train", "availabilityZones": ["us-east-1a", "us-east-1b"], "hyperpod": ASKED.model_dump()}
    )
    ports = _ports(eks=None)
    proposal = hyperpod.provision_cluster(request, ADMIN, ports=ports)
    assert len(proposal.plan.steps) > 1
    assert ports.clusters.registered == []  # type: ignore[attr-defined]
    assert proposal.start().kind == "provision-cluster"
    assert ports.clusters.registered == [("train", "created", "us-east-1")]  # type: ignore[attr-defined]


def test_software_update_without_hyperpod_is_404_and_while_creating_409() -> None:
    request = UpdateSoftwareInput(name="train")
    with pytest.raises(NotFound):
        hyperpod.update_software(request, ADMIN, ports=_ports())
    creating = {"train": {"ClusterName": "train", "ClusterStatus": "Creating", "InstanceGroups": []}}
    with pytest.raises(Conflict) as refused:
        hyperpod.update_software(request, ADMIN, ports=_ports(clusters=creating))
    assert str(refused.value) == "The HyperPod cluster train is Creating; update it once it is InService."


def test_software_update_plans_each_group_and_starts_update_software() -> None:
    in_service = {
        "train": {
            "ClusterName": "train",
            "ClusterStatus": "InService",
            "InstanceGroups": [{"InstanceGroupName": "gpu"}],
        }
    }
    proposal = hyperpod.update_software(UpdateSoftwareInput(name="train"), ADMIN, ports=_ports(clusters=in_service))
    assert proposal.plan.steps
    assert proposal.start().kind == "update-software"


# A cluster's first groups take the depth of a group added later (flexible types, a minimum, patching, an
# image), checked by the same rules before anything is made.
FLEX = {
    "name": "gpu",
    "instanceTypes": ["ml.g5.8xlarge", "ml.g5.12xlarge"],
    "instanceCount": 4,
    "minInstanceCount": 2,
    "autoPatch": {"strategy": "WhenIdle"},
    "imageReleaseVersion": "1.2.3",
}


def _deep(group: dict[str, Any] = FLEX, mode: str | None = "Continuous") -> CreateHyperPodRequest:
    return CreateHyperPodRequest.model_validate(
        {"availabilityZone": "us-east-1a", "instanceGroups": [group], "nodeProvisioningMode": mode}
    )


def _flex_ports(**kwargs: Any) -> hyperpod.HyperPodPorts:
    ports = _ports(**kwargs)
    ports.ec2.offered["g5.12xlarge"] = ["us-east-1a"]  # type: ignore[attr-defined]
    return ports


def test_a_flexible_first_group_reaches_create_cluster_with_its_types_minimum_patching_and_image() -> None:
    ports = _flex_ports()
    hyperpod.create_hyperpod("train", _deep(), ADMIN, ports=ports).start()
    _, _, document = ports.workflows.started[0]  # type: ignore[attr-defined]
    # what the CreateHyperPod phase reads back from the workflow's input and hands to CreateCluster
    operation = ports.operations.get(document["operationId"])
    asked = CreateHyperPodInput.model_validate(operation.request)
    [spec] = hyperpod_rules.instance_groups(asked, "arn:aws:iam::123456789012:role/launchpod-x", "s3://b/s/")
    assert "InstanceType" not in spec
    assert spec["InstanceRequirements"] == {"InstanceTypes": ["ml.g5.8xlarge", "ml.g5.12xlarge"]}
    assert (spec["InstanceCount"], spec["MinInstanceCount"]) == (4, 2)
    assert spec["AutoPatchConfig"] == {"PatchingStrategy": "WhenIdle"}
    assert spec["ImageReleaseVersion"] == "1.2.3"


@pytest.mark.parametrize("field", ["instanceTypes", "minInstanceCount"])
def test_flexible_types_or_a_minimum_without_continuous_provisioning_are_refused_naming_the_field(field: str) -> None:
    group = {**GPU, "minInstanceCount": 1} if field == "minInstanceCount" else {**FLEX, "minInstanceCount": None}
    with pytest.raises(InvalidInput) as refused:
        hyperpod.create_hyperpod("train", _deep(group, mode=None), ADMIN, ports=_flex_ports())
    assert refused.value.details[0]["field"] == f"body.instanceGroups.0.{field}"
    assert "set it to Continuous" in str(refused.value)


def test_a_fallback_type_the_zone_does_not_offer_is_refused_naming_instance_types() -> None:
    ports = _ports()  # ml.g5.12xlarge is offered nowhere
    with pytest.raises(InvalidInput) as refused:
        hyperpod.create_hyperpod("train", _deep(), ADMIN, ports=ports)
    assert refused.value.details[0]["field"] == "body.instanceGroups.0.instanceTypes"
    assert "ml.g5.12xlarge is not offered in us-east-1a" in str(refused.value)


def test_a_flexible_first_group_passes_the_quota_when_a_fallback_type_has_room_and_not_when_none_has() -> None:
    full = {"ml.g5.8xlarge for cluster usage": 0}
    hyperpod.create_hyperpod("train", _deep(), ADMIN, ports=_flex_ports(quotas=full))
    with pytest.raises(Conflict) as refused:
        hyperpod.create_hyperpod(
            "train", _deep(), ADMIN, ports=_flex_ports(quotas={**full, "ml.g5.12xlarge for cluster usage": 3})
        )
    assert "'ml.g5.8xlarge for cluster usage'" in str(refused.value)


def test_the_same_first_groups_again_plan_nothing_and_another_minimum_is_refused_naming_instance_groups() -> None:
    running = {
        "train": {
            "ClusterName": "train",
            "ClusterStatus": "InService",
            "NodeRecovery": "Automatic",
            "VpcConfig": {"Subnets": ["subnet-a"]},
            "InstanceGroups": [
                {
                    "InstanceGroupName": "gpu",
                    "InstanceRequirements": {"DesiredInstanceTypes": ["ml.g5.8xlarge", "ml.g5.12xlarge"]},
                    "TargetCount": 4,
                    "MinCount": 2,
                    "AutoPatchConfig": {
                        "PatchingStrategy": "WhenIdle",
                        "CurrentPatchSchedule": {"NextPatchDate": "2026-12-12T03:00:00Z"},
                    },
                    "DesiredImageReleaseVersion": "1.2.3",
                }
            ],
        }
    }
    assert hyperpod.create_hyperpod("train", _deep(), ADMIN, ports=_flex_ports(clusters=running)).plan.empty
    with pytest.raises(Conflict) as refused:
        hyperpod.create_hyperpod(
            "train", _deep({**FLEX, "minInstanceCount": 3}), ADMIN, ports=_flex_ports(clusters=running)
        )
    assert "instance groups: add, scale or delete a group" in str(refused.value)
