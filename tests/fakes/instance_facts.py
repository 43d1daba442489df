"""What each instance type carries, in memory: the InstanceFacts port (adapters.aws.instance_facts) over the
DescribeInstanceTypes data moto ships, parsed by the adapter's own parser (tests/instance_facts.py)."""

from __future__ import annotations

from launchpod.adapters.aws.instance_facts import offered_types
from launchpod.domain.clusters.instance_types import to_ec2
from launchpod.domain.errors import InvalidInput
from launchpod.domain.jobs.hardware import Accelerators
from moto.ec2.models.instance_types import INSTANCE_TYPES

from tests.instance_facts import facts


class Instances:
    """The InstanceFacts port over the same data."""

    def all(self) -> dict[str, Accelerators]:
        return {t: facts(t) for t in offered_types() if to_ec2(t) in INSTANCE_TYPES}

    def of(self, instance_type: str) -> Accelerators:
        if to_ec2(instance_type) not in INSTANCE_TYPES:
            raise InvalidInput(
                f"EC2 does not describe {instance_type} in this region, so Launchpod cannot tell its GPUs, "
                "Neuron devices or EFA interfaces; choose a type the catalog lists (GET /api/catalog/instance-types).",
                field="body.instanceType",
                rule="described_by_ec2",
            )
        return facts(instance_type)
