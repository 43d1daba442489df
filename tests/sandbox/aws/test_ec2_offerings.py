"""Instance-type offerings looked up by type answer as moto's test of every offering does: the same
offerings in the same order, for every location type and with a zone filter beside the types."""

from __future__ import annotations

import pytest
from moto.ec2.models.instance_types import InstanceTypeOfferingBackend

TYPES = ["p5.48xlarge", "g5.xlarge", "ml.not-a-type", "trn1.32xlarge", "c5.large", "g5.xlarge", "m5.xlarge"]


def _offerings(ec2, location_type: str, filters: list[dict]) -> list[tuple[str, str]]:
    pages = ec2.get_paginator("describe_instance_type_offerings").paginate(LocationType=location_type, Filters=filters)
    return [(o["InstanceType"], o["Location"]) for page in pages for o in page["InstanceTypeOfferings"]]


@pytest.mark.parametrize(
    ("location_type", "extra"),
    [
        ("availability-zone", []),
        ("availability-zone", [{"Name": "location", "Values": ["us-east-1b", "us-east-1d"]}]),
        ("availability-zone-id", []),
        ("region", [{"Name": "location", "Values": ["us-east-1"]}]),
    ],
)
def test_offerings_by_type_are_motos_in_its_order(client, monkeypatch, location_type, extra):
    ec2 = client("ec2")
    filters = [{"Name": "instance-type", "Values": TYPES}, *extra]
    ours = _offerings(ec2, location_type, filters)
    with monkeypatch.context() as moto:
        original = InstanceTypeOfferingBackend.describe_instance_type_offerings.__wrapped__  # type: ignore[attr-defined]
        moto.setattr(InstanceTypeOfferingBackend, "describe_instance_type_offerings", original)
        theirs = _offerings(ec2, location_type, filters)
    assert ours == theirs
    assert {t for t, _ in ours} >= {"p5.48xlarge", "g5.xlarge"}
