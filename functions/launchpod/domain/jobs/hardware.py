"""What one node of an instance type carries: GPUs, Neuron devices, EFA interfaces and local NVMe.

The facts come from EC2's DescribeInstanceTypes for the underlying EC2 type (HyperPod's types are EC2's
with "ml." in front): ``GpuInfo``, ``NeuronInfo``, ``NetworkInfo.EfaInfo.MaximumEfaInterfaces`` and
``InstanceStorageInfo.NvmeSupport``
(https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_InstanceTypeInfo.html), read by
``launchpod.adapters.aws.instance_facts``. The domain never keeps its own table of them: a table once
listed 15 types, and a job on any other GPU type asked for no GPU and no EFA.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Accelerators:
    instance_type: str
    gpus: int = 0
    neuron: int = 0
    efa: int = 0
    nvme: bool = False  # has local NVMe instance store (mounted by HyperPod at /opt/dlami/nvme)
    gpu_maker: str | None = None  # "NVIDIA"
    gpu_model: str | None = None  # "H100"
    gpu_memory_mib: int = 0  # per GPU
    neuron_model: str | None = None  # "Trainium2"
    vcpus: int = 0
    memory_mib: int = 0

    @property
    def per_node(self) -> int:
        """Accelerators per node: GPUs, or Neuron devices on Trainium and Inferentia."""
        return self.gpus or self.neuron

    @property
    def nvidia(self) -> bool:
        return bool(self.gpus) and self.gpu_maker == "NVIDIA"

    @property
    def device(self) -> str:
        return "GPUs" if self.gpus else "Neuron devices" if self.neuron else "accelerators"
