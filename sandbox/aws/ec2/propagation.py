"""EC2's eventual consistency: a resource just created is "not found" for a moment.

AWS, "Eventual consistency in the Amazon EC2 API" (EC2 developer guide): "if you run a command to modify
or describe the resource that you just created, its ID might not have propagated throughout the system,
and you will get an error responding that the resource does not exist". The guide's examples are
``InvalidInstanceID.NotFound`` after RunInstances and ``InvalidGroup.NotFound`` after
CreateSecurityGroup; it recommends Describe with exponential backoff "starting with a couple of seconds".

Modelled: for ``propagation_seconds()`` simulated seconds after an EC2 request creates a VPC, subnet,
internet or NAT gateway, route table, security group or Elastic IP, any EC2 request naming its id
(other than deletes and releases) is answered with that resource type's ``Invalid….NotFound`` error,
as moto words it. Not modelled: resources other services create (EKS's cluster security group);
Describe calls by filter still list the new resource at once; and how long propagation takes on AWS
is not documented (one simulated second here; the ``ec2PropagationSeconds`` fault makes it longer).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws import clock
from sandbox.aws.core import once, patch
from sandbox.aws.state import STATE

DEFAULT_PROPAGATION_SECONDS = 1.0

_lock = threading.Lock()


@dataclass
class PropagationState:
    """The ids created lately and how long they stay unseen."""

    seconds: float = DEFAULT_PROPAGATION_SECONDS  # how long a new id stays unseen
    created: dict[str, float] = field(default_factory=dict)  # resource id -> time.monotonic() of its creation


def _state() -> PropagationState:
    return STATE.of(PropagationState)


_CLEANUP = ("Delete", "Release", "Detach", "Disassociate", "Revoke")


def set_propagation_seconds(seconds: float | None) -> None:
    """Simulated seconds a new EC2 resource stays invisible; None restores the default."""
    _state().seconds = DEFAULT_PROPAGATION_SECONDS if seconds is None else float(seconds)


def propagation_seconds() -> float:
    return _state().seconds


_request = threading.local()  # set while an EC2 API request runs: other services' creations are not tracked


def _record(resource_id: str | None) -> None:
    if resource_id and getattr(_request, "active", False):
        with _lock:
            _state().created[resource_id] = time.monotonic()


def _invisible(resource_id: str) -> bool:
    with _lock:
        created = _state().created.get(resource_id)
        if created is None:
            return False
        if clock.sim_seconds_elapsed(created) >= _state().seconds:
            del _state().created[resource_id]
            return False
    return True


def _not_found(resource_id: str) -> Exception | None:
    from moto.ec2 import exceptions as e

    prefix = resource_id.split("-", 1)[0]
    errors: dict[str, Any] = {
        "vpc": e.InvalidVPCIdError,
        "subnet": e.InvalidSubnetIdError,
        "igw": e.InvalidInternetGatewayIdError,
        "rtb": e.InvalidRouteTableIdError,
        "sg": e.InvalidSecurityGroupNotFoundError,
        "eipalloc": e.InvalidAllocationIdError,
    }
    if prefix == "nat":
        # EC2 API reference, error codes: "InvalidNatGatewayID.NotFound".
        return e.EC2ClientError("InvalidNatGatewayID.NotFound", f"The NAT gateway ID '{resource_id}' does not exist")
    factory = errors.get(prefix)
    return factory(resource_id) if factory else None


def _named_ids(querystring: dict[str, list[str]]) -> list[str]:
    return [v for values in querystring.values() for v in values if isinstance(v, str) and "-" in v]


@once
def install() -> None:
    """Patch moto's EC2 backend and responses (idempotent)."""
    from moto.core.utils import camelcase_to_underscores
    from moto.ec2.models import EC2Backend
    from moto.ec2.responses import EC2Response

    creators = {
        "create_vpc": lambda r: r.id,
        "create_subnet": lambda r: r.id,
        "create_internet_gateway": lambda r: r.id,
        "create_nat_gateway": lambda r: r.id,
        "create_route_table": lambda r: r.id,
        "create_security_group": lambda r: r.id,
        "allocate_address": lambda r: r.allocation_id,
    }
    for name, id_of in creators.items():
        original = getattr(EC2Backend, name)

        def created(self: Any, *args: Any, __original: Any = original, __id: Any = id_of, **kwargs: Any) -> Any:
            result = __original(self, *args, **kwargs)
            _record(__id(result))
            return result

        setattr(EC2Backend, name, created)

    original_call = EC2Response.call_action

    def call_action(self: Any) -> Any:
        action = self._get_action()
        if not action.startswith(_CLEANUP):
            for resource_id in _named_ids(self.querystring):
                error = _not_found(resource_id) if _invisible(resource_id) else None
                if error is not None:

                    def refuse(__error: Exception = error) -> Any:
                        raise __error

                    # moto looks the action's method up on the instance and serializes what it raises.
                    setattr(self, camelcase_to_underscores(action), refuse)
                    break
        _request.active = True
        try:
            return original_call(self)
        finally:
            _request.active = False

    patch(EC2Response, "call_action", call_action)
