"""Where a new group can go and how it is shaped: the zone offers the type, the group's zone fits its
subnet, EFA-only interfaces only on types with several EFA cards, threads per core by type."""

from __future__ import annotations

from collections.abc import Sequence

from launchpod.contracts.instance_groups import AddInstanceGroupRequest
from launchpod.domain.errors import InvalidInput

# EFA-capable network cards per instance type (EC2 User Guide, "Supported instance types" for EFA, and
# each family's "Network specifications"). EFA-only interfaces (NetworkInterface.InterfaceType efa-only)
# exist for the cards beyond the first, so a type needs several.
EFA_CARDS: dict[str, int] = {
    "ml.p4d.24xlarge": 4,
    "ml.p4de.24xlarge": 4,
    "ml.p5.48xlarge": 32,
    "ml.p5e.48xlarge": 32,
    "ml.p5en.48xlarge": 16,
    "ml.p6-b200.48xlarge": 8,
    "ml.trn1.32xlarge": 8,
    "ml.trn2.48xlarge": 16,
    "ml.g5.48xlarge": 1,
    "ml.g6.48xlarge": 1,
    "ml.g6e.48xlarge": 1,
}
EFA_ONLY_TYPES: tuple[str, ...] = tuple(sorted(t for t, cards in EFA_CARDS.items() if cards > 1))


def threads_per_core(instance_type: str) -> int:
    """The default when the request gives none: 1 (no simultaneous multithreading) on the EFA training types,
    as AWS advises for tightly coupled HPC and ML jobs (ParallelCluster's DisableSimultaneousMultithreading
    guidance); EC2's default of 2 elsewhere."""
    return 1 if EFA_CARDS.get(instance_type, 0) > 1 else 2


def check_placement(request: AddInstanceGroupRequest, zone: str, home_zone: str | None, offered: Sequence[str]) -> None:
    """422 naming the field when the zone does not offer the type, the cluster's subnet is in another zone
    and no dedicated subnet was asked for, or EFA-only is asked on a type that cannot have it."""
    if zone not in offered:
        where = ", ".join(offered) if offered else "no zone of this region"
        raise InvalidInput(
            f"Instance type {request.instanceType} is not offered in {zone}; offered in {where}.",
            field="body.availabilityZone" if request.availabilityZone else "body.instanceType",
            rule="offered_in_zone",
        )
    if home_zone is not None and zone != home_zone and not request.dedicatedSubnet:
        raise InvalidInput(
            f"The cluster's compute subnet is in {home_zone}; to place {request.group} in {zone} ask for "
            "dedicatedSubnet: true (a new /20 there), or leave availabilityZone out.",
            field="body.availabilityZone",
            rule="zone_of_subnet",
        )
    if request.efaOnly and request.instanceType not in EFA_ONLY_TYPES:
        raise InvalidInput(
            f"efaOnly needs an instance type with several EFA network cards; {request.instanceType} has "
            f"{EFA_CARDS.get(request.instanceType, 0)}. Types that can: {', '.join(EFA_ONLY_TYPES)}.",
            field="body.efaOnly",
            rule="efa_only_type",
        )
