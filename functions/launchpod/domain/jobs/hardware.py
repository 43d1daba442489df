"""Accelerators and EFA interfaces per HyperPod instance type, as AWS publishes them.

GPU and Neuron device counts: "Accelerated computing instance specifications"
(https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html). EFA interface counts: the "Maximum EFA
interfaces" column of "Network specifications - accelerated computing"
(https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html#ac_network) and "Supported instance types"
in the EFA guide (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-instance-types).
Local NVMe: the "Instance store volumes" column of the same page. A type not listed has none of them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Accelerators:
    gpus: int = 0
    neuron: int = 0
    efa: int = 0
    nvme: bool = False  # has local NVMe instance store (mounted by HyperPod at /opt/dlami/nvme)


TABLE: dict[str, Accelerators] = {
    "ml.p4d.24xlarge": Accelerators(gpus=8, efa=4, nvme=True),
    "ml.p4de.24xlarge": Accelerators(gpus=8, efa=4, nvme=True),
    "ml.p5.48xlarge": Accelerators(gpus=8, efa=32, nvme=True),
    "ml.p5e.48xlarge": Accelerators(gpus=8, efa=32, nvme=True),
    "ml.p5en.48xlarge": Accelerators(gpus=8, efa=16, nvme=True),
    "ml.p6-b200.48xlarge": Accelerators(gpus=8, efa=8, nvme=True),
    "ml.g5.8xlarge": Accelerators(gpus=1, efa=1, nvme=True),
    "ml.g5.12xlarge": Accelerators(gpus=4, efa=1, nvme=True),
    "ml.g5.48xlarge": Accelerators(gpus=8, efa=1, nvme=True),
    "ml.g6.12xlarge": Accelerators(gpus=4, efa=1, nvme=True),
    "ml.g6.48xlarge": Accelerators(gpus=8, efa=1, nvme=True),
    "ml.g6e.12xlarge": Accelerators(gpus=4, efa=1, nvme=True),
    "ml.g6e.48xlarge": Accelerators(gpus=8, efa=1, nvme=True),
    "ml.trn1.32xlarge": Accelerators(neuron=16, efa=8, nvme=True),
    "ml.trn2.48xlarge": Accelerators(neuron=16, efa=16, nvme=True),
}


def of(instance_type: str) -> Accelerators:
    return TABLE.get(instance_type, Accelerators())


def per_node(instance_type: str) -> int:
    """Accelerators per node: GPUs, or Neuron devices on Trainium."""
    acc = of(instance_type)
    return acc.gpus or acc.neuron
