"""Where a new group can go and how it is shaped: the zone offers the type, the group's zone fits its
subnet, EFA-only interfaces only on types with several EFA cards, threads per core by type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from launchpod.contracts.instance_groups import AddInstanceGroupRequest
from launchpod.domain.errors import InvalidInput
from launchpod.domain.jobs.hardware import Accelerators

# EFA-only interfaces (NetworkInterface.InterfaceType efa-only) go on the network cards beyond the first
# ("Maximize network bandwidth on Amazon EC2 instances with multiple network cards",
# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html), so a type needs several EFA
# interfaces; EC2's MaximumEfaInterfaces for the type says how many (``Accelerators.efa``).


# Flexible groups and MinInstanceCount need continuous provisioning ("Continuous provisioning", SageMaker
# guide https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-scaling-eks.html).
CONTINUOUS_ONLY = {"instanceTypes": "a flexible group (instanceTypes)", "minInstanceCount": "minInstanceCount"}


class DepthAsked(Protocol):
    @property
    def instanceTypes(self) -> list[str] | None: ...
    @property
    def minInstanceCount(self) -> int | None: ...


def check_continuous(group: DepthAsked, continuous: bool, at: str, without: str) -> None:
    """422 naming the field when a group asks for what only continuous provisioning gives. ``at``: the group's
    field path; ``without``: why the cluster has no continuous provisioning, and what to do."""
    asked = [k for k in CONTINUOUS_ONLY if getattr(group, k) is not None]
    if asked and not continuous:
        raise InvalidInput(
            f"{' and '.join(CONTINUOUS_ONLY[k] for k in asked)} needs continuous provisioning, and {without}",
            field=f"{at}.{asked[0]}",
            rule="continuous_provisioning",
        )


def threads_per_core(acc: Accelerators) -> int:
    """The default when the request gives none: 1 (no simultaneous multithreading) on the EFA training types,
    as AWS advises for tightly coupled HPC and ML jobs (ParallelCluster's DisableSimultaneousMultithreading
    guidance); EC2's default of 2 elsewhere."""
    return 1 if acc.efa > 1 else 2


def check_placement(
    request: AddInstanceGroupRequest,
    acc: Accelerators | Mapping[str, Accelerators],
    zone: str,
    home_zone: str | None,
    offered: Sequence[str] | Mapping[str, Sequence[str]],
) -> None:
    """422 naming the field when the zone does not offer a type of the group, the cluster's subnet is in another
    zone and no dedicated subnet was asked for, or EFA-only is asked on a type that cannot have it. ``acc`` and
    ``offered`` are per type (a flexible group has several; a bare value stands for the one type)."""
    types = request.types
    accs = acc if isinstance(acc, Mapping) else {types[0]: acc}
    zones_of = offered if isinstance(offered, Mapping) else {types[0]: offered}
    for instance_type in types:
        where_offered = list(zones_of.get(instance_type) or [])
        if zone not in where_offered:
            where = ", ".join(where_offered) if where_offered else "no zone of this region"
            field = "body.instanceTypes" if request.instanceTypes else "body.instanceType"
            raise InvalidInput(
                f"Instance type {instance_type} is not offered in {zone}; offered in {where}."
                + (
                    " Leave it out of instanceTypes, or place the group where every type is."
                    if request.instanceTypes
                    else ""
                ),
                field="body.availabilityZone" if request.availabilityZone else field,
                rule="offered_in_zone",
            )
    if home_zone is not None and zone != home_zone and not request.dedicatedSubnet:
        raise InvalidInput(
            f"The cluster's compute subnet is in {home_zone}; to place {request.instanceGroup} in {zone} ask for "
            "dedicatedSubnet: true (a new /20 there), or leave availabilityZone out.",
            field="body.availabilityZone",
            rule="zone_of_subnet",
        )
    few = next((t for t in types if accs[t].efa <= 1), None)
    if request.efaOnly and few is not None:
        raise InvalidInput(
            f"efaOnly needs an instance type with several EFA interfaces; {few} has {accs[few].efa}. "
            "GET /api/catalog/instance-types lists each type's EFA interfaces (ml.p5.48xlarge has 32).",
            field="body.efaOnly",
            rule="efa_only_type",
        )
