"""What GET .../instance-groups shows of each group, read from DescribeCluster."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.instance_groups import CapacityType, InstanceGroupView, NicMode, Taint


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


def group_view(
    details: dict[str, Any],
    cluster_subnets: list[str],
    zone_of: dict[str, str],
    *,
    dedicated: set[str],
    karpenter: bool = False,
    efa: int | None = None,
) -> InstanceGroupView:
    """``zone_of`` maps subnet ids to zones; ``dedicated`` holds the subnet ids Launchpod made for one group."""
    own = (details.get("OverrideVpcConfig") or {}).get("Subnets") or []
    subnets = list(own or cluster_subnets)
    kube = details.get("KubernetesConfig") or {}
    ebs: dict[str, Any] = next(
        (c["EbsVolumeConfig"] for c in details.get("InstanceStorageConfigs") or [] if "EbsVolumeConfig" in c), {}
    )
    return InstanceGroupView(
        group=details["InstanceGroupName"],
        instanceType=details.get("InstanceType"),
        currentCount=details.get("CurrentCount", 0),
        targetCount=details.get("TargetCount", 0),
        minCount=details.get("MinCount"),
        status=details.get("Status", "Unknown"),
        capacityType=capacity_type(details),
        nicMode=nic_mode(details, efa),
        zones=sorted({zone_of[s] for s in subnets if s in zone_of}),
        subnetIds=subnets,
        dedicatedSubnet=bool(own) and set(own) <= dedicated,
        trainingPlanArn=details.get("TrainingPlanArn"),
        trainingPlanStatus=details.get("TrainingPlanStatus"),
        deepHealthChecks=list(details.get("OnStartDeepHealthChecks") or []),
        threadsPerCore=details.get("ThreadsPerCore"),
        ebsVolumeGb=ebs.get("VolumeSizeInGB"),
        imageVersion=details.get("CurrentImageReleaseVersion") or details.get("CurrentImageId"),
        labels=dict(kube.get("DesiredLabels") or kube.get("CurrentLabels") or {}),
        taints=[Taint.model_validate(t) for t in taints_of(kube.get("DesiredTaints") or kube.get("CurrentTaints"))],
        scheduledUpdate=(details.get("ScheduledUpdateConfig") or {}).get("ScheduleExpression"),
        karpenterManaged=karpenter,
        scaling=bool((details.get("ActiveOperations") or {}).get("Scaling")),
    )
