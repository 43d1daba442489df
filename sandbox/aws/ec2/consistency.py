"""EC2's NAT gateway deletion as AWS runs it: asynchronous, minutes long, and blocking what depends on it.

Stock moto marks a NAT gateway ``deleted`` the moment DeleteNatGateway returns and keeps its Elastic IP
associated forever. On AWS:

* DeleteNatGateway moves the gateway to ``deleting``; it reaches ``deleted`` after a while (minutes,
  VPC user guide "Delete a NAT gateway": "it can take a few minutes") — ``NAT_DELETION_SECONDS``
  simulated seconds here.
* "Deleting a NAT gateway disassociates its Elastic IP address, but does not release the address from
  your account" (EC2 API reference, DeleteNatGateway): the address stays associated until ``deleted``.
* Meanwhile what depends on it is refused: ReleaseAddress of its address (``InvalidIPAddress.InUse``),
  DeleteSubnet of its subnet (``DependencyViolation``: "The subnet '…' has dependencies and cannot be
  deleted."), DetachInternetGateway from its VPC (``DependencyViolation``: "Network vpc-… has some
  mapped public address(es). Please unmap those public address(es) before detaching the gateway.").

The transition is applied lazily, whenever a call that could observe it is made.

A subnet that still holds a network interface (a load balancer's, sandbox.inference) cannot be deleted
either (``DependencyViolation``): "You must terminate all running instances in the subnet before you can
delete the subnet" (EC2 API reference, DeleteSubnet), and a load balancer left by a Service "can have
orphaned resources in your VPC that prevent you from being able to delete the VPC" (EKS API reference,
DeleteCluster). Stock moto deletes the subnet under them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws import clock
from sandbox.aws.core import once, patch
from sandbox.aws.state import STATE

NAT_DELETION_SECONDS = 120.0


@dataclass
class NatDeletionState:
    """The NAT gateways being deleted."""

    deleting_since: dict[str, float] = field(
        default_factory=dict
    )  # NAT gateway id -> time.monotonic() of DeleteNatGateway


def _state() -> NatDeletionState:
    return STATE.of(NatDeletionState)


def _settle(backend: Any) -> None:
    for nat in list(backend.nat_gateways.values()):
        started = _state().deleting_since.get(nat.id)
        if nat.state != "deleting" or started is None:
            continue
        if clock.sim_seconds_elapsed(started) < NAT_DELETION_SECONDS:
            continue
        nat.state = "deleted"
        _state().deleting_since.pop(nat.id, None)
        eni = getattr(nat, "_eni", None)
        for address in list(backend.addresses):
            if eni is not None and address.eni is eni:
                backend.disassociate_address(address=address.public_ip)


def _nat_of_address(backend: Any, address: Any) -> Any:
    for nat in backend.nat_gateways.values():
        if nat.state != "deleted" and address.eni is not None and address.eni is getattr(nat, "_eni", None):
            return nat
    return None


@once
def install() -> None:
    """Patch moto's EC2 backend (idempotent)."""
    from moto.ec2.exceptions import DependencyViolationError, EC2ClientError
    from moto.ec2.models import EC2Backend

    original_delete_nat = EC2Backend.delete_nat_gateway
    original_describe_nat = EC2Backend.describe_nat_gateways
    original_release = EC2Backend.release_address
    original_delete_subnet = EC2Backend.delete_subnet
    original_detach = EC2Backend.detach_internet_gateway

    def delete_nat_gateway(self: Any, nat_gateway_id: str) -> Any:
        nat = self.nat_gateways.get(nat_gateway_id)
        if nat is None:
            return original_delete_nat(self, nat_gateway_id)
        if nat.state not in ("deleting", "deleted"):
            nat.state = "deleting"
            _state().deleting_since[nat.id] = time.monotonic()
        return nat

    def describe_nat_gateways(self: Any, filters: Any, nat_gateway_ids: Any) -> Any:
        _settle(self)
        found = original_describe_nat(self, filters, nat_gateway_ids)
        # moto filters NAT gateways by id, VPC, subnet and state only, and returns every gateway for
        # a tag filter; EC2 documents "tag:<key>" and "tag-key" for DescribeNatGateways too. Without
        # this, deleting one cluster's tagged NAT gateways deleted every cluster's.
        for name, values in (filters or {}).items():
            if name.startswith("tag:"):
                key = name.removeprefix("tag:")
                found = [n for n in found if any(t["key"] == key and t["value"] in values for t in n.get_tags())]
            elif name == "tag-key":
                found = [n for n in found if any(t["key"] in values for t in n.get_tags())]
        return found

    def release_address(self: Any, address: str | None = None, allocation_id: str | None = None) -> Any:
        _settle(self)
        found = self.address_by_ip([address]) if address else self.address_by_allocation([allocation_id])
        if found and _nat_of_address(self, found[0]) is not None:
            raise EC2ClientError("InvalidIPAddress.InUse", f"Address {found[0].public_ip} is in use.")
        return original_release(self, address=address, allocation_id=allocation_id)

    def delete_subnet(self: Any, subnet_id: str) -> Any:
        _settle(self)
        if any(n.subnet_id == subnet_id and n.state != "deleted" for n in self.nat_gateways.values()):
            raise DependencyViolationError(f"The subnet '{subnet_id}' has dependencies and cannot be deleted.")
        nats = {id(getattr(n, "_eni", None)) for n in self.nat_gateways.values()}  # their own rule, above
        if any(getattr(e.subnet, "id", None) == subnet_id and id(e) not in nats for e in list(self.enis.values())):
            raise DependencyViolationError(f"The subnet '{subnet_id}' has dependencies and cannot be deleted.")
        return original_delete_subnet(self, subnet_id)

    def detach_internet_gateway(self: Any, internet_gateway_id: str, vpc_id: str) -> Any:
        _settle(self)
        mapped = any(
            n.vpc_id == vpc_id and n.state != "deleted" and any(a.eni is n._eni for a in self.addresses)
            for n in self.nat_gateways.values()
        )
        if mapped:
            raise DependencyViolationError(
                f"Network {vpc_id} has some mapped public address(es). Please unmap those public "
                "address(es) before detaching the gateway."
            )
        return original_detach(self, internet_gateway_id, vpc_id)

    patch(EC2Backend, "delete_nat_gateway", delete_nat_gateway)
    patch(EC2Backend, "describe_nat_gateways", describe_nat_gateways)
    patch(EC2Backend, "release_address", release_address)
    patch(EC2Backend, "delete_subnet", delete_subnet)
    patch(EC2Backend, "detach_internet_gateway", detach_internet_gateway)
