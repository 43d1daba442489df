"""The task governance add-on's Kueue objects, emulated for the sandbox's Kubernetes APIs.

What AWS documents ("HyperPod task governance",
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-operate-console-ui-governance.html,
and "Policies", .../sagemaker-hyperpod-eks-operate-console-ui-governance-policies.html), and the sandbox does
once the add-on (amazon-sagemaker-hyperpod-taskgovernance) is ACTIVE on the cluster:

* The add-on installs Kueue: its kinds (ClusterQueue, LocalQueue, ResourceFlavor, WorkloadPriorityClass) are
  served, at kueue.x-k8s.io v1beta1 and v1beta2 (Kueue v0.19.2, the add-on's v1.6.0).
* Each compute quota (one per team) becomes namespace ``hyperpod-ns-<team>``, a ClusterQueue with the team's
  instances as nominal quota per instance type (a ResourceFlavor per type), and the LocalQueue
  ``hyperpod-ns-<team>-localqueue`` in the namespace that tasks are submitted to. Lend, DontLend and
  LendAndBorrow become the ClusterQueue's lending and borrowing limits (BorrowLimit percent of the quota,
  50 when not given, as the API reference's default); PreemptTeamTasks its withinClusterQueue preemption.
* Each priority class of the cluster's scheduler config becomes the WorkloadPriorityClass ``<name>-priority``
  with the weight as value.
* Deleting a quota or a priority class removes its objects.
* A quota in accelerators, vCPUs, memory or GPU partitions becomes those resources' nominal quota, SageMaker's
  ratios filling the rest (``amounts``); AbsoluteBorrowLimits cap the borrowing limit per resource.
* With the scheduler config's IdleResourceSharing Enabled, what no team is allocated is lent through the
  cohort by a ClusterQueue of its own (``idle_queue``; its name and shape are the sandbox's).

The ClusterQueue's exact shape (cohort name, covered resources, labels) is not documented by AWS; the
sandbox's is a plausible Kueue configuration, labelled ``app.kubernetes.io/managed-by: hyperpod-task-governance``
(our label). Kueue's admission of the jobs submitted to these queues is ``sandbox.controllers.kueue_admission``.
"""

from __future__ import annotations

import logging
from typing import Any

from sandbox.aws.sagemaker import task_governance as tg
from sandbox.aws.sagemaker.instances import shape_of
from sandbox.controllers import common, kueue_admission
from sandbox.controllers.periodic import Periodic

log = logging.getLogger("sandbox.controllers.kueue")

ADDON = "amazon-sagemaker-hyperpod-taskgovernance"
GROUP, VERSION = "kueue.x-k8s.io", "v1beta1"
MANAGED = {"app.kubernetes.io/managed-by": "hyperpod-task-governance"}
COHORT = "hyperpod-cohort"
KINDS = {  # kind -> (plural, namespaced)
    "ClusterQueue": ("clusterqueues", False),
    "LocalQueue": ("localqueues", True),
    "ResourceFlavor": ("resourceflavors", False),
    "WorkloadPriorityClass": ("workloadpriorityclasses", False),
    "Workload": ("workloads", True),
}


def crd(kind: str) -> dict[str, Any]:
    plural, namespaced = KINDS[kind]
    return common.crd(GROUP, kind, plural, ("v1beta1", "v1beta2"), "Namespaced" if namespaced else "Cluster")


def amounts(instance_type: str, config: dict[str, Any]) -> dict[str, float]:
    """One ComputeQuotaResourceConfig in Kubernetes resources, as SageMaker fills what is left out (API reference
    ComputeQuotaResourceConfig: accelerators alone bring their share of vCPUs and memory; vCPUs alone their
    share of memory, memory alone its share of vCPUs, both with no accelerators; partitions their share as
    instance x (count x slices) / (GPUs x 7), "Allocating GPU partition quota" in the HyperPod GPU partitioning
    guide). With Count, whole instances; an amount beside it replaces that resource."""
    shape = shape_of(instance_type)
    device = "nvidia.com/gpu" if shape.gpus else "aws.amazon.com/neuron" if shape.neuron_devices else None
    per_acc = shape.gpus or shape.neuron_devices
    partition = config.get("AcceleratorPartition")
    acc, cpu, mem = 0.0, 0.0, 0.0
    if config.get("Count") is not None:
        n = int(config["Count"])
        acc, cpu, mem = float(n * per_acc), float(n * shape.vcpus), n * shape.memory_gib
    elif config.get("Accelerators") is not None and per_acc:
        share = int(config["Accelerators"]) / per_acc
        acc, cpu, mem = float(config["Accelerators"]), share * shape.vcpus, share * shape.memory_gib
    elif partition and shape.gpus:
        share = int(partition["Count"]) * int(partition["Type"].removeprefix("mig-").split("g.")[0]) / (shape.gpus * 7)
        cpu, mem = share * shape.vcpus, share * shape.memory_gib
    elif config.get("VCpu") is not None and config.get("MemoryInGiB") is None:
        cpu = float(config["VCpu"])
        mem = cpu / shape.vcpus * shape.memory_gib
    elif config.get("MemoryInGiB") is not None and config.get("VCpu") is None:
        mem = float(config["MemoryInGiB"])
        cpu = mem / shape.memory_gib * shape.vcpus
    acc = float(config["Accelerators"]) if config.get("Accelerators") is not None else acc
    cpu = float(config["VCpu"]) if config.get("VCpu") is not None else cpu
    mem = float(config["MemoryInGiB"]) if config.get("MemoryInGiB") is not None else mem
    out = {device: acc} if device else {}
    out.update(cpu=cpu, memory=mem)
    if partition:
        out[f"nvidia.com/{partition['Type']}"] = float(partition["Count"])
    return out


def _quantity(name: str, value: float) -> str:
    if name == "memory":
        return f"{int(value)}Gi"
    if name == "cpu" and value != int(value):
        return f"{int(value * 1000)}m"
    return str(int(value))


def _resources(instance_type: str, config: dict[str, Any]) -> dict[str, str]:
    return {name: _quantity(name, value) for name, value in amounts(instance_type, config).items()}


def _meta(name: str, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": dict(MANAGED)}
    if namespace:
        meta["namespace"] = namespace
    return meta


def team_objects(quota: dict[str, Any]) -> list[dict[str, Any]]:
    """The Namespace, ResourceFlavors, ClusterQueue and LocalQueue the add-on makes for one compute quota."""
    team = quota["ComputeQuotaTarget"]["TeamName"]
    namespace = f"hyperpod-ns-{team}"
    config = quota.get("ComputeQuotaConfig") or {}
    sharing = config.get("ResourceSharingConfig") or {"Strategy": "LendAndBorrow"}
    per_type = {r["InstanceType"]: amounts(r["InstanceType"], r) for r in config.get("ComputeQuotaResources") or []}
    caps = {r["InstanceType"]: amounts(r["InstanceType"], r) for r in sharing.get("AbsoluteBorrowLimits") or []}
    percent = int(sharing.get("BorrowLimit") or 50)
    flavors = []
    for instance_type, resources in sorted(per_type.items()):
        entries = []
        for name in sorted(resources):
            nominal = resources[name]
            entry: dict[str, Any] = {"name": name, "nominalQuota": _quantity(name, nominal)}
            if sharing.get("Strategy") == "DontLend":
                entry["lendingLimit"] = "0"
            if sharing.get("Strategy") in ("DontLend", "Lend"):
                entry["borrowingLimit"] = "0"
            elif name in caps.get(instance_type, {}):
                # AbsoluteBorrowLimits cap a resource "regardless of the percentage-based BorrowLimit"
                # (API reference ResourceSharingConfig)
                entry["borrowingLimit"] = _quantity(name, caps[instance_type][name])
            else:
                entry["borrowingLimit"] = _quantity(name, nominal * percent / 100)
            entries.append(entry)
        flavors.append({"name": instance_type, "resources": entries})
    covered = sorted({name for resources in per_type.values() for name in resources})
    for flavor in flavors:  # Kueue: every flavor of a resource group lists the group's covered resources, in order
        have = {e["name"] for e in flavor["resources"]}
        flavor["resources"] += [
            {"name": n, "nominalQuota": "0", "borrowingLimit": "0"} for n in covered if n not in have
        ]
        flavor["resources"].sort(key=lambda e: covered.index(e["name"]))
    queue = {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "ClusterQueue",
        "metadata": _meta(f"{namespace}-clusterqueue"),
        "spec": {
            "cohort": COHORT,
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
            "preemption": {
                "withinClusterQueue": config.get("PreemptTeamTasks") or "LowerPriority",
                "reclaimWithinCohort": "Any",
                "borrowWithinCohort": {"policy": "Never"},
            },
            "fairSharing": {"weight": str(quota["ComputeQuotaTarget"].get("FairShareWeight") or 0)},
            "resourceGroups": [{"coveredResources": covered, "flavors": flavors}] if flavors else [],
            "stopPolicy": "None" if quota.get("ActivationState", "Enabled") == "Enabled" else "Hold",
        },
    }
    objects: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": namespace, "labels": {**MANAGED, "kubernetes.io/metadata.name": namespace}},
        }
    ]
    objects += [
        {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": "ResourceFlavor",
            "metadata": _meta(instance_type),
            "spec": {"nodeLabels": {"node.kubernetes.io/instance-type": instance_type}},
        }
        for instance_type in sorted(per_type)
    ]
    objects.append(queue)
    objects.append(
        {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": "LocalQueue",
            "metadata": _meta(f"{namespace}-localqueue", namespace),
            "spec": {"clusterQueue": f"{namespace}-clusterqueue"},
        }
    )
    return objects


def priority_objects(config: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": "WorkloadPriorityClass",
            "metadata": _meta(f"{p['Name']}-priority"),
            "value": int(p["Weight"]),
            "description": f"HyperPod task governance priority class {p['Name']}",
        }
        for p in (config.get("SchedulerConfig") or {}).get("PriorityClasses") or []
    ]


def _hyperpod(cluster_arn: str) -> Any:
    from moto.sagemaker.models import sagemaker_backends

    parts = cluster_arn.split(":")
    try:
        backend = sagemaker_backends[parts[4]][parts[3]]
    except (IndexError, KeyError):
        return None
    return next((c for c in list(backend.clusters.values()) if getattr(c, "arn", None) == cluster_arn), None)


def _eks_name(cluster_arn: str) -> str | None:
    return getattr(_hyperpod(cluster_arn), "eks_cluster_name", None)


IDLE_QUEUE = "hyperpod-idle-clusterqueue"  # the sandbox's name: AWS does not document how the add-on does it


def idle_queue(cluster_arn: str, quotas: list[dict[str, Any]]) -> dict[str, Any] | None:
    """With IdleResourceSharing Enabled, the compute no team is allocated ("unallocated resources are
    automatically calculated and made available for entities to borrow", API reference SchedulerConfig) as a
    ClusterQueue of the cohort that admits nothing of its own and lends all it has."""
    cluster = _hyperpod(cluster_arn)
    if cluster is None:
        return None
    free = {t: amounts(t, {"Count": n}) for t, n in tg.capacity(cluster).items()}
    for quota in quotas:
        if quota.get("ActivationState", "Enabled") != "Enabled":
            continue
        for r in (quota.get("ComputeQuotaConfig") or {}).get("ComputeQuotaResources") or []:
            for name, value in amounts(r["InstanceType"], r).items():
                if r["InstanceType"] in free:
                    free[r["InstanceType"]][name] = max(0.0, free[r["InstanceType"]].get(name, 0.0) - value)
    covered = sorted({name for resources in free.values() for name in resources})
    flavors = [
        {
            "name": t,
            "resources": [
                {"name": n, "nominalQuota": _quantity(n, resources.get(n, 0.0)), "borrowingLimit": "0"} for n in covered
            ],
        }
        for t, resources in sorted(free.items())
    ]
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "ClusterQueue",
        "metadata": _meta(IDLE_QUEUE),
        "spec": {
            "cohort": COHORT,
            "namespaceSelector": {"matchLabels": {"sagemaker.amazonaws.com/idle-capacity": "never-matches"}},
            "resourceGroups": [{"coveredResources": covered, "flavors": flavors}] if flavors else [],
        },
    }


def desired(eks_cluster: str) -> list[dict[str, Any]]:
    """Every object the add-on keeps on that EKS cluster, from SageMaker's configs and quotas."""
    out: list[dict[str, Any]] = []
    quotas = [tg.describe_quota(e) for e in tg.live("compute-quota") if _eks_name(e.cluster_arn) == eks_cluster]
    for entity in tg.live("cluster-scheduler-config"):
        if _eks_name(entity.cluster_arn) == eks_cluster:
            config = tg.describe_config(entity)
            out += priority_objects(config)
            if (config.get("SchedulerConfig") or {}).get("IdleResourceSharing") == "Enabled":
                out += [q for q in [idle_queue(entity.cluster_arn, quotas)] if q is not None]
    for quota in quotas:
        out += team_objects(quota)
    # ResourceFlavors are shared: one per instance type, however many teams use it.
    seen: set[tuple[str, str]] = set()
    unique = []
    for obj in out:
        key = (obj["kind"], obj["metadata"]["name"])
        if key not in seen:
            seen.add(key)
            unique.append(obj)
    return unique


def _resource(obj: dict[str, Any]) -> str:
    if obj["kind"] == "Namespace":
        return "v1/namespaces"
    return f"{GROUP}/{VERSION}/{KINDS[obj['kind']][0]}"


def _same(found: dict[str, Any], want: dict[str, Any]) -> bool:
    return (
        all(found.get(k) == want.get(k) for k in ("spec", "value", "description"))
        and ((found.get("metadata") or {}).get("labels") or {}).items() >= want["metadata"]["labels"].items()
    )


def _reconciler(want: list[dict[str, Any]]) -> Any:
    async def reconcile(emulator: Any) -> None:
        for kind in KINDS:
            await common.install_crd(emulator, crd(kind))
        keep = set()
        for obj in want:
            meta = obj["metadata"]
            keep.add((_resource(obj), meta.get("namespace"), meta["name"]))
            found = emulator.get_object(_resource(obj), meta.get("namespace"), meta["name"])
            if found is None or not _same(found, obj):
                await emulator.put_object(_resource(obj), obj)
        for resource in [f"{GROUP}/{VERSION}/{plural}" for plural, _ in KINDS.values()] + ["v1/namespaces"]:
            for found in emulator.list_objects(resource):
                meta = found.get("metadata") or {}
                labels = meta.get("labels") or {}
                ours = all(labels.get(k) == v for k, v in MANAGED.items())
                if ours and (resource, meta.get("namespace"), meta["name"]) not in keep:
                    await emulator.delete_object(resource, meta.get("namespace"), meta["name"])
        await kueue_admission.admit_all(emulator)

    return reconcile


def _active(cluster: str) -> bool:
    from sandbox.aws.eks import find_cluster

    found = find_cluster(cluster)
    addon = found.addons.get(ADDON) if found is not None else None
    return addon is not None and addon.health()[0] == "ACTIVE"


def reconcile_all(fleet: Any) -> None:
    for name in fleet.names():
        if not _active(name):
            continue
        try:
            fleet.call(name, _reconciler(desired(name)))
        except Exception:  # a cluster being deleted, a loop shutting down: try again next tick
            log.debug("kueue reconcile failed for %s", name, exc_info=True)


def kueue_controller(fleet: Any, interval: float = 0.2) -> Periodic:
    return Periodic("sandbox-kueue", interval, lambda: reconcile_all(fleet))
