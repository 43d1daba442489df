"""What every part of the HyperPod emulation shares: the lock guarding its state, ARN patterns, botocore's
SageMaker model (the instance types HyperPod accepts), id makers, pagination and the zone placement of
instances in moto's EC2."""

from __future__ import annotations

import functools
import logging
import re
import string
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from moto.moto_api._internal import mock_random
from moto.sagemaker.exceptions import ValidationError

log = logging.getLogger("sandbox.aws.sagemaker")


LOCK = threading.RLock()

# The Kubernetes Nodes HyperPod registers: their names and labels ("Resilience-related Kubernetes labels by
# SageMaker HyperPod", developer guide).
COMPUTE_TYPE_LABEL = "sagemaker.amazonaws.com/compute-type"
CLUSTER_NAME_LABEL = "sagemaker.amazonaws.com/cluster-name"
GROUP_LABEL = "sagemaker.amazonaws.com/instance-group-name"
HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status"
DEEP_HEALTH_LABEL = "sagemaker.amazonaws.com/deep-health-check-status"
NODE_PREFIX = "hyperpod-"


EKS_ARN = re.compile(
    r"^arn:aws[a-z\-]*:eks:(?P<region>[a-z0-9\-]*):(?P<account>[0-9]{12}):cluster/"
    r"(?P<name>[0-9A-Za-z][A-Za-z0-9\-_]{0,99})$"
)
CLUSTER_ARN = re.compile(r"^arn:aws[a-z\-]*:sagemaker:[a-z0-9\-]*:[0-9]{12}:cluster/(?P<id>[a-z0-9]{12})$")


@functools.cache
def _service_model() -> Any:
    import botocore.session

    return botocore.session.get_session().get_service_model("sagemaker")


@functools.cache
def instance_types() -> tuple[str, ...]:
    """botocore's ``ClusterInstanceType`` enum: the instance types HyperPod accepts."""
    return tuple(_service_model().shape_for("ClusterInstanceType").enum)


@functools.cache
def reserved_types() -> tuple[str, ...]:
    """botocore's ``ReservedCapacityInstanceType`` enum: the instance types a training plan reserves."""
    return tuple(_service_model().shape_for("ReservedCapacityInstanceType").enum)


@functools.cache
def detail_members() -> frozenset[str]:
    return frozenset(_service_model().shape_for("ClusterInstanceGroupDetails").members)


def utcnow() -> datetime:
    return datetime.now(UTC)


def random_id(length: int, alphabet: str = string.ascii_lowercase + string.digits) -> str:
    return "".join(mock_random.choice(alphabet) for _ in range(length))


def new_instance_id() -> str:
    return "i-" + random_id(17, "0123456789abcdef")


def invalid(message: str) -> ValidationError:
    return ValidationError(message=message)


def paginate(items: list[Any], max_results: Any, next_token: Any) -> tuple[list[Any], str | None]:
    start = int(next_token) if next_token not in (None, "") and str(next_token).isdigit() else 0
    size = int(max_results) if max_results not in (None, "") else 100
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


def request_params(response: Any) -> dict[str, Any]:
    """A moto SageMakerResponse's request parameters."""
    return dict(response.params or {})


def drop_empty(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not None}


def region_zones(region: str) -> list[tuple[str, str]]:
    """(zone name, zone id) pairs of ``region`` as moto's EC2 knows them."""
    try:
        from moto.ec2.models.availability_zones_and_regions import RegionsAndZonesBackend

        zones = [(zone.name, zone.zone_id) for zone in RegionsAndZonesBackend.zones.get(region, [])]
    except Exception:  # moto internals moved: fall back to a plausible single zone
        zones = []
    return zones or [(f"{region}a", f"{region[:2]}{region.split('-')[1][0]}1-az1")]


def subnet_placements(account: str, region: str, subnets: Iterable[str]) -> list[dict[str, str]]:
    """One Placement per subnet (its AZ in moto's EC2), or the region's first zone."""
    out = []
    try:
        from moto.ec2.models import ec2_backends

        ec2 = ec2_backends[account][region]
        for subnet_id in subnets:
            try:
                subnet = ec2.get_subnet(subnet_id)
            except Exception:  # a subnet moto's EC2 does not know: place by zone list below
                continue
            zone = subnet.availability_zone
            zone_id = getattr(subnet, "availability_zone_id", None) or dict(region_zones(region)).get(zone, "")
            out.append({"AvailabilityZone": zone, "AvailabilityZoneId": zone_id})
    except Exception:
        out = []
    if not out:
        name, zone_id = region_zones(region)[0]
        out = [{"AvailabilityZone": name, "AvailabilityZoneId": zone_id}]
    return out
