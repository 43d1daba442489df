"""DescribeInstanceTypeOfferings filtered by instance type without testing every offering of the Region.

moto holds each Region's offerings as one list (6,436 for us-east-1's zones) and tests each against the
filters, each test a membership in the filter's list of values: a call filtered to 100 instance types
(Launchpod's catalog asks 100 to a call) made about 640,000 comparisons, half of the catalog listing's
sandbox CPU. EC2's answer depends only on the offerings that have one of the types asked for, so those
are picked by type from an index built once per Region and location type (the table is static), then
tested by moto's own filter, in the table's order: the same offerings in the same order.

The answer is then written out (EC2's query protocol, XML) by moto's generic serializer, which picks each
offering's members through the botocore shape and emits them through xmltodict: 20 ms of CPU for a call's
few hundred offerings, most of what the call then cost. moto's serializer still writes the answer's envelope
(the root element, its namespace, the request id and headers) around an empty set, and the offerings, three
text members each in the shape's order, go into it as moto writes them.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from sandbox.aws.core import once, patch

# InstanceTypeOffering's members in the shape's order, with their XML names (botocore's ec2 service model)
MEMBERS = (("InstanceType", "instanceType"), ("LocationType", "locationType"), ("Location", "location"))
EMPTY_SET = "<instanceTypeOfferingSet/>"


def offerings_xml(offerings: list[dict[str, Any]]) -> str | None:
    """The ``instanceTypeOfferingSet`` element of ``offerings`` as moto writes it, or None for an offering
    this does not write the way moto would (a member missing or not text): then moto writes the answer."""
    parts = ["<instanceTypeOfferingSet>"]
    for offering in offerings:
        if len(offering) != len(MEMBERS):
            return None
        parts.append("<item>")
        for member, tag in MEMBERS:
            value = offering.get(member)
            if type(value) is not str or not value:
                return None
            parts.append(f"<{tag}>{escape(value)}</{tag}>")
        parts.append("</item>")
    parts.append("</instanceTypeOfferingSet>")
    return "".join(parts) if offerings else EMPTY_SET


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
    _install_answer()


def _install_answer() -> None:
    from moto.core.responses import ActionResult
    from moto.ec2.responses.instances import InstanceResponse

    original = InstanceResponse.describe_instance_type_offerings

    def describe_instance_type_offerings(self: Any) -> Any:
        found = self.ec2_backend.describe_instance_type_offerings(
            self._get_param("LocationType"), self._filters_from_querystring()
        )
        items = offerings_xml(found)
        if items is None:
            return ActionResult({"InstanceTypeOfferings": found})
        status, headers, body = self.serialized(ActionResult({"InstanceTypeOfferings": []}))
        if status != 200 or not isinstance(body, str) or body.count(EMPTY_SET) != 1:
            return ActionResult({"InstanceTypeOfferings": found})
        return body.replace(EMPTY_SET, items), headers  # moto answers (body, headers) with status 200

    describe_instance_type_offerings.__wrapped__ = original  # type: ignore[attr-defined]
    patch(InstanceResponse, "describe_instance_type_offerings", describe_instance_type_offerings)
