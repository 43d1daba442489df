"""The explicit diff of PATCH .../instance-groups/{group}, and the specification of a new group.

The client sends only the fields the user changed; they are compared with the group as
DescribeCluster reports it (its InstanceGroupState). Nothing different: NOOP. A fixed field (capacity type, NIC mode,
instance type, subnet) sent with another value: 422 naming it, since HyperPod keeps those for the
life of a group and the way to change them is a new group.
"""

from __future__ import annotations

import copy
from typing import Any

from launchpod.contracts.hyperpod import InstanceGroupRequest
from launchpod.contracts.instance_groups import AddInstanceGroupRequest, UpdateInstanceGroupRequest
from launchpod.domain import mig
from launchpod.domain.clusters.hyperpod_cluster import InstanceGroupState
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.instance_groups.views import auto_patch_request, capacity_type, nic_mode, patch_terms, taints_of

# What UpdateCluster does not change on a group: HyperPod keeps the instance type (or the choice of a flexible
# group over a single type), capacity (CapacityRequirements "cannot be changed after the instance group is
# created", API reference ClusterCapacityRequirements), NIC mode and subnet for the life of the group.
FIXED = ("instanceType", "capacityType", "efaOnly", "subnetId")
_FIXED_WORDS = {
    "instanceType": "instance type",
    "capacityType": "capacity type",
    "efaOnly": "NIC mode (efaOnly)",
    "subnetId": "subnet",
    "instanceTypes": "single instance type (a group is made flexible or not)",
}


def current_values(group: InstanceGroupState, cluster_subnets: list[str]) -> dict[str, Any]:
    """The group's values in the PATCH request's terms."""
    subnets = list(group.override_subnets) or cluster_subnets
    return {
        "instanceCount": group.target_count,
        "labels": dict(group.labels),
        "taints": taints_of(group.taints),
        "deepHealthChecks": list(group.deep_health_checks),
        "scheduledUpdate": group.scheduled_update,
        "minInstanceCount": group.min_count,
        "instanceTypes": list(group.desired_instance_types) or None,
        "autoPatch": auto_patch_request(group.auto_patch),
        "imageId": group.desired_image_id,
        "imageReleaseVersion": group.desired_image_release_version,
        "instanceType": group.instance_type,
        "capacityType": capacity_type(group),
        "efaOnly": nic_mode(group) == "efa-only",
        "subnetId": subnets[0] if subnets else None,
    }


def diff(
    request: UpdateInstanceGroupRequest, details: InstanceGroupState, cluster_subnets: list[str]
) -> dict[str, Any]:
    """The sent fields whose value differs from the group's; InvalidInput for a fixed one."""
    current = current_values(details, cluster_subnets)
    changes = {}
    for key, value in request.sent().items():
        if key == "taints" and value is not None:
            value = [{k: v for k, v in t.items() if v is not None} for t in value]
        if key == "autoPatch" and value is not None:
            value = patch_terms(value)
        if key == "autoPatch" and value is not None and current[key] and "nextPatchDate" not in value:
            # HyperPod's own next patch date is kept unless the caller moves it
            current[key] = {k: v for k, v in current[key].items() if k != "nextPatchDate"}
        if value is None or value == current[key]:
            continue
        if key in FIXED or (key == "instanceTypes" and current["instanceTypes"] is None):
            group = details.name
            was = current[key] if key != "instanceTypes" else current["instanceType"]
            raise InvalidInput(
                f"The {_FIXED_WORDS[key]} of instance group {group} is fixed for the life of the group "
                f"({was!r}); add a new instance group with {key}={value!r} "
                f"(POST .../instance-groups), move the work, then delete {group}.",
                field=f"body.{key}",
                rule="immutable_field",
            )
        changes[key] = value
    return changes


# POST .../instance-groups for a group that exists: the fields compared with it (with its zone and dedicated
# subnet, where the caller placed it: see add_again), and those PATCH changes rather than a new group.
_PATCHABLE = (
    "instanceCount",
    "labels",
    "taints",
    "deepHealthChecks",
    "minInstanceCount",
    "autoPatch",
    "imageId",
    "imageReleaseVersion",
    "mig",
)
_ADD_COMPARED = (*FIXED[:3], *_PATCHABLE, "instanceTypes", "trainingPlanArn")


def add_again(
    request: AddInstanceGroupRequest,
    details: InstanceGroupState,
    cluster_subnets: list[str],
    placed: dict[str, Any] | None = None,
) -> None:
    """The same add again: returns when every sent field matches the group (NOOP); else Conflict naming each
    field that differs: PATCH changes a count, labels, taints or checks, a new group anything else.
    ``placed`` is where the group is (availabilityZone, dedicatedSubnet; None where it is not known). A
    training plan places its group in the plan's zone whatever was asked, so with one these are not compared."""
    where = {k: v for k, v in (placed or {}).items() if v is not None and not request.trainingPlanArn}
    current = {
        **where,
        **current_values(details, cluster_subnets),
        "trainingPlanArn": details.training_plan_arn,
        "threadsPerCore": details.threads_per_core,
        "ebsVolumeGb": details.ebs_volume_gb,
    }
    sent = request.model_dump(mode="json", include=request.model_fields_set)
    if request.mig is not None and request.instanceType:
        sent["mig"] = mig.config_for(request.instanceType, request.mig)
        current["mig"] = current["labels"].get(mig.CONFIG_LABEL)
    if sent.get("autoPatch") is not None:
        sent["autoPatch"] = patch_terms(sent["autoPatch"])
    if "taints" in sent:
        sent["taints"] = [{k: v for k, v in t.items() if v is not None} for t in sent["taints"]]
    # threadsPerCore and the EBS size are compared only where DescribeCluster reports them
    if sent.get("autoPatch") and current["autoPatch"] and "nextPatchDate" not in sent["autoPatch"]:
        current["autoPatch"] = {k: v for k, v in current["autoPatch"].items() if k != "nextPatchDate"}
    known = [k for k in ("threadsPerCore", "ebsVolumeGb") if current[k] is not None] + list(where)
    differ = [k for k in (*_ADD_COMPARED, *known) if k in sent and sent[k] != current[k]]
    if not differ:
        return
    group = request.instanceGroup
    fixed = [k for k in differ if k not in _PATCHABLE]
    raise Conflict(
        f"Instance group {group} exists and "
        + "; ".join(f"its {k} is {current.get(k)!r}, not {sent[k]!r}" for k in differ)
        + ". "
        + (
            f"Change {', '.join(k for k in differ if k in _PATCHABLE)} with PATCH .../instance-groups/{group}. "
            if any(k in _PATCHABLE for k in differ)
            else ""
        )
        + (
            f"{', '.join(fixed)} {'stays' if len(fixed) == 1 else 'stay'} fixed for the life of the group: add a "
            "group under another name."
            if fixed
            else ""
        ),
        details=[
            {"field": f"body.{k}", "rule": "immutable", "message": f"{k} is {current.get(k)!r} on group {group}"}
            for k in differ
        ],
    )


def aws_auto_patch(patch: dict[str, Any]) -> dict[str, Any]:
    """ClusterAutoPatchConfig from the request's autoPatch (botocore sagemaker 2017-07-24)."""
    out: dict[str, Any] = {"PatchingStrategy": patch["strategy"]}
    if patch.get("idleWaitWindowSeconds") is not None:
        out["IdleWaitWindowInSeconds"] = patch["idleWaitWindowSeconds"]
    if patch.get("drain"):
        out["DrainPolicy"] = {
            "DrainTimeoutInSeconds": patch["drain"]["drainTimeoutSeconds"],
            "OnDrainTimeout": patch["drain"]["onDrainTimeout"],
        }
    if patch.get("maxBatchSize"):
        size = patch["maxBatchSize"]
        out["DeploymentConfig"] = {
            "RollingUpdatePolicy": {"MaximumBatchSize": {"Type": size["type"], "Value": size["value"]}}
        }
    if patch.get("nextPatchDate"):
        out["PatchSchedule"] = {"NextPatchDate": patch["nextPatchDate"]}
    return out


# The request's depth fields depth_spec places (group_spec puts the flexible types in place of InstanceType).
DEPTH_FIELDS = frozenset({"minInstanceCount", "autoPatch", "imageId", "imageReleaseVersion"})


def depth_spec(spec: dict[str, Any], changes: dict[str, Any]) -> None:
    """``spec`` (a ClusterInstanceGroupSpecification) with the depth fields of ``changes`` in AWS's terms: the
    minimum, the flexible types, automatic patching (a patch date HyperPod set is kept unless moved) and the
    image; the one translation for a new cluster's groups, a group added and a group changed."""
    if "minInstanceCount" in changes:
        spec["MinInstanceCount"] = changes["minInstanceCount"]
    if "instanceTypes" in changes:
        spec["InstanceRequirements"] = {"InstanceTypes": list(changes["instanceTypes"])}
    if "autoPatch" in changes:
        kept = (spec.get("AutoPatchConfig") or {}).get("PatchSchedule")
        spec["AutoPatchConfig"] = aws_auto_patch(changes["autoPatch"])
        if kept and "PatchSchedule" not in spec["AutoPatchConfig"]:
            spec["AutoPatchConfig"]["PatchSchedule"] = kept
    if "imageId" in changes:
        spec["ImageId"] = changes["imageId"]
    if "imageReleaseVersion" in changes:
        spec["ImageReleaseVersion"] = changes["imageReleaseVersion"]


def apply_changes(group: InstanceGroupState, changes: dict[str, Any]) -> dict[str, Any]:
    """The group's full specification with ``changes`` applied, everything else as it is."""
    spec = copy.deepcopy(group.spec)
    depth_spec(spec, changes)
    if "instanceCount" in changes:
        spec["InstanceCount"] = changes["instanceCount"]
    if "labels" in changes or "taints" in changes:
        kube = copy.deepcopy(spec.get("KubernetesConfig") or {})
        if "labels" in changes:
            kube["Labels"] = dict(changes["labels"])
        if "taints" in changes:
            kube["Taints"] = [_aws_taint(t) for t in changes["taints"]]
        spec["KubernetesConfig"] = {k: v for k, v in kube.items() if v}
        if not spec["KubernetesConfig"]:
            del spec["KubernetesConfig"]
    if "deepHealthChecks" in changes:
        if changes["deepHealthChecks"]:
            spec["OnStartDeepHealthChecks"] = list(changes["deepHealthChecks"])
        else:
            spec.pop("OnStartDeepHealthChecks", None)
    if "scheduledUpdate" in changes:
        scheduled = copy.deepcopy(spec.get("ScheduledUpdateConfig") or {})
        scheduled["ScheduleExpression"] = changes["scheduledUpdate"]
        spec["ScheduledUpdateConfig"] = scheduled
    return spec


def _aws_taint(taint: dict[str, Any]) -> dict[str, Any]:
    out = {"Key": taint["key"], "Effect": taint["effect"]}
    if taint.get("value") is not None:
        out["Value"] = taint["value"]
    return out


def group_spec(
    group: InstanceGroupRequest | AddInstanceGroupRequest, *, execution_role: str, threads_per_core: int
) -> dict[str, Any]:
    """What every new group's ClusterInstanceGroupSpecification carries, in a new cluster or added to one: its
    name, instance type (or flexible types), count, execution role, threads per core, extra EBS volume, deep
    health checks and depth fields (depth_spec)."""
    spec: dict[str, Any] = {
        "InstanceGroupName": group.instanceGroup,
        **(
            {"InstanceRequirements": {"InstanceTypes": list(group.instanceTypes)}}
            if group.instanceTypes
            else {"InstanceType": group.instanceType}
        ),
        "InstanceCount": group.instanceCount,
        "ExecutionRole": execution_role,
        "ThreadsPerCore": threads_per_core,
        "InstanceStorageConfigs": [{"EbsVolumeConfig": {"VolumeSizeInGB": group.ebsVolumeGb}}],
    }
    if group.deepHealthChecks:
        spec["OnStartDeepHealthChecks"] = list(group.deepHealthChecks)
    depth_spec(spec, group.model_dump(mode="json", include=set(DEPTH_FIELDS), exclude_none=True))
    return spec


def new_group_spec(
    request: AddInstanceGroupRequest,
    *,
    execution_role: str,
    lifecycle: dict[str, Any] | None,
    subnet_ids: list[str] | None,
    security_group_ids: list[str],
    threads_per_core: int,
) -> dict[str, Any]:
    """The ClusterInstanceGroupSpecification of a group added to a cluster. The execution role and lifecycle
    scripts are the cluster's (every group Launchpod creates shares them); ``subnet_ids`` is the dedicated
    subnet (OverrideVpcConfig), None to use the cluster's."""
    spec = group_spec(
        request, execution_role=execution_role, threads_per_core=request.threadsPerCore or threads_per_core
    )
    if lifecycle:
        spec["LifeCycleConfig"] = copy.deepcopy(lifecycle)
    if request.capacityType == "spot":
        spec["CapacityRequirements"] = {"Spot": {}}
    elif request.capacityType == "onDemand":
        spec["CapacityRequirements"] = {"OnDemand": {}}
    else:
        spec["TrainingPlanArn"] = request.trainingPlanArn
    if request.efaOnly:
        spec["NetworkInterface"] = {"InterfaceType": "efa-only"}
    if subnet_ids:
        spec["OverrideVpcConfig"] = {"SecurityGroupIds": list(security_group_ids), "Subnets": list(subnet_ids)}
    kube: dict[str, Any] = {}
    if request.labels:
        kube["Labels"] = dict(request.labels)
    if request.mig is not None and request.instanceType:
        kube["Labels"] = {**kube.get("Labels", {}), mig.CONFIG_LABEL: mig.config_for(request.instanceType, request.mig)}
    if request.taints:
        kube["Taints"] = [_aws_taint(t.model_dump()) for t in request.taints]
    if kube:
        spec["KubernetesConfig"] = kube
    return spec
