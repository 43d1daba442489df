"""A team's compute in resources, pure: what a quota guarantees per instance type once SageMaker's ratios fill
in what was left out, the checks against what the cluster's instance groups hold, and what the team's Kueue
ClusterQueue says it uses and borrows.

The ratios (API reference ComputeQuotaResourceConfig,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ComputeQuotaResourceConfig.html): accelerators
alone bring the same share of the type's vCPUs and memory ("16 out of 32 total accelerators ... the ratio of
0.5"); vCPUs alone their share of memory and no accelerators; memory alone its share of vCPUs and no
accelerators; partitions alone their share as the HyperPod CLI computes it, instance x (count x slices) /
(GPUs x 7) ("Allocating GPU partition quota",
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-gpu-partitioning.html). With Count,
whole instances; an amount given beside it replaces that resource (our reading: AWS does not say).

Usage comes from the ClusterQueue's ``status.flavorsUsage`` ({name, resources: [{name, total, borrowed}]},
Kueue's API reference, https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta1/#kueue-x-k8s-io-v1beta1-FlavorUsage).
"""

from __future__ import annotations

from typing import Any

from launchpod.contracts.task_governance import InstanceQuota, PartitionQuota, ResourceAmounts
from launchpod.domain import mig
from launchpod.domain.errors import InvalidInput
from launchpod.domain.jobs.hardware import Accelerators

GPU, NEURON = "nvidia.com/gpu", "aws.amazon.com/neuron"
_SUFFIX = {"": 1.0, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def _memory_gib(facts: Accelerators) -> float:
    return facts.memory_mib / 1024


def _round(value: float) -> float:
    return round(value, 2)


def guaranteed(quota: InstanceQuota, facts: Accelerators) -> ResourceAmounts:
    """What one ComputeQuotaResourceConfig reserves, every resource filled in as SageMaker does."""
    per_acc, per_cpu, per_mem = facts.per_node, facts.vcpus, _memory_gib(facts)
    partitions: dict[str, float] = {}
    acc: float
    cpu: float
    mem: float
    if quota.instanceCount is not None:
        acc, cpu, mem = quota.instanceCount * per_acc, quota.instanceCount * per_cpu, quota.instanceCount * per_mem
    elif quota.accelerators is not None and per_acc:
        share = quota.accelerators / per_acc
        acc, cpu, mem = quota.accelerators, share * per_cpu, share * per_mem
    elif quota.acceleratorPartition is not None and per_acc:
        p = quota.acceleratorPartition
        share = p.count * mig.slices(p.type) / (per_acc * mig.SLICES_PER_GPU)
        acc, cpu, mem = 0, share * per_cpu, share * per_mem
    elif quota.vCpu is not None and quota.memoryInGiB is None:
        acc, cpu, mem = 0, quota.vCpu, quota.vCpu / per_cpu * per_mem if per_cpu else 0
    elif quota.memoryInGiB is not None and quota.vCpu is None:
        acc, cpu, mem = 0, quota.memoryInGiB / per_mem * per_cpu if per_mem else 0, quota.memoryInGiB
    else:
        acc, cpu, mem = 0, 0.0, 0.0
    acc = quota.accelerators if quota.accelerators is not None else acc
    cpu = quota.vCpu if quota.vCpu is not None else cpu
    mem = quota.memoryInGiB if quota.memoryInGiB is not None else mem
    if quota.acceleratorPartition is not None:
        partitions[quota.acceleratorPartition.type] = quota.acceleratorPartition.count
    return _amounts(quota.instanceType, facts, acc, cpu, mem, partitions)


def _amounts(
    instance_type: str, facts: Accelerators, acc: float, cpu: float, mem: float, partitions: dict[str, float]
) -> ResourceAmounts:
    shares = [acc / facts.per_node if facts.per_node else 0, cpu / facts.vcpus if facts.vcpus else 0]
    shares.append(mem / _memory_gib(facts) if facts.memory_mib else 0)
    gpus = facts.gpus or 1
    per_gpu = mig.profiles(instance_type)
    shares += [n * mig.slices(p) / (gpus * mig.SLICES_PER_GPU) for p, n in partitions.items() if p in per_gpu]
    return ResourceAmounts(
        instanceType=instance_type,
        instanceCount=_round(max(shares)),
        accelerators=_round(acc),
        vCpu=_round(cpu),
        memoryInGiB=_round(mem),
        partitions={p: _round(n) for p, n in partitions.items()},
    )


def check(cluster: str, field: str, quota: InstanceQuota, instances: int, facts: Accelerators, offered: str) -> None:
    """422 when a resource config asks for more of a type than the cluster's ``instances`` of it hold, for
    accelerators on a type without any, or for a partition profile the type's GPU does not offer."""
    if quota.accelerators and not facts.per_node:
        raise InvalidInput(
            f"{quota.instanceType} has no accelerators; give it vCpu or memoryInGiB. Types with GPUs or Neuron"
            f" devices in {cluster}: {offered}.",
            field=f"{field}.accelerators",
            rule="at_most_0",
        )
    if quota.acceleratorPartition is not None:
        per_gpu = mig.profiles(quota.instanceType)
        p = quota.acceleratorPartition
        if p.type not in per_gpu:
            known = ", ".join(per_gpu) or "none: its GPUs cannot be partitioned"
            raise InvalidInput(
                f"{quota.instanceType} does not offer GPU partition {p.type}; its MIG profiles: {known}.",
                field=f"{field}.acceleratorPartition.type",
                rule="mig_profile_of_type",
            )
        most = instances * facts.gpus * per_gpu[p.type]
        if p.count > most:
            raise InvalidInput(
                f"{cluster}'s {instances} {quota.instanceType} hold at most {most} {p.type} partitions"
                f" ({per_gpu[p.type]} per GPU); a quota of {p.count} asks for more.",
                field=f"{field}.acceleratorPartition.count",
                rule=f"at_most_{most}",
            )
    want = guaranteed(quota, facts)
    limits = (
        ("instanceCount", quota.instanceCount or 0, instances, "instances"),
        ("accelerators", want.accelerators, instances * facts.per_node, facts.device),
        ("vCpu", want.vCpu, instances * facts.vcpus, "vCPUs"),
        ("memoryInGiB", want.memoryInGiB, _round(instances * _memory_gib(facts)), "GiB of memory"),
    )
    for name, asked, have, what in limits:
        if asked > have:
            have_text = f"{have:g}"
            raise InvalidInput(
                f"{cluster}'s {instances} {quota.instanceType} instances have {have_text} {what}; a quota of"
                f" {asked:g} asks for more. Use at most {have_text}, or add instances to its instance groups first.",
                field=f"{field}.{name}",
                rule=f"at_most_{int(have)}",
            )


def resource_config(quota: InstanceQuota) -> dict[str, Any]:
    """The ComputeQuotaResourceConfig SageMaker takes: only the fields given (SageMaker fills the rest)."""
    out: dict[str, Any] = {"InstanceType": quota.instanceType}
    for field, key in (("instanceCount", "Count"), ("accelerators", "Accelerators"), ("vCpu", "VCpu")):
        if getattr(quota, field) is not None:
            out[key] = getattr(quota, field)
    if quota.memoryInGiB is not None:
        out["MemoryInGiB"] = quota.memoryInGiB
    if quota.acceleratorPartition is not None:
        p = quota.acceleratorPartition
        out["AcceleratorPartition"] = {"Type": p.type, "Count": p.count}
    return out


def quota_of(config: dict[str, Any]) -> InstanceQuota:
    """A ComputeQuotaResourceConfig read back."""
    partition = config.get("AcceleratorPartition")
    return InstanceQuota(
        instanceType=config["InstanceType"],
        instanceCount=config.get("Count"),
        accelerators=config.get("Accelerators"),
        vCpu=config.get("VCpu"),
        memoryInGiB=config.get("MemoryInGiB"),
        acceleratorPartition=PartitionQuota(type=partition["Type"], count=partition["Count"]) if partition else None,
    )


# ---------------------------------------------------------------------------- the ClusterQueue's usage


def quantity(value: Any) -> float:
    """A Kubernetes quantity ("16", "500m", "2048Gi") as a number."""
    text = str(value).strip()
    digits = text.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return float(digits or 0) * _SUFFIX.get(text[len(digits) :], 1.0)


def usage(
    cluster_queue: dict[str, Any] | None, flavor_types: dict[str, str], facts: dict[str, Accelerators]
) -> tuple[list[ResourceAmounts], list[ResourceAmounts]]:
    """(used, borrowed) per instance type from ``status.flavorsUsage``; ``flavor_types`` maps a ResourceFlavor
    to the instance type its nodeLabels select. Types with nothing used are left out."""
    used: list[ResourceAmounts] = []
    borrowed: list[ResourceAmounts] = []
    for flavor in ((cluster_queue or {}).get("status") or {}).get("flavorsUsage") or []:
        instance_type = flavor_types.get(str(flavor.get("name")), str(flavor.get("name")))
        shape = facts.get(instance_type)
        if shape is None:
            continue
        for key, out in (("total", used), ("borrowed", borrowed)):
            amounts = {str(r["name"]): quantity(r.get(key) or 0) for r in flavor.get("resources") or []}
            if not any(amounts.values()):
                continue
            acc = amounts.get(GPU, 0.0) + amounts.get(NEURON, 0.0)
            mem = amounts.get("memory", 0.0) / 2**30
            parts = {n.removeprefix("nvidia.com/"): v for n, v in amounts.items() if n.startswith("nvidia.com/mig-")}
            out.append(_amounts(instance_type, shape, acc, amounts.get("cpu", 0.0), mem, parts))
    return used, borrowed
