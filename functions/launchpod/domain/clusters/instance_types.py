"""HyperPod instance types and their EC2 names (HyperPod prefixes EC2's with "ml.")."""

from __future__ import annotations

from launchpod.domain.jobs import hardware

# Accelerated and general-purpose types HyperPod clusters use (SageMaker ClusterInstanceType).
HYPERPOD_INSTANCE_TYPES: tuple[str, ...] = (
    "ml.p4d.24xlarge",
    "ml.p4de.24xlarge",
    "ml.p5.48xlarge",
    "ml.p5e.48xlarge",
    "ml.p5en.48xlarge",
    "ml.p6-b200.48xlarge",
    "ml.g5.8xlarge",
    "ml.g5.12xlarge",
    "ml.g5.48xlarge",
    "ml.g6.12xlarge",
    "ml.g6.48xlarge",
    "ml.g6e.12xlarge",
    "ml.g6e.48xlarge",
    "ml.trn1.32xlarge",
    "ml.trn2.48xlarge",
    "ml.c5.2xlarge",
    "ml.m5.2xlarge",
    "ml.m5.12xlarge",
)


def to_ec2(instance_type: str) -> str:
    return instance_type.removeprefix("ml.")


def to_sagemaker(ec2_type: str) -> str:
    return f"ml.{ec2_type}"


# Accelerators by family, for placing device plugins only where the hardware is.
NVIDIA_GPU_TYPES: tuple[str, ...] = tuple(
    t
    for t in HYPERPOD_INSTANCE_TYPES
    if t.split(".")[1].split("-")[0] in ("p4d", "p4de", "p5", "p5e", "p5en", "p6", "g5", "g6", "g6e")
)
NEURON_TYPES: tuple[str, ...] = ("ml.trn1.32xlarge", "ml.trn2.48xlarge", "ml.inf2.24xlarge", "ml.inf2.48xlarge")
# The EFA device plugin goes where a job's pods may ask for ``vpc.amazonaws.com/efa``: every type with EFA
# interfaces in the one table of them (launchpod.domain.jobs.hardware, from EC2's EFA guide). A second list
# here once left out the g5/g6/g6e 8xlarge and 12xlarge sizes, whose EFA pods then found no plugin.
EFA_TYPES: tuple[str, ...] = tuple(t for t in HYPERPOD_INSTANCE_TYPES if hardware.of(t).efa)
