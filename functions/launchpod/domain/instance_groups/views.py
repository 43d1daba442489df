"""What GET .../instance-groups shows of each group, read from its InstanceGroupState (DescribeCluster)."""

from __future__ import annotations

from collections.abc import Sequence
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
from launchpod.domain.clusters.hyperpod_cluster import AutoPatchState, InstanceGroupState, NodeTaint


def capacity_type(group: InstanceGroupState) -> CapacityType:
    if group.training_plan_arn:
        return "trainingPlan"
    if group.spot:
        return "spot"
    return "onDemand"


def nic_mode(group: InstanceGroupState, efa: int | None = None) -> NicMode:
    """efa-only as the group asks; otherwise efa, or ena when EC2 says the type has no EFA interface
    (``efa``: its MaximumEfaInterfaces, None when not known)."""
    if group.interface_type == "efa-only":
        return "efa-only"
    return "ena" if efa == 0 else "efa"


def taints_of(taints: Sequence[NodeTaint]) -> list[dict[str, Any]]:
    out = []
    for t in taints:
        taint = {"key": t.key, "effect": t.effect}
        if t.value is not None:
            taint["value"] = t.value
        out.append(taint)
    return out


IDLE_WAIT_DEFAULT = 86400  # ClusterAutoPatchConfig.IdleWaitWindowInSeconds: "The default is 86400 (24 hours)"


def patch_terms(patch: dict[str, Any]) -> dict[str, Any]:
    """An autoPatch in the form two of them compare in: validated, AWS's idle-wait default filled in."""
    out = AutoPatch.model_validate(patch).model_dump(mode="json", exclude_none=True)
    if out["strategy"] != "DrainFirst":
        out.setdefault("idleWaitWindowSeconds", IDLE_WAIT_DEFAULT)
    return out


def auto_patch_request(config: AutoPatchState | None) -> dict[str, Any] | None:
    """The group's automatic patching in the request's autoPatch terms (AWS's defaults filled as the request
    fills them); the reschedule asked for is the DesiredPatchSchedule."""
    if config is None:
        return None
    asked = config.requested_patch_date
    patch = {
        "strategy": config.strategy,
        "idleWaitWindowSeconds": config.idle_wait_seconds,
        "drain": {
            "drainTimeoutSeconds": 3600 if config.drain_timeout_seconds is None else config.drain_timeout_seconds,
            "onDrainTimeout": config.on_drain_timeout or "Skip",
        }
        if config.drain
        else None,
        "maxBatchSize": {"type": config.batch_size_type, "value": config.batch_size_value}
        if config.batch_size_type is not None
        else None,
    }
    out = patch_terms({k: v for k, v in patch.items() if v is not None})
    if asked is not None:
        # a reschedule the caller sent: compared as the request sends it (an aware UTC time)
        out["nextPatchDate"] = AutoPatch.model_validate({**out, "nextPatchDate": asked}).model_dump(mode="json")[
            "nextPatchDate"
        ]
    return out


def auto_patch_view(config: AutoPatchState | None) -> AutoPatchView | None:
    """The group's patching, with the date HyperPod patches next (CurrentPatchSchedule) and a reschedule not
    yet taken up (DesiredPatchSchedule, when it differs)."""
    if config is None:
        return None
    current, desired = config.next_patch_date, config.requested_patch_date
    size = config.batch_size_type, config.batch_size_value
    return AutoPatchView.model_validate(
        {
            "strategy": "Unknown" if config.strategy is None else config.strategy,
            "nextPatchDate": current,
            "requestedPatchDate": desired if desired != current else None,
            "idleWaitWindowSeconds": config.idle_wait_seconds,
            "drainTimeoutSeconds": config.drain_timeout_seconds,
            "onDrainTimeout": config.on_drain_timeout,
            "maxBatchSize": BatchSize.model_validate({"type": size[0], "value": size[1]}) if size[0] else None,
        }
    )


def group_view(
    group: InstanceGroupState,
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
    own = list(group.override_subnets)
    subnets = list(own or cluster_subnets)
    labels = dict(group.labels or group.current_labels)
    return InstanceGroupView(
        instanceGroup=group.name,
        instanceType=group.instance_type,
        instanceTypes=list(group.desired_instance_types),
        typeCounts=dict(group.type_counts),
        currentCount=group.current_count,
        targetCount=group.target_count,
        minInstanceCount=group.min_count,
        status="Unknown" if group.status is None else group.status,
        capacityType=capacity_type(group),
        nicMode=nic_mode(group, efa),
        availabilityZones=sorted({zone_of[s] for s in subnets if s in zone_of}),
        subnetIds=subnets,
        dedicatedSubnet=bool(own) and set(own) <= dedicated,
        trainingPlanArn=group.training_plan_arn,
        trainingPlanStatus=group.training_plan_status,
        deepHealthChecks=list(group.deep_health_checks),
        threadsPerCore=group.threads_per_core,
        ebsVolumeGb=group.ebs_volume_gb,
        imageVersion=group.current_image_release_version or group.current_image_id,
        imageId=group.desired_image_id,
        imageReleaseVersion=group.desired_image_release_version,
        imageVersionStatus=group.image_version_status,
        autoPatch=auto_patch_view(group.auto_patch),
        labels=labels,
        mig=mig.view(labels.get(mig.CONFIG_LABEL), gpus),
        taints=[Taint.model_validate(t) for t in taints_of(group.taints or group.current_taints)],
        scheduledUpdate=group.scheduled_update,
        karpenterManaged=karpenter,
        scaling=group.scaling,
    )
