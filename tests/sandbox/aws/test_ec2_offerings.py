"""Instance-type offerings looked up by type answer as moto's test of every offering does: the same
offerings in the same order, for every location type and with a zone filter beside the types; and the answer
written out directly is moto's, byte for byte."""

from __future__ import annotations

import pytest
from moto.ec2.models.instance_types import InstanceTypeOfferingBackend
from moto.ec2.responses.instances import InstanceResponse

from sandbox.aws.ec2.offerings import offerings_xml

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


def _answer(ec2, location_type: str | None, filters: list[dict]) -> tuple[int, dict, bytes]:
    """The raw HTTP answer (status, headers but the date and request id, body) and the parsed one's offerings."""
    seen: list = []

    def keep(http_response, **_):
        seen.append(http_response)

    ec2.meta.events.register("after-call.ec2.DescribeInstanceTypeOfferings", keep)
    try:
        ec2.describe_instance_type_offerings(
            **({"LocationType": location_type} if location_type else {}), Filters=filters
        )
    finally:
        ec2.meta.events.unregister("after-call.ec2.DescribeInstanceTypeOfferings", keep)
    (raw,) = seen
    headers = {k.lower(): v for k, v in raw.headers.items() if k.lower() not in ("date", "x-amzn-requestid")}
    return raw.status_code, headers, raw.content


@pytest.mark.parametrize(
    ("location_type", "filters"),
    [
        ("availability-zone", [{"Name": "instance-type", "Values": TYPES}]),
        (
            "availability-zone",
            [{"Name": "instance-type", "Values": TYPES}, {"Name": "location", "Values": ["us-east-1b"]}],
        ),
        ("availability-zone-id", [{"Name": "instance-type", "Values": ["p5.48xlarge"]}]),
        ("region", []),
        (None, [{"Name": "instance-type", "Values": ["p5*"]}]),
        ("availability-zone", [{"Name": "instance-type", "Values": ["ml.not-a-type"]}]),
    ],
)
def test_the_answer_written_directly_is_motos_byte_for_byte(client, monkeypatch, location_type, filters):
    ec2 = client("ec2")
    ours = _answer(ec2, location_type, filters)
    with monkeypatch.context() as moto:
        moto.setattr(
            InstanceResponse,
            "describe_instance_type_offerings",
            InstanceResponse.describe_instance_type_offerings.__wrapped__,
        )  # type: ignore[attr-defined]
        theirs = _answer(ec2, location_type, filters)
    assert ours == theirs
    assert ours[0] == 200


def test_an_offering_with_a_member_missing_or_not_text_is_left_to_moto():
    whole = {"InstanceType": "p5.48xlarge", "LocationType": "availability-zone", "Location": "us-east-1a"}
    assert offerings_xml([whole]) == (
        "<instanceTypeOfferingSet><item><instanceType>p5.48xlarge</instanceType>"
        "<locationType>availability-zone</locationType><location>us-east-1a</location></item></instanceTypeOfferingSet>"
    )
    assert offerings_xml([{k: v for k, v in whole.items() if k != "Location"}]) is None
    assert offerings_xml([{**whole, "Location": None}]) is None
    assert offerings_xml([{**whole, "Extra": "x"}]) is None
    assert offerings_xml([]) == "<instanceTypeOfferingSet/>"
