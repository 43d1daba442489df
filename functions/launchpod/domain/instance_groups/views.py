"""What GET .../instance-groups shows of each group, read from DescribeCluster."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.hyperpod import AutoPatch, BatchSize
from launchpod.contracts.instance_groups import (
    AutoPatchView,
    CapacityType,
    InstanceGroupView,
    NicMode,
    Taint,
)
from launchpod.domain import mig


def capacity_type(details: dict[str, Any]) -> CapacityType:
    if details.get("TrainingPlanArn"):
        return "trainingPlan"
    if "Spot" in (details.get("CapacityRequirements") or {}):
        return "spot"
    return "onDemand"


def nic_mode(details: dict[str, Any], efa: int | None = None) -> NicMode:
    """efa-only as the group asks; otherwise efa, or ena when EC2 says the type has no EFA interface
    (``efa``: its MaximumEfaInterfaces, None when not known)."""
    if (details.get("NetworkInterface") or {}).get("InterfaceType") == "efa-only":
        return "efa-only"
    return "ena" if efa == 0 else "efa"


def taints_of(aws_taints: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    out = []
    for t in aws_taints or []:
        taint = {"key": t["Key"], "effect": t["Effect"]}
        if t.get("Value") is not None:
            taint["value"] = t["Value"]
        out.append(taint)
    return out


IDLE_WAIT_DEFAULT = 86400  # ClusterAutoPatchConfig.IdleWaitWindowInSeconds: "The default is 86400 (24 hours)"


def patch_terms(patch: dict[str, Any]) -> dict[str, Any]:
    """An autoPatch in the form two of them compare in: validated, AWS's idle-wait default filled in."""
    out = AutoPatch.model_validate(patch).model_dump(mode="json", exclude_none=True)
    if out["strategy"] != "DrainFirst":
        out.setdefault("idleWaitWindowSeconds", IDLE_WAIT_DEFAULT)
    return out


def auto_patch_request(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """DescribeCluster's ClusterAutoPatchConfigDetails in the request's autoPatch terms (AWS's defaults
    filled as the request fills them); the reschedule asked for is the DesiredPatchSchedule."""
    if not config:
        return None
    drain = config.get("DrainPolicy")
    size = ((config.get("DeploymentConfig") or {}).get("RollingUpdatePolicy") or {}).get("MaximumBatchSize")
    asked = (config.get("DesiredPatchSchedule") or {}).get("NextPatchDate")
    patch = {
        "strategy": config["PatchingStrategy"],
        "idleWaitWindowSeconds": config.get("IdleWaitWindowInSeconds"),
        "drain": {
            "drainTimeoutSeconds": drain.get("DrainTimeoutInSeconds", 3600),
            "onDrainTimeout": drain.get("OnDrainTimeout", "Skip"),
        }
        if drain
        else None,
        "maxBatchSize": {"type": size["Type"], "value": size["Value"]} if size else None,
    }
    out = patch_terms({k: v for k, v in patch.items() if v is not None})
    if asked is not None:
        # a reschedule the caller sent: compared as the request sends it (an aware UTC time)
        out["nextPatchDate"] = AutoPatch.model_validate({**out, "nextPatchDate": asked}).model_dump(mode="json")[
            "nextPatchDate"
        ]
    return out


def auto_patch_view(config: dict[str, Any] | None) -> AutoPatchView | None:
    """The group's patching, with the date HyperPod patches next (CurrentPatchSchedule) and a reschedule not
    yet taken up (DesiredPatchSchedule, when it differs)."""
    if not config:
        return None
    drain = config.get("DrainPolicy") or {}
    size = ((config.get("DeploymentConfig") or {}).get("RollingUpdatePolicy") or {}).get("MaximumBatchSize")
    current = (config.get("CurrentPatchSchedule") or {}).get("NextPatchDate")
    desired = (config.get("DesiredPatchSchedule") or {}).get("NextPatchDate")
    return AutoPatchView(
        strategy=config.get("PatchingStrategy", "Unknown"),
        nextPatchDate=current,
        requestedPatchDate=desired if desired != current else None,
        idleWaitWindowSeconds=config.get("IdleWaitWindowInSeconds"),
        drainTimeoutSeconds=drain.get("DrainTimeoutInSeconds"),
        onDrainTimeout=drain.get("OnDrainTimeout"),
        maxBatchSize=BatchSize(type=size["Type"], value=size["Value"]) if size else None,
    )


def group_view(
    details: dict[str, Any],
    cluster_subnets: list[str],
    zone_of: dict[str, str],
    *,
    dedicated: set[str],
    karpenter: bool = False,
    efa: int | None = None,
    gpus: int = 0,
) -> InstanceGroupView:
    """``zone_of`` maps subnet ids to zones; ``dedicated`` holds the subnet ids Launchpod made for one group;
    ``gpus`` per node, for what a MIG group's nodes advertise."""
    own = (details.get("OverrideVpcConfig") or {}).get("Subnets") or []
    subnets = list(own or cluster_subnets)
    kube = details.get("KubernetesConfig") or {}
    labels = dict(kube.get("DesiredLabels") or kube.get("CurrentLabels") or {})
    ebs: dict[str, Any] = next(
        (c["EbsVolumeConfig"] for c in details.get("InstanceStorageConfigs") or [] if "EbsVolumeConfig" in c), {}
    )
    return InstanceGroupView(
        instanceGroup=details["InstanceGroupName"],
        instanceType=details.get("InstanceType"),
        instanceTypes=list((details.get("InstanceRequirements") or {}).get("DesiredInstanceTypes") or []),
        typeCounts={t["InstanceType"]: int(t.get("CurrentCount", 0)) for t in details.get("InstanceTypeDetails") or []},
        currentCount=details.get("CurrentCount", 0),
        targetCount=details.get("TargetCount", 0),
        minInstanceCount=details.get("MinCount"),
        status=details.get("Status", "Unknown"),
        capacityType=capacity_type(details),
        nicMode=nic_mode(details, efa),
        availabilityZones=sorted({zone_of[s] for s in subnets if s in zone_of}),
        subnetIds=subnets,
        dedicatedSubnet=bool(own) and set(own) <= dedicated,
        trainingPlanArn=details.get("TrainingPlanArn"),
        trainingPlanStatus=details.get("TrainingPlanStatus"),
        deepHealthChecks=list(details.get("OnStartDeepHealthChecks") or []),
        threadsPerCore=details.get("ThreadsPerCore"),
        ebsVolumeGb=ebs.get("VolumeSizeInGB"),
        imageVersion=details.get("CurrentImageReleaseVersion") or details.get("CurrentImageId"),
        imageId=details.get("DesiredImageId"),
        imageReleaseVersion=details.get("DesiredImageReleaseVersion"),
        imageVersionStatus=details.get("ImageVersionStatus"),
        autoPatch=auto_patch_view(details.get("AutoPatchConfig")),
        labels=labels,
        mig=mig.view(labels.get(mig.CONFIG_LABEL), gpus),
        taints=[Taint.model_validate(t) for t in taints_of(kube.get("DesiredTaints") or kube.get("CurrentTaints"))],
        scheduledUpdate=(details.get("ScheduledUpdateConfig") or {}).get("ScheduleExpression"),
        karpenterManaged=karpenter,
        scaling=bool((details.get("ActiveOperations") or {}).get("Scaling")),
    )
