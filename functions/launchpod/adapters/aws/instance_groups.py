"""A HyperPod instance group read from DescribeCluster's ``ClusterInstanceGroupDetails``, and the one whitelist
between DescribeCluster and UpdateCluster.

UpdateCluster takes the whole instance-group list and applies each entry as the group's new specification: a
field left out is reset, not kept. So every call sends each group it does not mean to change as DescribeCluster
reports it, rebuilt field by field into the ``ClusterInstanceGroupSpecification`` UpdateCluster accepts (botocore's
sagemaker 2017-07-24 model is the source of both shapes; tests/adapters/aws/test_instance_group_specs.py fails when
either gains a member this table does not place). The record carries that specification (InstanceGroupState.spec),
so the Details shape stays here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from launchpod.domain.clusters.hyperpod_cluster import AutoPatchState, InstanceGroupState, NodeTaint

Details = Mapping[str, Any]


def _same(name: str) -> Callable[[Details], Any]:
    return lambda d: copy.deepcopy(d.get(name))


def _desired_types(d: Details) -> Any:
    types = (d.get("InstanceRequirements") or {}).get("DesiredInstanceTypes")
    return {"InstanceTypes": list(types)} if types else None


def _kubernetes(d: Details) -> Any:
    config = d.get("KubernetesConfig") or {}
    out = {}
    if config.get("DesiredLabels") is not None:
        out["Labels"] = dict(config["DesiredLabels"])
    if config.get("DesiredTaints") is not None:
        out["Taints"] = copy.deepcopy(config["DesiredTaints"])
    return out or None


def _auto_patch(d: Details) -> Any:
    patch = d.get("AutoPatchConfig")
    if not patch:
        return None
    out = {k: copy.deepcopy(v) for k, v in patch.items() if k not in ("CurrentPatchSchedule", "DesiredPatchSchedule")}
    if patch.get("DesiredPatchSchedule"):
        out["PatchSchedule"] = copy.deepcopy(patch["DesiredPatchSchedule"])
    return out


# ClusterInstanceGroupSpecification member -> how to read it from ClusterInstanceGroupDetails.
# The desired value wins where DescribeCluster reports current and desired (image, labels, types):
# an update in flight must not be undone by the next one.
SPEC_FROM_DETAILS: dict[str, Callable[[Details], Any]] = {
    "InstanceCount": lambda d: d.get("TargetCount", d.get("CurrentCount", 0)),
    "MinInstanceCount": _same("MinCount"),
    "InstanceGroupName": _same("InstanceGroupName"),
    "InstanceType": _same("InstanceType"),
    "InstanceRequirements": _desired_types,
    "LifeCycleConfig": _same("LifeCycleConfig"),
    "ExecutionRole": _same("ExecutionRole"),
    "ThreadsPerCore": _same("ThreadsPerCore"),
    "InstanceStorageConfigs": _same("InstanceStorageConfigs"),
    "OnStartDeepHealthChecks": _same("OnStartDeepHealthChecks"),
    "TrainingPlanArn": _same("TrainingPlanArn"),
    "OverrideVpcConfig": _same("OverrideVpcConfig"),
    "ScheduledUpdateConfig": _same("ScheduledUpdateConfig"),
    "ImageId": _same("DesiredImageId"),
    "AutoPatchConfig": _auto_patch,
    "ImageReleaseVersion": _same("DesiredImageReleaseVersion"),
    "KubernetesConfig": _kubernetes,
    "SlurmConfig": _same("SlurmConfig"),
    "CapacityRequirements": _same("CapacityRequirements"),
    "NetworkInterface": _same("NetworkInterface"),
}
# Details members that describe state, not configuration: UpdateCluster has no field for them.
STATE_ONLY: frozenset[str] = frozenset(
    {
        "CurrentCount",
        "InstanceTypeDetails",
        "Status",
        "TrainingPlanStatus",
        "CurrentImageId",
        "CurrentImageReleaseVersion",
        "ImageVersionStatus",
        "ActiveOperations",
        "TargetStateCount",
        "SoftwareUpdateStatus",
        "ActiveSoftwareUpdateConfig",
    }
)


def spec_from_details(details: Details) -> dict[str, Any]:
    """The specification that keeps a group exactly as DescribeCluster reports it."""
    spec = {}
    for member, read in SPEC_FROM_DETAILS.items():
        value = read(details)
        if value is not None and value != [] and value != {}:
            spec[member] = value
    if "InstanceType" in spec and "InstanceRequirements" in spec:
        del spec["InstanceRequirements"]  # one or the other; a flexible group reports both
    return spec


def _taints(aws: Any) -> tuple[NodeTaint, ...]:
    return tuple(NodeTaint(key=t["Key"], effect=t["Effect"], value=t.get("Value")) for t in aws or [])


def auto_patch_state(config: Mapping[str, Any] | None) -> AutoPatchState | None:
    """ClusterAutoPatchConfigDetails; None when the group is not patched automatically."""
    if not config:
        return None
    drain = config.get("DrainPolicy") or {}
    size = ((config.get("DeploymentConfig") or {}).get("RollingUpdatePolicy") or {}).get("MaximumBatchSize") or {}
    return AutoPatchState(
        strategy=config.get("PatchingStrategy"),
        idle_wait_seconds=config.get("IdleWaitWindowInSeconds"),
        drain=bool(drain),
        drain_timeout_seconds=drain.get("DrainTimeoutInSeconds"),
        on_drain_timeout=drain.get("OnDrainTimeout"),
        batch_size_type=size.get("Type"),
        batch_size_value=size.get("Value"),
        next_patch_date=(config.get("CurrentPatchSchedule") or {}).get("NextPatchDate"),
        requested_patch_date=(config.get("DesiredPatchSchedule") or {}).get("NextPatchDate"),
    )


def instance_group_state(details: Details) -> InstanceGroupState:
    """A group from DescribeCluster's InstanceGroups (ClusterInstanceGroupDetails)."""
    counts: dict[str, int] = {}
    for d in details.get("InstanceTypeDetails") or []:
        counts[str(d["InstanceType"])] = counts.get(str(d["InstanceType"]), 0) + int(d.get("CurrentCount") or 0)
    wanted = details.get("InstanceRequirements") or {}
    kube = details.get("KubernetesConfig") or {}
    ebs: Mapping[str, Any] = next(
        (c["EbsVolumeConfig"] for c in details.get("InstanceStorageConfigs") or [] if "EbsVolumeConfig" in c), {}
    )
    return InstanceGroupState(
        name=str(details["InstanceGroupName"]),
        status=details.get("Status"),
        instance_type=details.get("InstanceType"),
        current_instance_types=tuple(wanted.get("CurrentInstanceTypes") or ()),
        current_count=int(details.get("CurrentCount") or 0),
        target_count=int(details.get("TargetCount") or 0),
        type_counts=counts,
        training_plan_arn=details.get("TrainingPlanArn"),
        training_plan_status=details.get("TrainingPlanStatus"),
        desired_instance_types=tuple(wanted.get("DesiredInstanceTypes") or ()),
        min_count=details.get("MinCount"),
        spot="Spot" in (details.get("CapacityRequirements") or {}),
        interface_type=(details.get("NetworkInterface") or {}).get("InterfaceType"),
        override_subnets=tuple((details.get("OverrideVpcConfig") or {}).get("Subnets") or ()),
        labels=dict(kube.get("DesiredLabels") or {}),
        current_labels=dict(kube.get("CurrentLabels") or {}),
        taints=_taints(kube.get("DesiredTaints")),
        current_taints=_taints(kube.get("CurrentTaints")),
        deep_health_checks=tuple(details.get("OnStartDeepHealthChecks") or ()),
        scheduled_update=(details.get("ScheduledUpdateConfig") or {}).get("ScheduleExpression"),
        auto_patch=auto_patch_state(details.get("AutoPatchConfig")),
        desired_image_id=details.get("DesiredImageId"),
        desired_image_release_version=details.get("DesiredImageReleaseVersion"),
        current_image_id=details.get("CurrentImageId"),
        current_image_release_version=details.get("CurrentImageReleaseVersion"),
        image_version_status=details.get("ImageVersionStatus"),
        threads_per_core=details.get("ThreadsPerCore"),
        ebs_volume_gb=ebs.get("VolumeSizeInGB"),
        execution_role=details.get("ExecutionRole"),
        scaling=bool((details.get("ActiveOperations") or {}).get("Scaling")),
        spec=spec_from_details(details),
    )
