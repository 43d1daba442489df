"""SageMaker HyperPod task governance for the sandbox (moto has none of it): cluster scheduler configs and
compute quotas, with the rules SageMaker applies; ``sandbox.kueue`` turns them into the add-on's Kueue objects.

AWS (API reference: CreateClusterSchedulerConfig, UpdateClusterSchedulerConfig, CreateComputeQuota,
UpdateComputeQuota, their Describe/List/Delete, and ResourceSharingConfig,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ResourceSharingConfig.html; developer guide
"HyperPod task governance" and its policies pages,
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-operate-console-ui-governance.html;
botocore's model is the shape and lists the errors):

* ``ClusterArn`` names an existing HyperPod cluster orchestrated by EKS (task governance runs on EKS only).
* A cluster has one cluster policy: a second scheduler config for it is a ``ConflictException``.
* A team has one compute allocation per cluster: a second quota for the same TeamName is a ``ConflictException``.
* Each ComputeQuotaResources instance type must be one of the cluster's instance groups' types, its Count
  at most the instances those groups hold (``ValidationException``).
* Accelerators, VCpu and MemoryInGiB (ComputeQuotaResourceConfig) are at most what those instances hold
  (``ValidationException``), after the ratios fill what is left out (``sandbox.controllers.kueue.amounts``).
* ``BorrowLimit`` is 1-500 percent ("The values can be 1 - 500 percent", ResourceSharingConfig); what
  SageMaker does with one given for Lend or DontLend is not documented, so it is kept (Launchpod sends none).
* Update* take ``TargetVersion``: the version read; another one (a concurrent change) is a ``ConflictException``.
  Each update adds one to the version.
* Unknown ids are ``ResourceNotFound``.

Not modelled: the Creating/Updating states (entities are Created/Updated at once; AWS does not document
how long they last), ResourceLimitExceeded, and CreatedBy/LastModifiedBy. Messages are ours: AWS's
wording is not documented.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from moto.core.responses import ActionResult
from moto.sagemaker.exceptions import ConflictException, ResourceNotFound, ValidationError
from moto.sagemaker.models import SageMakerModelBackend
from moto.sagemaker.responses import SageMakerResponse

from sandbox.aws.core import once, patch
from sandbox.aws.sagemaker import common as hp
from sandbox.aws.sagemaker import mig
from sandbox.aws.sagemaker.common import request_params
from sandbox.aws.sagemaker.instances import shape_of
from sandbox.aws.state import STATE

_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
_TEAM = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
_lock = threading.RLock()


@dataclass
class Entity:
    """A scheduler config (kind ``cluster-scheduler-config``) or a compute quota (kind ``compute-quota``)."""

    kind: str
    id: str
    arn: str
    name: str
    cluster_arn: str
    body: dict[str, Any]  # SchedulerConfig, or ComputeQuotaConfig + ComputeQuotaTarget + ActivationState
    description: str | None
    created: datetime
    version: int = 1
    status: str = "Created"
    modified: datetime | None = None
    tags: list[dict[str, str]] = field(default_factory=list)  # moto's ListTags/AddTags read and extend it


@dataclass
class GovernanceState:
    """Task governance's scheduler configs and compute quotas."""

    entities: dict[tuple[str, str], dict[str, Entity]] = field(
        default_factory=dict
    )  # (account, region) -> id -> entity


def _state() -> GovernanceState:
    return STATE.of(GovernanceState)


def _of(backend: SageMakerModelBackend) -> dict[str, Entity]:
    return _state().entities.setdefault((backend.account_id, backend.region_name), {})


def _cluster(backend: SageMakerModelBackend, arn: str) -> Any:
    found = next((c for c in list(backend.clusters.values()) if getattr(c, "arn", None) == arn), None)
    if found is None or getattr(found, "deleting_since", None) is not None:
        raise ValidationError(message=f"Cluster {arn} does not exist.")
    if not getattr(found, "eks_cluster_name", None):
        raise ValidationError(message=f"Cluster {arn} is not orchestrated by Amazon EKS; task governance needs EKS.")
    return found


def capacity(cluster: Any) -> dict[str, int]:
    """Instances per type in the cluster's instance groups."""
    out: dict[str, int] = {}
    for group in cluster.groups.values():
        if group.deleting_since is None:
            out[group.instance_type] = out.get(group.instance_type, 0) + group.target
    return out


# A compute quota may give MIG partitions as well as whole accelerators (ComputeQuotaResourceConfig's
# AcceleratorPartition {Type, Count}, https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ComputeQuotaResourceConfig.html);
# like the other amounts it is held against what the cluster's instances of that type have, here the partitions of
# that profile their GPUs hold (AWS's MIG profile table, sandbox.aws.sagemaker.mig). Before, every partition
# quota was refused as exceeding 0, a refusal AWS does not make.
PARTITION_PREFIX = "nvidia.com/mig-"


def _check_quota(cluster: Any, config: dict[str, Any]) -> None:
    from sandbox.controllers.kueue import amounts

    have = capacity(cluster)
    sharing = config.get("ResourceSharingConfig") or {}
    for resource in [*(config.get("ComputeQuotaResources") or []), *(sharing.get("AbsoluteBorrowLimits") or [])]:
        kind, count = resource.get("InstanceType"), int(resource.get("Count") or 0)
        if kind not in have:
            raise ValidationError(
                message=f"Instance type {kind} is not in cluster {cluster.cluster_name}; its instance types: "
                f"{', '.join(sorted(have)) or 'none'}."
            )
        if count > have[kind]:
            raise ValidationError(
                message=f"Count {count} of {kind} exceeds the {have[kind]} instances of cluster {cluster.cluster_name}."
            )
        asked, held = amounts(kind, resource), amounts(kind, {"Count": have[kind]})
        for name, value in asked.items():
            if name.startswith(PARTITION_PREFIX):  # partitions: what the instances' GPUs hold of that profile
                profile = name.removeprefix(PARTITION_PREFIX)
                most = have[kind] * shape_of(kind).gpus * mig.PROFILES.get(kind, {}).get(profile, 0)
                if value > most:
                    raise ValidationError(
                        message=f"AcceleratorPartition {value:g} mig-{profile} of {kind} exceeds the {most} of the "
                        f"{have[kind]} instances of cluster {cluster.cluster_name}."
                    )
                continue
            if value > held.get(name, 0) + 1e-6:
                field = {"cpu": "VCpu", "memory": "MemoryInGiB"}.get(name, "Accelerators")
                raise ValidationError(
                    message=f"{field} {value:g} of {kind} exceeds the {held.get(name, 0):g} of the {have[kind]} "
                    f"instances of cluster {cluster.cluster_name}."
                )
    limit = sharing.get("BorrowLimit")
    if limit is not None and not 1 <= int(limit) <= 500:
        raise ValidationError(message="BorrowLimit must be between 1 and 500 (percent).")


def _check_priorities(config: dict[str, Any]) -> None:
    names = [p.get("Name") for p in config.get("PriorityClasses") or []]
    if len(names) != len(set(names)):
        raise ValidationError(message="PriorityClasses must have unique names.")


def _new(backend: SageMakerModelBackend, kind: str, p: dict[str, Any], body: dict[str, Any]) -> Entity:
    name = p.get("Name") or ""
    if not _NAME.match(name):
        raise ValidationError(message=f"Name {name!r} must match [a-zA-Z0-9](-*[a-zA-Z0-9]){{0,62}}.")
    entity_id = "".join(hp.random_id(12, _ID_CHARS))
    return Entity(
        kind=kind,
        id=entity_id,
        arn=f"arn:{backend.partition}:sagemaker:{backend.region_name}:{backend.account_id}:{kind}/{entity_id}",
        name=name,
        cluster_arn=p["ClusterArn"],
        body=body,
        description=p.get("Description"),
        created=datetime.now(UTC),
        tags=[{"Key": t["Key"], "Value": t["Value"]} for t in p.get("Tags") or []],
    )


def _find(backend: SageMakerModelBackend, kind: str, entity_id: str) -> Entity:
    found = _of(backend).get(entity_id or "")
    if found is None or found.kind != kind:
        raise ResourceNotFound(message=f"{kind} {entity_id} does not exist.")
    return found


def _bump(entity: Entity, target: Any) -> None:
    if int(target or 0) != entity.version:
        raise ConflictException(
            f"TargetVersion {target} is not the current version {entity.version} of {entity.id}; describe it again."
        )
    entity.version += 1
    entity.status, entity.modified = "Updated", datetime.now(UTC)


# ----------------------------------------------------------------------------- scheduler configs


def create_config(backend: SageMakerModelBackend, p: dict[str, Any]) -> Entity:
    cluster = _cluster(backend, p.get("ClusterArn") or "")
    config = copy.deepcopy(p.get("SchedulerConfig") or {})
    _check_priorities(config)
    with _lock:
        for other in _of(backend).values():
            if other.kind == "cluster-scheduler-config" and other.cluster_arn == cluster.arn:
                raise ConflictException(
                    f"Cluster {cluster.cluster_name} already has the scheduler config {other.name} ({other.id}); "
                    "a cluster has one. Update it instead."
                )
        entity = _new(backend, "cluster-scheduler-config", p, config)
        _of(backend)[entity.id] = entity
    return entity


def _described(e: Entity, prefix: str, body: dict[str, Any]) -> dict[str, Any]:
    """What Describe<prefix> answers: the entity's ``<prefix>Arn``, ``<prefix>Id`` and ``<prefix>Version``,
    the fields every entity has, and ``body``."""
    return hp.drop_empty(
        {
            f"{prefix}Arn": e.arn,
            f"{prefix}Id": e.id,
            "Name": e.name,
            "Description": e.description,
            f"{prefix}Version": e.version,
            "Status": e.status,
            "ClusterArn": e.cluster_arn,
            **body,
            "CreationTime": e.created,
            "LastModifiedTime": e.modified,
        }
    )


def describe_config(e: Entity) -> dict[str, Any]:
    return _described(e, "ClusterSchedulerConfig", {"SchedulerConfig": copy.deepcopy(e.body)})


# ----------------------------------------------------------------------------- compute quotas


def create_quota(backend: SageMakerModelBackend, p: dict[str, Any]) -> Entity:
    cluster = _cluster(backend, p.get("ClusterArn") or "")
    config = copy.deepcopy(p.get("ComputeQuotaConfig") or {})
    target = copy.deepcopy(p.get("ComputeQuotaTarget") or {})
    team = target.get("TeamName") or ""
    if not _TEAM.match(team):
        raise ValidationError(message=f"TeamName {team!r} must match [a-z0-9]([-a-z0-9]*[a-z0-9]).")
    _check_quota(cluster, config)
    with _lock:
        for other in _of(backend).values():
            if other.kind == "compute-quota" and other.cluster_arn == cluster.arn and team == team_of(other):
                raise ConflictException(
                    f"Team {team} already has the compute quota {other.name} ({other.id}) on cluster "
                    f"{cluster.cluster_name}; a team has one per cluster."
                )
        body = {"ComputeQuotaConfig": config, "ComputeQuotaTarget": target}
        body["ActivationState"] = p.get("ActivationState") or "Enabled"
        entity = _new(backend, "compute-quota", p, body)
        _of(backend)[entity.id] = entity
    return entity


def team_of(e: Entity) -> str:
    return str((e.body.get("ComputeQuotaTarget") or {}).get("TeamName"))


def update_quota(backend: SageMakerModelBackend, p: dict[str, Any]) -> Entity:
    entity = _find(backend, "compute-quota", p.get("ComputeQuotaId") or "")
    cluster = _cluster(backend, entity.cluster_arn)
    with _lock:
        if p.get("ComputeQuotaConfig") is not None:
            _check_quota(cluster, p["ComputeQuotaConfig"])
        target = p.get("ComputeQuotaTarget")
        if target is not None and target.get("TeamName") != team_of(entity):
            raise ValidationError(message="ComputeQuotaTarget.TeamName cannot change; delete the quota and create one.")
        _bump(entity, p.get("TargetVersion"))
        for key in ("ComputeQuotaConfig", "ComputeQuotaTarget", "ActivationState"):
            if p.get(key) is not None:
                entity.body[key] = copy.deepcopy(p[key])
        if p.get("Description") is not None:
            entity.description = p["Description"]
    return entity


def describe_quota(e: Entity) -> dict[str, Any]:
    return _described(e, "ComputeQuota", copy.deepcopy(e.body))


# ----------------------------------------------------------------------------- what the add-on reads


def live(kind: str) -> list[Entity]:
    """Every entity of that kind in every account (the Kueue emulation maps them to their EKS clusters)."""
    with _lock:
        return [
            copy.deepcopy(e) for entities in _state().entities.values() for e in entities.values() if e.kind == kind
        ]


def by_arn(arn: str) -> Entity | None:
    with _lock:
        return next((e for entities in _state().entities.values() for e in entities.values() if e.arn == arn), None)


# ----------------------------------------------------------------------------- response methods


def _summaries(
    self: SageMakerResponse, kind: str, describe: Callable[[Entity], dict[str, Any]], keys: tuple[str, ...], key: str
) -> ActionResult:
    """A List call's page under ``key``: the entities of ``kind`` its filters keep, in its sort order, each
    described and cut to the summary's ``keys``."""
    p = request_params(self)
    items = [e for e in _of(self.sagemaker_backend).values() if e.kind == kind]
    items = [e for e in items if not p.get("ClusterArn") or e.cluster_arn == p["ClusterArn"]]
    items = [e for e in items if not p.get("NameContains") or p["NameContains"] in e.name]
    items = [e for e in items if not p.get("Status") or e.status == p["Status"]]
    items.sort(key=lambda e: e.created, reverse=p.get("SortOrder") != "Ascending")
    summaries = [{k: d[k] for k in keys if k in d} for d in map(describe, items)]
    page, token = hp.paginate(summaries, p.get("MaxResults"), p.get("NextToken"))
    return ActionResult(hp.drop_empty({key: page, "NextToken": token}))


def _deleted(self: SageMakerResponse, kind: str, id_key: str) -> ActionResult:
    """Delete<kind>: the entity the request's ``id_key`` names is gone."""
    e = _find(self.sagemaker_backend, kind, request_params(self).get(id_key) or "")
    with _lock:
        _of(self.sagemaker_backend).pop(e.id, None)
    return ActionResult({})


def _r_create_config(self: SageMakerResponse) -> ActionResult:
    e = create_config(self.sagemaker_backend, request_params(self))
    return ActionResult({"ClusterSchedulerConfigArn": e.arn, "ClusterSchedulerConfigId": e.id})


def _r_describe_config(self: SageMakerResponse) -> ActionResult:
    p = request_params(self)
    e = _find(self.sagemaker_backend, "cluster-scheduler-config", p.get("ClusterSchedulerConfigId") or "")
    return ActionResult(describe_config(e))


def _r_list_configs(self: SageMakerResponse) -> ActionResult:
    keys: tuple[str, ...] = ("ClusterSchedulerConfigArn", "ClusterSchedulerConfigId", "ClusterSchedulerConfigVersion")
    keys += ("Name", "CreationTime", "LastModifiedTime", "Status", "ClusterArn")
    return _summaries(self, "cluster-scheduler-config", describe_config, keys, "ClusterSchedulerConfigSummaries")


def _r_update_config(self: SageMakerResponse) -> ActionResult:
    p = request_params(self)
    e = _find(self.sagemaker_backend, "cluster-scheduler-config", p.get("ClusterSchedulerConfigId") or "")
    with _lock:
        if p.get("SchedulerConfig") is not None:
            _check_priorities(p["SchedulerConfig"])
        _bump(e, p.get("TargetVersion"))
        if p.get("SchedulerConfig") is not None:
            e.body = copy.deepcopy(p["SchedulerConfig"])
        if p.get("Description") is not None:
            e.description = p["Description"]
    return ActionResult({"ClusterSchedulerConfigArn": e.arn, "ClusterSchedulerConfigVersion": e.version})


def _r_delete_config(self: SageMakerResponse) -> ActionResult:
    return _deleted(self, "cluster-scheduler-config", "ClusterSchedulerConfigId")


def _r_create_quota(self: SageMakerResponse) -> ActionResult:
    e = create_quota(self.sagemaker_backend, request_params(self))
    return ActionResult({"ComputeQuotaArn": e.arn, "ComputeQuotaId": e.id})


def _r_describe_quota(self: SageMakerResponse) -> ActionResult:
    p = request_params(self)
    return ActionResult(describe_quota(_find(self.sagemaker_backend, "compute-quota", p.get("ComputeQuotaId") or "")))


def _r_list_quotas(self: SageMakerResponse) -> ActionResult:
    keys: tuple[str, ...] = ("ComputeQuotaArn", "ComputeQuotaId", "Name", "ComputeQuotaVersion", "Status", "ClusterArn")
    keys += ("ComputeQuotaConfig", "ComputeQuotaTarget", "ActivationState", "CreationTime", "LastModifiedTime")
    return _summaries(self, "compute-quota", describe_quota, keys, "ComputeQuotaSummaries")


def _r_update_quota(self: SageMakerResponse) -> ActionResult:
    e = update_quota(self.sagemaker_backend, request_params(self))
    return ActionResult({"ComputeQuotaArn": e.arn, "ComputeQuotaVersion": e.version})


def _r_delete_quota(self: SageMakerResponse) -> ActionResult:
    return _deleted(self, "compute-quota", "ComputeQuotaId")


_RESPONSES = {
    "create_cluster_scheduler_config": _r_create_config,
    "describe_cluster_scheduler_config": _r_describe_config,
    "list_cluster_scheduler_configs": _r_list_configs,
    "update_cluster_scheduler_config": _r_update_config,
    "delete_cluster_scheduler_config": _r_delete_config,
    "create_compute_quota": _r_create_quota,
    "describe_compute_quota": _r_describe_quota,
    "list_compute_quotas": _r_list_quotas,
    "update_compute_quota": _r_update_quota,
    "delete_compute_quota": _r_delete_quota,
}


def reset() -> None:
    with _lock:
        _state().entities.clear()


@once
def install() -> None:
    """Add the ten APIs to moto's SageMaker and let ListTags/AddTags find their entities (idempotent)."""
    for name, method in _RESPONSES.items():
        setattr(SageMakerResponse, name, method)
    previous = SageMakerModelBackend._get_resource_from_arn

    def from_arn(self: SageMakerModelBackend, arn: str) -> Any:
        if ":cluster-scheduler-config/" in arn or ":compute-quota/" in arn:
            found = by_arn(arn)
            if found is None or found.arn.split(":")[4] != self.account_id:
                raise ValidationError(message=f"Resource {arn} does not exist.")
            return found
        return previous(self, arn)

    patch(SageMakerModelBackend, "_get_resource_from_arn", from_arn)
