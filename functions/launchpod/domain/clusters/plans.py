"""The planner (launchpod.domain.plan) applied to the cluster routes: what the real EKS, HyperPod and
storage objects have, field by field, as the request names the fields, and which of them cannot change
on an existing resource.

Launchpod has no operation that changes an existing control plane's version, zones, VPC or logging,
nor an existing HyperPod cluster's zone or node recovery, so a different value for any of them is a
409 naming the field (HyperPod's instance groups change through the instance-groups routes), and the
same request again plans nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from launchpod.contracts.clusters import CreateClusterRequest, ProvisionClusterRequest
from launchpod.contracts.hyperpod import CreateHyperPodRequest, InstanceGroupRequest, UpdateSoftwareInput
from launchpod.contracts.storage import ConfigureStorageRequest
from launchpod.domain import plan, storage
from launchpod.domain.clusters import control_plane, hyperpod, provision
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster, InstanceGroupState
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.instance_groups.changes import DEPTH_FIELDS, current_values
from launchpod.domain.instance_groups.views import patch_terms

CONTROL_PLANE_FIELDS = tuple(
    plan.Field(n) for n in ("kubernetesVersion", "availabilityZones", "logging", "network.vpcId", "network.subnetIds")
)
HYPERPOD_FIELDS = tuple(plan.Field(n) for n in ("availabilityZone", "nodeRecovery", "instanceGroups"))
STORAGE_FIELDS = tuple(plan.Field(n) for n in ("kind", "namespace", "prefix", "fileSystemId"))


def workflow_steps(phases: Sequence[tuple[str, str]], reason: str, action: str = "create") -> list[plan.Step]:
    return [plan.Step(action, title, reason, name) for name, title in phases]


def _control_plane_desired(request: CreateClusterRequest) -> dict[str, Any]:
    desired = {
        k: v for k, v in plan.sent(request).items() if k in ("kubernetesVersion", "availabilityZones", "logging")
    }
    if "network" in request.model_fields_set:
        for key in ("vpcId", "subnetIds"):
            value = getattr(request.network, key)
            if value is not None:
                desired[f"network.{key}"] = value
    return desired


def control_plane_real(eks: EksCluster, zones: Sequence[str]) -> dict[str, Any]:
    """The request's fields as the EKS cluster has them (``zones``: the zones of its subnets)."""
    return {
        "kubernetesVersion": eks.version,
        "availabilityZones": sorted(set(zones)),
        "logging": list(eks.log_types),
        "network.vpcId": eks.vpc_id,
    }


def control_plane_plan(
    request: CreateClusterRequest, eks: EksCluster | None, zones: Sequence[str], settled: bool
) -> plan.Plan:
    """``settled``: EKS is ACTIVE, the cluster is registered and no operation holds it; an existing
    control plane that is not settled is resumed (each phase skips what is done)."""
    name = request.cluster
    found = plan.diff(
        name,
        _control_plane_desired(request),
        control_plane_real(eks, zones) if eks else None,
        CONTROL_PLANE_FIELDS,
        resource=f"The EKS cluster {name}",
        create=lambda: workflow_steps(control_plane.PHASES, f"EKS has no cluster {name}"),
    )
    if eks is not None and found.empty and not settled:
        state = eks.status
        return plan.Plan(
            name,
            tuple(
                workflow_steps(
                    control_plane.PHASES, f"EKS cluster {name} is {state}; each phase skips what is done", "resume"
                )
            ),
        )
    return found


def _group_desired(group: InstanceGroupRequest) -> dict[str, Any]:
    """A first group as the plan compares it: its name, type(s) and count, and the depth fields sent."""
    out: dict[str, Any] = {"instanceGroup": group.instanceGroup}
    if group.instanceTypes:
        out["instanceTypes"] = list(group.instanceTypes)
    else:
        out["instanceType"] = group.instanceType
    out["instanceCount"] = group.instanceCount
    sent = group.model_dump(mode="json", include=group.model_fields_set & DEPTH_FIELDS, exclude_none=True)
    for key, value in sent.items():
        out[key] = patch_terms(value) if key == "autoPatch" else value
    return out


def _group_real(group: InstanceGroupState, like: dict[str, Any] | None) -> dict[str, Any]:
    """The group as DescribeCluster reports it, in the terms (and key order) of the group asked, ``like``."""
    values = {"instanceGroup": group.name, **current_values(group, [])}
    keys = list(like or ("instanceGroup", "instanceType", "instanceCount"))
    if like and "nextPatchDate" not in (like.get("autoPatch") or {}) and values.get("autoPatch"):
        # HyperPod schedules its own next patch; a request that names no date does not differ by it
        values["autoPatch"] = {k: v for k, v in values["autoPatch"].items() if k != "nextPatchDate"}
    return {k: values.get(k) for k in keys}


def hyperpod_real(cluster: HyperPodCluster, zone: str | None, asked: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The request's fields as the HyperPod cluster has them; each group in the terms of its namesake in
    ``asked`` (the desired groups)."""
    like = {g["instanceGroup"]: g for g in asked}
    groups = [_group_real(g, like.get(g.name)) for g in cluster.instance_groups]
    real: dict[str, Any] = {"nodeRecovery": cluster.node_recovery, "instanceGroups": groups}
    if zone:
        real["availabilityZone"] = zone
    return real


def hyperpod_plan(
    name: str, request: CreateHyperPodRequest, cluster: HyperPodCluster | None, zone: str | None, at: str = "body"
) -> plan.Plan:
    """The HyperPod cluster against the request; ``zone``: the zone of its compute subnet."""
    desired = plan.sent(request)
    asked: list[dict[str, Any]] = []
    if "instanceGroups" in desired:
        asked = desired["instanceGroups"] = [_group_desired(g) for g in request.instanceGroups]
    if cluster is not None and cluster.status == "Failed":
        # A failed HyperPod cluster cannot be repaired in place (create-hyperpod deletes it, then creates it
        # again), so nothing about it is fixed: the most common failure, no capacity in the zone, is retried
        # in another zone, or with another type or capacity, by asking for it.
        why = cluster.failure_message or "it failed"
        real = hyperpod_real(cluster, zone, asked)
        changed = sorted(k for k in desired if k in real and desired[k] != real[k])
        again = f"; asked again with {', '.join(changed)} changed" if changed else ""
        return plan.Plan(
            name,
            (
                plan.Step("delete", f"HyperPod cluster {name} (Failed)", f"{why}{again}", "CreateHyperPod"),
                *workflow_steps(hyperpod.PHASES, "created again as asked once the failed one is gone"),
            ),
        )
    try:
        found = plan.diff(
            name,
            desired,
            hyperpod_real(cluster, zone, asked) if cluster else None,
            HYPERPOD_FIELDS,
            resource=f"The HyperPod cluster {name}",
            create=lambda: workflow_steps(hyperpod.PHASES, f"SageMaker has no HyperPod cluster {name}"),
            at=at,
        )
    except Conflict as exc:
        if any(d.get("field", "").endswith("instanceGroups") for d in exc.details):
            raise Conflict(
                exc.message + f" Change them in {name}'s instance groups: add, scale or delete a group there.",
                details=exc.details,
            ) from None
        raise
    if cluster is not None and found.empty and cluster.status != "InService":
        reason = f"HyperPod cluster {name} is {cluster.status}; each phase skips what is done"
        return plan.Plan(name, tuple(workflow_steps(hyperpod.PHASES, reason, "resume")))
    return found


def storage_real(volume: dict[str, Any], claim: dict[str, Any] | None) -> dict[str, Any]:
    row = storage.describe(volume, claim)
    real: dict[str, Any] = {"kind": row["kind"], "namespace": row["namespace"]}
    s3 = storage.s3_prefix_of(volume)
    if s3 is not None:
        real["prefix"] = s3[1].rstrip("/") or None
    else:
        real["fileSystemId"] = ((volume.get("spec") or {}).get("csi") or {}).get("volumeHandle")
    return real


def storage_plan(
    name: str,
    request: ConfigureStorageRequest,
    volume: dict[str, Any] | None,
    claim: dict[str, Any] | None,
    at: str = "body",
) -> plan.Plan:
    desired = plan.sent(request)
    desired.pop("storageName", None)
    if volume is not None:
        # A prefix not sent means the whole bucket: compare that too, for an S3 storage.
        desired.setdefault("kind", request.kind)
        if request.kind == "s3":
            desired.setdefault("prefix", None)
    found = plan.diff(
        name,
        desired,
        storage_real(volume, claim) if volume else None,
        STORAGE_FIELDS,
        resource=f"The storage {request.storageName}",
        create=lambda: workflow_steps(storage.PHASES, f"{name} has no storage {request.storageName}"),
        at=at,
    )
    if volume is not None and found.empty and (claim is None or (claim.get("status") or {}).get("phase") != "Bound"):
        return plan.Plan(
            name, tuple(workflow_steps(storage.PHASES, f"the claim {request.storageName} is not Bound", "resume"))
        )
    return found


def provision_plan(
    request: ProvisionClusterRequest,
    eks: EksCluster | None,
    zones: Sequence[str],
    hp: HyperPodCluster | None,
    hp_zone: str | None,
    volume: dict[str, Any] | None,
    claim: dict[str, Any] | None,
    dependencies_plan: plan.Plan | None = None,
) -> plan.Plan:
    """Each part of a provision against what exists, in the order the phases run; an in-service cluster with
    its storage and dependencies plans nothing. ``dependencies_plan``: the dependencies missing or not at
    their pin (dependencies.reconcile_plan), installed between the control plane and HyperPod."""
    name = request.cluster
    base = CreateClusterRequest.model_validate(
        request.model_dump(
            include={"cluster", "availabilityZones", "kubernetesVersion", "network", "logging", "tags"}
            & request.model_fields_set
        )
    )
    parts = [control_plane_plan(base, eks, zones, settled=eks is not None and eks.status == "ACTIVE")]
    if dependencies_plan is not None:
        parts.append(dependencies_plan)
    parts.append(hyperpod_plan(name, request.hyperpod, hp, hp_zone, at="body.hyperpod"))
    if request.storage is not None:
        parts.append(storage_plan(name, request.storage, volume, claim, at="body.storage"))
    found = plan.combine(name, *parts)
    if found.empty:
        return found
    awaited = ", ".join(provision.awaited_addons(request.includeOptionalDependencies))
    wait = plan.Step(
        "wait", f"EKS add-ons {awaited}", "they run Deployments, ACTIVE once nodes have joined", "AwaitAddons"
    )
    return plan.Plan(name, (*found.steps, wait), found.warnings)


def software_plan(name: str, request: UpdateSoftwareInput, groups: Sequence[str]) -> plan.Plan:
    """UpdateClusterSoftware always has work: it patches each node to the newest HyperPod AMI, and
    DescribeCluster does not say whether a newer one exists. Each group asked for must exist."""
    for index, group in enumerate(request.instanceGroups or []):
        if group not in groups:
            raise InvalidInput(
                f"{name} has no instance group {group}; its groups are {', '.join(groups) or 'none'}.",
                field=f"body.instanceGroups.{index}",
                rule="existing_instance_group",
            )
    size = request.maxBatchSize
    return plan.Plan(
        name,
        tuple(
            plan.Step(
                "update",
                f"software of instance group {g}",
                f"rolling batches of {size.value} {'%' if size.type == 'CAPACITY_PERCENTAGE' else 'instances'}",
                "StartUpdate",
            )
            for g in (request.instanceGroups or groups)
        ),
    )
