"""The one subnet planner: carves subnets out of a VPC so they overlap nothing already there.

Every capacity path (the control plane's subnets now, HyperPod's /20 compute subnets later) asks
this planner, so two paths can never hand out the same range.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from launchpod.domain.errors import PermanentError

DEFAULT_VPC_CIDR = "10.192.0.0/16"


@dataclass(frozen=True)
class Subnet:
    """A VPC subnet as Launchpod reads it. The Subnets port (adapters.aws.ec2) builds it from DescribeSubnets'
    answer (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_Subnet.html)."""

    id: str  # SubnetId
    zone: str  # AvailabilityZone, such as "us-east-1a"
    vpc_id: str
    cidr: str  # CidrBlock, its IPv4 range
    tags: dict[str, str] = field(default_factory=dict)


def plan_subnets(vpc_cidr: str, taken: Iterable[str], prefixes: Sequence[int]) -> list[str]:
    """Pick one free block per requested prefix length inside ``vpc_cidr``, lowest address first.

    Larger blocks are placed first so small ones cannot fragment the space a large one needs;
    results come back in the order asked.
    """
    vpc = ipaddress.ip_network(vpc_cidr)
    used = [ipaddress.ip_network(c) for c in taken]
    chosen: dict[int, ipaddress.IPv4Network | ipaddress.IPv6Network] = {}
    for index in sorted(range(len(prefixes)), key=lambda i: prefixes[i]):
        prefix = prefixes[index]
        if prefix < vpc.prefixlen:
            raise PermanentError(f"A /{prefix} subnet cannot fit in the VPC {vpc_cidr}; use a larger VPC.")
        for candidate in vpc.subnets(new_prefix=prefix):
            if not any(candidate.overlaps(u) for u in used):
                chosen[index] = candidate
                used.append(candidate)
                break
        else:
            raise PermanentError(
                f"No free /{prefix} range is left in the VPC {vpc_cidr} "
                f"({len(used)} ranges in use); add a secondary CIDR or use a larger VPC."
            )
    return [str(chosen[i]) for i in range(len(prefixes))]
