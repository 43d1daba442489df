"""GPU partitions (NVIDIA Multi-Instance GPU) HyperPod offers per instance type: each MIG profile and how many
instances of it one GPU holds.

AWS ("GPU partitioning with MIG on HyperPod",
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-gpu-partitioning.html) lists the
profiles for A100 (ml.p4d.24xlarge), H100 (ml.p5.48xlarge) and H200 (ml.p5e/p5en.48xlarge) with their counts
per GPU; the A100 80GB, B200 and GB200 profile names are the HyperPod CLI's
(sagemaker-hyperpod-cli ``src/sagemaker/hyperpod/training/constants.py``), with the per-GPU counts of NVIDIA's
MIG user guide ("Supported MIG Profiles", https://docs.nvidia.com/datacenter/tesla/mig-user-guide/), which
follows the same 7/4/3/2/1/1 pattern on every 7-slice GPU. A pod asks for one as ``nvidia.com/mig-<profile>``.
"""

from __future__ import annotations

from typing import Any, Literal

from launchpod.contracts.instance_groups import MigLayout, MigView
from launchpod.domain.errors import Conflict, InvalidInput

_PER_GPU_80 = (7, 4, 3, 2, 1, 1)  # 1g.small, 1g.large, 2g, 3g, 4g, 7g on the 7-slice GPUs with two 1g sizes


def _table(*profiles: str) -> dict[str, int]:
    return dict(zip(profiles, _PER_GPU_80, strict=True))


_A100_40 = {"1g.5gb": 7, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1, "7g.40gb": 1}
_A100_80 = _table("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")
_H100 = _table("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")
_H200 = _table("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb")
_B200 = _table("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb")
_GB200 = _table("1g.23gb", "1g.47gb", "2g.47gb", "3g.93gb", "4g.93gb", "7g.186gb")

PROFILES: dict[str, dict[str, int]] = {
    "ml.p4d.24xlarge": _A100_40,
    "ml.p4de.24xlarge": _A100_80,
    "ml.p5.48xlarge": _H100,
    "ml.p5e.48xlarge": _H200,
    "ml.p5en.48xlarge": _H200,
    "ml.p6-b200.48xlarge": _B200,
    "ml.p6e-gb200.36xlarge": _GB200,
}
SLICES_PER_GPU = 7  # every supported GPU has seven compute slices; "<n>g" uses n of them


def profiles(instance_type: str) -> dict[str, int]:
    """``mig-<profile>`` -> instances per GPU, for the type (empty: the type has no MIG)."""
    return {f"mig-{p}": n for p, n in PROFILES.get(instance_type, {}).items()}


def slices(profile: str) -> int:
    """The compute slices a profile uses: ``mig-3g.40gb`` -> 3."""
    return int(profile.removeprefix("mig-").split("g.", 1)[0])


# ------------------------------------------------------------------------------------ an instance group's layout
# HyperPod partitions a group's GPUs by the group's Kubernetes label ``nvidia.com/mig.config``, naming one
# configuration of the HyperPod Helm chart's ConfigMap ``default-mig-config`` (AWS, "Set up GPU partitions on
# HyperPod", https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-gpu-partitioning-setup.html;
# the ConfigMap is sagemaker-hyperpod-cli helm_chart/HyperPodHelmChart/charts/gpu-operator/config/
# default-mig-config.yaml): ``all-disabled`` (whole GPUs), ``all-<profile>`` (every GPU split into one profile)
# and ``mixed-<n>-<profile>-...`` (every GPU split into a mix). Whatever the layout, the chart runs the GPU
# Operator's device plugin with ``mig.strategy: mixed``, so pods ask for ``nvidia.com/mig-<profile>``
# (NVIDIA, "GPU Operator with MIG").
CONFIG_LABEL, STATE_LABEL = "nvidia.com/mig.config", "nvidia.com/mig.config.state"
DISABLED = "all-disabled"

# The mixes the chart ships, as instances of the 1g, 2g, 3g and 4g profiles per GPU (the 1g with the smaller
# memory). It ships them for the A100 40GB, H100/A100 80GB and H200 sizes; NVIDIA's placement rules make
# other sums of seven slices impossible on one GPU, so a mix outside this list is refused rather than left to
# fail on the node.
_MIXES = (
    (0, 0, 1, 1),
    (1, 1, 0, 1),
    (3, 0, 0, 1),
    (1, 1, 1, 0),
    (3, 0, 1, 0),
    (0, 2, 1, 0),
    (2, 1, 1, 0),
    (4, 0, 1, 0),
    (1, 3, 0, 0),
    (3, 2, 0, 0),
    (5, 1, 0, 0),
)
_MIXED_FAMILIES = ("1g.5gb", "1g.10gb", "1g.18gb")  # the chart's mixes exist for the GPUs whose 1g is one of these


def config_name(per_gpu: dict[str, int]) -> str:
    """The ConfigMap name of a layout (``mig-<profile>`` -> instances per GPU): ``all-1g.10gb`` for one
    profile at what a GPU holds, ``mixed-3-1g.10gb-1-4g.40gb`` (smallest slices first) for a mix."""
    parts = sorted(per_gpu.items(), key=lambda kv: (slices(kv[0]), kv[0]))
    if len(parts) == 1:
        return f"all-{parts[0][0].removeprefix('mig-')}"
    return "mixed-" + "-".join(f"{n}-{p.removeprefix('mig-')}" for p, n in parts)


def layout_of(config: str | None) -> dict[str, int] | None:
    """``mig-<profile>`` -> instances per GPU of a config name (None: none, or not of the chart's forms; {} for
    all-disabled). An ``all-<profile>`` of an unknown profile counts 0 per GPU."""
    if config is None:
        return None
    if config == DISABLED:
        return {}
    if config.startswith("all-"):
        profile = config.removeprefix("all-")
        per_gpu = next((t[profile] for t in PROFILES.values() if profile in t), 0)
        return {f"mig-{profile}": per_gpu}
    if not config.startswith("mixed-"):
        return None  # a configuration of another ConfigMap: its layout is not known here
    words = config.removeprefix("mixed-").split("-")
    return {f"mig-{words[i + 1]}": int(words[i]) for i in range(0, len(words) - 1, 2) if words[i].isdigit()}


def layout_problem(instance_type: str, per_gpu: dict[str, int]) -> str | None:
    """Why the type's GPUs cannot take the layout (None: they can)."""
    offered = profiles(instance_type)
    if not offered:
        types = ", ".join(PROFILES)
        return f"{instance_type}'s GPUs cannot be partitioned (MIG); HyperPod partitions {types}."
    unknown = [p for p in per_gpu if p not in offered]
    if unknown:
        return f"{instance_type} does not offer {', '.join(unknown)}; its MIG profiles: {', '.join(offered)}."
    if len(per_gpu) == 1:
        ((profile, n),) = per_gpu.items()
        return None if n == offered[profile] else f"one GPU holds {offered[profile]} {profile}, not {n}"
    shipped = {config_name(mix) for mix in mixes(instance_type)}
    if not shipped:
        return f"HyperPod's default-mig-config has no mixed layouts for {instance_type}'s GPU; give one profile."
    name = config_name(per_gpu)
    if name not in shipped:
        return f"{name} is not a mix HyperPod's default-mig-config ships for {instance_type}; it has " + ", ".join(
            sorted(shipped)
        )
    return None


def mixes(instance_type: str) -> list[dict[str, int]]:
    """The mixed layouts HyperPod's default-mig-config ships for the type's GPU (``mig-<profile>`` -> instances
    per GPU), in the chart's order; empty when it ships none."""
    offered = profiles(instance_type)
    small = next((p for p in offered if slices(p) == 1), None)
    if small is None or small.removeprefix("mig-") not in _MIXED_FAMILIES:
        return []
    by_slices = {slices(p): p for p in reversed(offered)}  # the smaller-memory profile of each slice count
    by_slices[1] = small
    return [{by_slices[s]: n for s, n in zip((1, 2, 3, 4), mix, strict=True) if n} for mix in _MIXES]


def partitions_per_node(gpus: int, per_gpu: dict[str, int]) -> dict[str, int]:
    """What a node of ``gpus`` GPUs advertises: ``mig-<profile>`` -> count."""
    return {p: gpus * n for p, n in per_gpu.items()}


def config_for(instance_type: str, layout: MigLayout) -> str:
    """The nvidia.com/mig.config value of ``layout`` on the type's GPUs; InvalidInput naming what they offer."""
    if layout.mode == "disabled":
        return DISABLED
    offered = profiles(instance_type)
    per_gpu = dict(layout.perGpu or {}) or {(one := str(layout.acceleratorPartitionType)): offered.get(one, 0)}
    problem = layout_problem(instance_type, per_gpu)
    if problem:
        field = "body.mig.perGpu" if layout.mode == "mixed" else "body.mig.acceleratorPartitionType"
        raise InvalidInput(problem, field=field, rule="mig_layout_of_type")
    return config_name(per_gpu)


def view(config: str | None, gpus: int) -> MigView | None:
    """What a group labelled ``config`` partitions its GPUs into (None: not labelled)."""
    per_gpu = layout_of(config)
    if config is None or per_gpu is None:
        return None
    mode: Literal["single", "mixed", "disabled"] = (
        "disabled" if not per_gpu else "single" if config.startswith("all-") else "mixed"
    )
    return MigView(config=config, mode=mode, perGpu=per_gpu, perNode=partitions_per_node(gpus, per_gpu))


_GPU_RESOURCES = ("nvidia.com/gpu", "nvidia.com/mig-")


def uses_gpus(pod: dict[str, Any]) -> bool:
    """A running or pending pod that asks for whole GPUs or partitions."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    for c in (pod.get("spec") or {}).get("containers") or []:
        resources = c.get("resources") or {}
        asked = {**(resources.get("requests") or {}), **(resources.get("limits") or {})}
        if any(k.startswith(_GPU_RESOURCES) and str(v) not in ("0", "") for k, v in asked.items()):
            return True
    return False


def refuse_while_in_use(group: str, config: str, pods: list[dict[str, Any]]) -> None:
    """HyperPod partitions only drained nodes: with jobs running, partitioning fails with a drain error
    ("Set up GPU partitions on HyperPod"). So a change is refused while pods on the group's nodes use GPUs,
    naming them, rather than left to fail on the nodes."""
    busy = sorted(f"{p['metadata'].get('namespace', 'default')}/{p['metadata']['name']}" for p in pods if uses_gpus(p))
    if not busy:
        return
    shown = ", ".join(busy[:10]) + (f" and {len(busy) - 10} more" if len(busy) > 10 else "")
    raise Conflict(
        f"Instance group {group}'s GPUs are in use by {shown}; HyperPod partitions ({config}) only nodes with no "
        "GPU work, so the change would fail on them. Stop or move those first (delete the jobs or endpoints, "
        "or drain the nodes), then change mig again.",
        details=[{"field": "body.mig", "rule": "drained_nodes", "message": f"pod {b} uses GPUs"} for b in busy],
    )


def check_partition(instance_type: str, gpus: int, profile: str, count: int, type_field: str, count_field: str) -> None:
    """A partition the type's GPUs offer, at most what one node holds (a pod runs on one node)."""
    offered = profiles(instance_type)
    if profile not in offered:
        raise InvalidInput(
            f"{instance_type} does not offer GPU partition {profile}; its MIG profiles: "
            f"{', '.join(offered) or 'none: its GPUs cannot be partitioned'}.",
            field=type_field,
            rule="mig_profile_of_type",
        )
    most = gpus * offered[profile]
    if count > most:
        raise InvalidInput(
            f"A {instance_type} node holds at most {most} {profile} partitions; {count} asked.",
            field=count_field,
            rule="mig_profile_of_type",
        )
