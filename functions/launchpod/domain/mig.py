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
