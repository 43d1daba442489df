"""EC2's facts about instance types as tests read them: AWS's DescribeInstanceTypes data that moto ships
(moto/ec2/resources/instance_types.json), parsed by the adapter's own parser, so a domain test sees what
Launchpod would read from EC2."""

from __future__ import annotations

from functools import cache

from launchpod.adapters.aws.instance_facts import accelerators, offered_types
from launchpod.domain.clusters.instance_types import DevicePlacement, to_ec2
from launchpod.domain.jobs.hardware import Accelerators
from moto.ec2.models.instance_types import INSTANCE_TYPES


def facts(instance_type: str) -> Accelerators:
    """One type's facts, as DescribeInstanceTypes answers (KeyError: EC2 does not describe it)."""
    return accelerators(INSTANCE_TYPES[to_ec2(instance_type)])


@cache
def placement() -> DevicePlacement:
    """Where the device plugins go for every type HyperPod offers that EC2 describes."""
    return DevicePlacement.of(facts(t) for t in offered_types() if to_ec2(t) in INSTANCE_TYPES)
