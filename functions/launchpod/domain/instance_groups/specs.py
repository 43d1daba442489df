"""The one whitelist between DescribeCluster and UpdateCluster.

UpdateCluster takes the whole instance-group list and applies each entry as the group's new
specification: a field left out is reset, not kept. So every call rebuilds each group it does not
mean to change from DescribeCluster's ``ClusterInstanceGroupDetails``, field by field, into the
``ClusterInstanceGroupSpecification`` UpdateCluster accepts (botocore's sagemaker 2017-07-24 model is
the source of both shapes; tests/domain/test_instance_group_specs.py fails when either gains a member
this table does not place).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from launchpod.domain.errors import Conflict

Details = dict[str, Any]


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


def specs_for_update(
    groups: list[Details], changed: dict[str, Any] | None = None, deleted: str | None = None
) -> list[dict[str, Any]]:
    """Every group of the cluster for UpdateCluster: each unchanged one rebuilt from DescribeCluster,
    ``changed`` (a full specification) in place of its namesake or appended; ``deleted`` left out
    (it goes in InstanceGroupsToDelete)."""
    out = []
    for details in groups:
        name = details.get("InstanceGroupName")
        if name == deleted or details.get("Status") == "Deleting":
            continue
        if changed is not None and name == changed["InstanceGroupName"]:
            out.append(copy.deepcopy(changed))
            continue
        out.append(spec_from_details(details))
    if changed is not None and not any(s["InstanceGroupName"] == changed["InstanceGroupName"] for s in out):
        out.append(copy.deepcopy(changed))
    return out


def check_passable(cluster: str, groups: list[Details], prefix: str, deleted: str | None = None) -> None:
    """Refuse, before anything starts, an UpdateCluster that would pass an execution role Launchpod may not.
    UpdateCluster hands every group's ExecutionRole to HyperPod again, which needs the caller's
    ``iam:PassRole`` on each ("iam:PassRole is a dependent action of sagemaker:UpdateCluster", Service
    Authorization Reference for SageMaker), and Launchpod's functions may pass only the roles it creates,
    ``<prefix>-*`` (least privilege: never a role of an imported cluster it did not make). So on an imported
    cluster whose groups run as other roles, the update fails at AWS; it is refused here with the roles to
    name instead. ``deleted``: the group an update removes (its role is not passed)."""
    foreign = sorted(
        {
            str(g["ExecutionRole"])
            for g in groups
            if g.get("ExecutionRole")
            and g.get("InstanceGroupName") != deleted
            and g.get("Status") != "Deleting"
            and not str(g["ExecutionRole"]).partition(":role/")[2].startswith(f"{prefix}-")
        }
    )
    if foreign:
        raise Conflict(
            f"Changing the instance groups of {cluster} passes every group's execution role to HyperPod again "
            f"(iam:PassRole), and Launchpod may pass only the roles it creates ({prefix}-*), not "
            f"{', '.join(foreign)}. Change this imported cluster's instance groups with the SageMaker console or "
            "`aws sagemaker update-cluster`, as a principal allowed iam:PassRole on those roles."
        )
