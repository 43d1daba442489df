"""HyperPod instance types and their EC2 names (HyperPod prefixes EC2's with "ml.")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from launchpod.domain.jobs.hardware import Accelerators


def to_ec2(instance_type: str) -> str:
    return instance_type.removeprefix("ml.")


def to_sagemaker(ec2_type: str) -> str:
    return f"ml.{ec2_type}"


@dataclass(frozen=True)
class DevicePlacement:
    """Where each device plugin runs: the instance types with NVIDIA GPUs, with Neuron devices, with EFA.

    The EFA device plugin goes wherever a job's pods may ask for ``vpc.amazonaws.com/efa``: every type with
    EFA interfaces. A hand-kept list here once left out the g5/g6/g6e 8xlarge and 12xlarge sizes, whose EFA
    pods then found no plugin; the lists now come from EC2's facts about every type HyperPod offers.
    """

    nvidia: tuple[str, ...] = ()
    neuron: tuple[str, ...] = ()
    efa: tuple[str, ...] = ()

    @classmethod
    def of(cls, facts: Iterable[Accelerators]) -> DevicePlacement:
        every = sorted(facts, key=lambda a: a.instance_type)
        return cls(
            nvidia=tuple(a.instance_type for a in every if a.nvidia),
            neuron=tuple(a.instance_type for a in every if a.neuron),
            efa=tuple(a.instance_type for a in every if a.efa),
        )
