"""GPU partitioning (MIG) on the sandbox's HyperPod nodes: an instance group labelled ``nvidia.com/mig.config``
advertises its GPUs' partitions as the NVIDIA GPU Operator does with the mixed strategy.

AWS ("GPU partitioning with MIG on HyperPod",
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-gpu-partitioning.html): the group's
``KubernetesConfig.Labels["nvidia.com/mig.config"]`` names a configuration of the HyperPod chart's
``default-mig-config`` (``all-disabled``, ``all-<profile>``, ``mixed-...``); the profiles and how many each GPU
holds are AWS's tables for A100, H100 and H200 (B200 and GB200 from the HyperPod CLI, with NVIDIA's per-GPU
counts, "Supported MIG Profiles", https://docs.nvidia.com/datacenter/tesla/mig-user-guide/). NVIDIA ("GPU
Operator with MIG", https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html):
with the mixed strategy each profile is the extended resource ``nvidia.com/mig-<profile>``, a partitioned GPU is
no longer a whole ``nvidia.com/gpu``, and ``nvidia.com/mig.config.state`` says ``success`` once applied,
``failed`` for a configuration the GPU cannot take. GPU Feature Discovery labels the node as that page's mixed
strategy example shows: ``nvidia.com/mig.strategy: mixed``, ``nvidia.com/gpu.count`` (the physical GPUs) and per
profile ``nvidia.com/mig-<profile>.count`` (on the node) and ``.slices.gi`` (compute slices each takes).
Which partition of which GPU a pod gets is the kubelet's (sandbox.controllers.devices).

A ``mixed-<n>-<profile>-...`` configuration (the chart's names: ``n`` instances of each profile on every GPU)
advertises each of its profiles; one whose profiles the GPU lacks, or whose slices pass the GPU's seven, is
``failed``.

Not modelled: the reboot, and the drain a change on a node with running work needs (AWS: partitioning such a
node fails with a drain error).
"""

from __future__ import annotations

_SEVEN = (7, 4, 3, 2, 1, 1)
_A100_40 = {"1g.5gb": 7, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1, "7g.40gb": 1}
_80GB = dict(zip(("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"), _SEVEN, strict=True))
_H200 = dict(zip(("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"), _SEVEN, strict=True))
_B200 = dict(zip(("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"), _SEVEN, strict=True))
_GB200 = dict(zip(("1g.23gb", "1g.47gb", "2g.47gb", "3g.93gb", "4g.93gb", "7g.186gb"), _SEVEN, strict=True))
PROFILES = {
    "ml.p4d.24xlarge": _A100_40,
    "ml.p4de.24xlarge": _80GB,
    "ml.p5.48xlarge": _80GB,
    "ml.p5e.48xlarge": _H200,
    "ml.p5en.48xlarge": _H200,
    "ml.p6-b200.48xlarge": _B200,
    "ml.p6e-gb200.36xlarge": _GB200,
}
CONFIG_LABEL, STATE_LABEL = "nvidia.com/mig.config", "nvidia.com/mig.config.state"


def apply(instance_type: str, gpus: int, labels: dict[str, str], *resources: dict[str, str]) -> None:
    """Set the state label and, for ``all-<profile>``, replace the GPUs by their partitions in each of
    ``resources`` (a Node's capacity and allocatable), in place."""
    config = labels.get(CONFIG_LABEL)
    if config is None:
        return
    if config == "all-disabled":
        labels[STATE_LABEL] = "success"
        return
    layout = _layout(instance_type, config)
    if not layout or not gpus:
        labels[STATE_LABEL] = "failed" if config.startswith(("all-", "mixed-")) else "pending"
        return
    labels[STATE_LABEL] = "success"
    labels.update({"nvidia.com/mig.strategy": "mixed", "nvidia.com/gpu.count": str(gpus)})
    for profile, per_gpu in layout.items():
        labels[f"nvidia.com/mig-{profile}.count"] = str(gpus * per_gpu)
        labels[f"nvidia.com/mig-{profile}.slices.gi"] = profile.split("g.", 1)[0]
    for amounts in resources:
        amounts["nvidia.com/gpu"] = "0"
        for profile, per_gpu in layout.items():
            amounts[f"nvidia.com/mig-{profile}"] = str(gpus * per_gpu)


def _layout(instance_type: str, config: str) -> dict[str, int] | None:
    """profile -> instances per GPU of the configuration on the type's GPU; None: the GPU cannot take it."""
    offered = PROFILES.get(instance_type, {})
    if config.startswith("all-"):
        profile = config.removeprefix("all-")
        return {profile: offered[profile]} if profile in offered else None
    if not config.startswith("mixed-"):
        return None
    words = config.removeprefix("mixed-").split("-")
    if len(words) % 2 or not all(n.isdigit() for n in words[::2]):
        return None
    layout = {p: int(n) for n, p in zip(words[::2], words[1::2], strict=True)}
    used = sum(int(p.split("g.", 1)[0]) * n for p, n in layout.items() if p in offered)
    return layout if all(p in offered for p in layout) and used <= 7 else None
