"""DescribeInstanceTypeOfferings filtered by instance type without testing every offering of the Region.

moto holds each Region's offerings as one list (6,436 for us-east-1's zones) and tests each against the
filters, each test a membership in the filter's list of values: a call filtered to 100 instance types
(Launchpod's catalog asks 100 to a call) made about 640,000 comparisons, half of the catalog listing's
sandbox CPU. EC2's answer depends only on the offerings that have one of the types asked for, so those
are picked by type from an index built once per Region and location type (the table is static), then
tested by moto's own filter, in the table's order: the same offerings in the same order.
"""

from __future__ import annotations

from typing import Any

from sandbox.aws.core import once, patch


@once
def install() -> None:
    """Patch moto's InstanceTypeOfferingBackend (idempotent)."""
    from moto.ec2.models import instance_types

    backend = instance_types.InstanceTypeOfferingBackend
    original = backend.describe_instance_type_offerings
    by_type: dict[tuple[str, str], dict[str, list[int]]] = {}

    def describe_instance_type_offerings(
        self: Any, location_type: str | None = None, filters: dict[str, Any] | None = None
    ) -> list[Any]:
        wanted = (filters or {}).get("instance-type")
        if not wanted:
            return list(original(self, location_type, filters))
        kind = location_type or "region"
        table = instance_types.INSTANCE_TYPE_OFFERINGS[kind].get(self.region_name, [])
        index = by_type.get((kind, self.region_name))
        if index is None:
            index = {}
            for position, offering in enumerate(table):
                index.setdefault(offering.get("InstanceType"), []).append(position)
            by_type[(kind, self.region_name)] = index
        positions = sorted(p for name in set(wanted) for p in index.get(name, ()))
        return [table[p] for p in positions if self.matches_filters(table[p], filters, kind)]

    describe_instance_type_offerings.__wrapped__ = original  # type: ignore[attr-defined]
    patch(backend, "describe_instance_type_offerings", describe_instance_type_offerings)
