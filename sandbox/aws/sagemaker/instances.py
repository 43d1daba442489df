"""Hardware facts about HyperPod instance types, for the sandbox's simulated Kubernetes Nodes.

The HyperPod emulation (``sandbox.aws.sagemaker``) turns each running cluster instance into a Kubernetes
Node whose ``status.capacity`` tells schedulers what the machine offers: vCPUs, memory, NVIDIA GPUs
(``nvidia.com/gpu``), Neuron devices (``aws.amazon.com/neuron``) and EFA interfaces
(``vpc.amazonaws.com/efa``). The figures are EC2's own: DescribeInstanceTypes' data as moto ships it
(``moto/ec2/resources/instance_types.json``: ``VCpuInfo``, ``MemoryInfo``, ``GpuInfo``, ``NeuronInfo``,
``NetworkInfo.EfaInfo``, ``ProcessorInfo``), the same data the sandbox's EC2 answers Launchpod with. A type
that data lacks falls back to the published figures below, then to a guess from the size suffix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class InstanceShape:
    """What one instance offers the kubelet."""

    vcpus: int
    memory_gib: float
    gpus: int = 0
    neuron_devices: int = 0
    efa: int = 0
    arch: str = "amd64"
    cores_per_neuron_device: int = 2

    def capacity(self) -> dict[str, str]:
        """Kubernetes ``status.capacity`` of a Node of this shape."""
        out = {
            "cpu": str(self.vcpus),
            "memory": f"{int(self.memory_gib * 1024 * 1024)}Ki",
            "pods": "110" if self.vcpus >= 8 else "58",
            "ephemeral-storage": "104845292Ki",
            "hugepages-1Gi": "0",
            "hugepages-2Mi": "0",
        }
        if self.gpus:
            out["nvidia.com/gpu"] = str(self.gpus)
        if self.neuron_devices:
            out["aws.amazon.com/neuron"] = str(self.neuron_devices)
            out["aws.amazon.com/neuroncore"] = str(self.neuron_devices * self.cores_per_neuron_device)
        if self.efa:
            out["vpc.amazonaws.com/efa"] = str(self.efa)
        return out

    def allocatable(self) -> dict[str, str]:
        """Capacity minus what the kubelet and system daemons reserve (EKS AMI-style reservations)."""
        out = self.capacity()
        reserved_millicores = 60 + 10 * min(self.vcpus, 4) + (5 * max(self.vcpus - 4, 0)) // 2
        out["cpu"] = f"{self.vcpus * 1000 - reserved_millicores}m"
        memory_ki = int(self.memory_gib * 1024 * 1024)
        out["memory"] = f"{max(memory_ki - 1_048_576 - memory_ki // 50, memory_ki // 2)}Ki"
        out["ephemeral-storage"] = "95551679124"
        return out


# Published shapes of accelerated types HyperPod offers that moto's EC2 data may lack (GPU / Neuron / EFA
# counts per instance); EC2's data wins where it has the type.
_ACCELERATED: dict[str, InstanceShape] = {
    "p4d.24xlarge": InstanceShape(96, 1152, gpus=8, efa=4),
    "p4de.24xlarge": InstanceShape(96, 1152, gpus=8, efa=4),
    "p5.4xlarge": InstanceShape(16, 256, gpus=1),
    "p5.48xlarge": InstanceShape(192, 2048, gpus=8, efa=32),
    "p5e.48xlarge": InstanceShape(192, 2048, gpus=8, efa=32),
    "p5en.48xlarge": InstanceShape(192, 2048, gpus=8, efa=16),
    "p6-b200.48xlarge": InstanceShape(192, 2048, gpus=8, efa=8),
    "p6-b300.48xlarge": InstanceShape(192, 4096, gpus=8, efa=16),
    "p6e-gb200.36xlarge": InstanceShape(144, 960, gpus=4, efa=17, arch="arm64"),
    "trn1.32xlarge": InstanceShape(128, 512, neuron_devices=16, efa=8),
    "trn1n.32xlarge": InstanceShape(128, 512, neuron_devices=16, efa=16),
    "trn2.3xlarge": InstanceShape(12, 128, neuron_devices=1, cores_per_neuron_device=8),
    "trn2.48xlarge": InstanceShape(192, 2048, neuron_devices=16, efa=16, cores_per_neuron_device=8),
    "gr6.4xlarge": InstanceShape(16, 128, gpus=1),
    "gr6.8xlarge": InstanceShape(32, 256, gpus=1, efa=1),
}

# GPUs per size for the g families (g4dn, g5, g6, g6e, g7, g7e share the pattern).
_G_GPUS = {"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "12xlarge": 4, "16xlarge": 1, "24xlarge": 4}
_G_GPUS["48xlarge"] = 8
# GiB of memory per vCPU by family.
_MEMORY_PER_VCPU = {
    "c": 2.0,
    "m": 4.0,
    "r": 8.0,
    "i": 8.0,
    "t": 4.0,
    "g4dn": 4.0,
    "g5": 4.0,
    "g6": 4.0,
    "g6e": 8.0,
    "g7": 4.0,
    "g7e": 8.0,
}

_TYPE = re.compile(r"^ml\.(?P<family>[a-z0-9-]+)\.(?P<size>[a-z0-9]+)$")


def _vcpus(size: str) -> int:
    if size == "medium":
        return 1
    if size == "large":
        return 2
    if size == "xlarge":
        return 4
    match = re.fullmatch(r"(\d+)xlarge", size)
    return 4 * int(match.group(1)) if match else 4


def _from_ec2(info: dict[str, Any]) -> InstanceShape:
    gpus = (info.get("GpuInfo") or {}).get("Gpus") or []
    neuron = (info.get("NeuronInfo") or {}).get("NeuronDevices") or []
    archs = (info.get("ProcessorInfo") or {}).get("SupportedArchitectures") or ["x86_64"]
    return InstanceShape(
        vcpus=int(info["VCpuInfo"]["DefaultVCpus"]),
        memory_gib=info["MemoryInfo"]["SizeInMiB"] / 1024,
        gpus=sum(int(g.get("Count") or 0) for g in gpus),
        neuron_devices=sum(int(d.get("Count") or 0) for d in neuron),
        efa=int(((info.get("NetworkInfo") or {}).get("EfaInfo") or {}).get("MaximumEfaInterfaces") or 0),
        arch="arm64" if "arm64" in archs else "amd64",
        cores_per_neuron_device=int((neuron[0].get("CoreInfo") or {}).get("Count") or 2) if neuron else 2,
    )


def shape_of(instance_type: str) -> InstanceShape:
    """The shape of ``ml.<family>.<size>`` from EC2's data; types it lacks get their published figures or a
    general-purpose guess."""
    from moto.ec2.models.instance_types import INSTANCE_TYPES

    match = _TYPE.match(instance_type or "")
    if not match:
        return InstanceShape(4, 16)
    family, size = match["family"], match["size"]
    key = f"{family}.{size}"
    if key in INSTANCE_TYPES:
        return _from_ec2(INSTANCE_TYPES[key])
    if key in _ACCELERATED:
        return _ACCELERATED[key]
    vcpus = _vcpus(size)
    if family == "t3":
        vcpus = max(vcpus, 2)
        return InstanceShape(vcpus, {"medium": 4, "large": 8, "xlarge": 16, "2xlarge": 32}.get(size, 8))
    arch = "arm64" if re.fullmatch(r"[cmr][678]g", family) else "amd64"
    if family.startswith("g"):
        per_vcpu = _MEMORY_PER_VCPU.get(family, 4.0)
        efa = 1 if vcpus >= 32 else 0
        return InstanceShape(vcpus, vcpus * per_vcpu, gpus=_G_GPUS.get(size, 1), efa=efa)
    per_vcpu = _MEMORY_PER_VCPU.get(family[0], 4.0)
    if family == "c5n":
        per_vcpu = 2.625
    efa = 1 if family in {"c5n", "c6i", "m6i", "r6i", "c7g", "m7i", "r7i"} and vcpus >= 72 else 0
    return InstanceShape(vcpus, vcpus * per_vcpu, efa=efa, arch=arch)
