"""The instance types HyperPod offers, and what each carries, from AWS rather than a table of our own.

HyperPod's types: the ``ClusterInstanceType`` enumeration of SageMaker's API as the SDK's service model
carries it (CreateCluster's ``InstanceType``,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterInstanceGroupSpecification.html), so
a newer SDK in the layer brings newer types. What each carries: EC2's DescribeInstanceTypes for the
underlying EC2 type (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypes.html;
the ``instance-type`` filter omits types the region does not know instead of failing the call). The facts
do not change while an execution environment lives, so each environment reads them once.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call
from launchpod.domain.clusters.instance_types import to_ec2, to_sagemaker
from launchpod.domain.errors import InvalidInput
from launchpod.domain.jobs.hardware import Accelerators


@cache
def offered_types() -> tuple[str, ...]:
    """Every instance type SageMaker HyperPod clusters take, as the SDK's model of the API lists them."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("sagemaker")
    return tuple(model.shape_for("ClusterInstanceType").enum)


def accelerators(info: dict[str, Any]) -> Accelerators:
    """One DescribeInstanceTypes ``InstanceTypeInfo`` as the facts Launchpod uses."""
    gpus = (info.get("GpuInfo") or {}).get("Gpus") or []
    neuron = (info.get("NeuronInfo") or {}).get("NeuronDevices") or []
    storage = info.get("InstanceStorageInfo") or {}
    efa = ((info.get("NetworkInfo") or {}).get("EfaInfo") or {}).get("MaximumEfaInterfaces") or 0
    first_gpu = gpus[0] if gpus else {}
    return Accelerators(
        instance_type=to_sagemaker(info["InstanceType"]),
        gpus=sum(int(g.get("Count") or 0) for g in gpus),
        neuron=sum(int(d.get("Count") or 0) for d in neuron),
        efa=int(efa),
        nvme=storage.get("NvmeSupport") in ("required", "supported") and bool(storage.get("Disks")),
        gpu_maker=first_gpu.get("Manufacturer"),
        gpu_model=first_gpu.get("Name"),
        gpu_memory_mib=int((first_gpu.get("MemoryInfo") or {}).get("SizeInMiB") or 0),
        neuron_model=neuron[0].get("Name") if neuron else None,
        vcpus=int((info.get("VCpuInfo") or {}).get("DefaultVCpus") or 0),
        memory_mib=int((info.get("MemoryInfo") or {}).get("SizeInMiB") or 0),
    )


class InstanceFacts:
    """EC2's facts about HyperPod's instance types, read once per execution environment (runtime.wiring
    builds one)."""

    def __init__(self) -> None:
        self.ec2 = client("ec2")
        self._lock = threading.Lock()
        self._known: dict[str, Accelerators] = {}
        self._complete = False

    def _describe(self, instance_types: list[str]) -> None:
        found: dict[str, Accelerators] = {}
        with aws_call("ec2:DescribeInstanceTypes"):
            for start in range(0, len(instance_types), 100):
                chunk = [to_ec2(t) for t in instance_types[start : start + 100]]
                pages = self.ec2.get_paginator("describe_instance_types").paginate(
                    Filters=[{"Name": "instance-type", "Values": chunk}]
                )
                for page in pages:
                    for info in page["InstanceTypes"]:
                        facts = accelerators(info)
                        found[facts.instance_type] = facts
        with self._lock:
            self._known.update(found)

    def all(self) -> dict[str, Accelerators]:
        """Every type HyperPod offers that EC2 describes in this region."""
        if not self._complete:
            self._describe(list(offered_types()))
            self._complete = True
        offered = set(offered_types())
        return {t: a for t, a in self._known.items() if t in offered}

    def of(self, instance_type: str) -> Accelerators:
        """The facts of one type; a type EC2 does not describe here is refused by name."""
        if instance_type not in self._known and not self._complete:
            self._describe([instance_type])
        found = self._known.get(instance_type)
        if found is None:
            raise InvalidInput(
                f"EC2 does not describe {instance_type} in this region, so Launchpod cannot tell its GPUs, "
                "Neuron devices or EFA interfaces; choose a type the catalog lists (GET /api/catalog/instance-types).",
                field="body.instanceType",
                rule="described_by_ec2",
            )
        return found
