"""Whether a HyperPod instance can join its EKS cluster, judged from the emulated VPC.

A node joins only if it can reach what bootstrapping needs and the API server can reach it back:

* **Egress.** Its subnet's route table (the explicit association, else the VPC's main table) sends
  ``0.0.0.0/0`` to a NAT gateway (or a transit gateway / NAT instance interface), or the VPC has the
  endpoints a node in a private subnet needs: ``ecr.api``, ``ecr.dkr``, ``s3``, ``sts`` and ``ec2``
  (https://docs.aws.amazon.com/eks/latest/userguide/private-clusters.html). An internet gateway route is
  not enough: HyperPod's instances get no public IP.
* **Security groups** (stateful, so only the opening direction is checked): the node's groups let it
  open TCP 443 to the control plane's interfaces (EKS's cluster security group and any
  ``securityGroupIds``), and the control plane's groups let it open TCP 10250 to the kubelet, each side's
  egress and the other side's ingress, by group reference or by a CIDR covering the other side's subnets
  (https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html).

``join_blocker`` answers None, or what an operator would read in the instance's status: the route or
rule that is missing. Subnets or groups unknown to the emulated EC2 are not judged (None).
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import threading
from collections.abc import Iterator
from typing import Any

ENDPOINTS_NEEDED = ("ecr.api", "ecr.dkr", "s3", "sts", "ec2")


def _routes_out(table: Any) -> bool:
    for route in table.routes:
        if route.destination_cidr_block != "0.0.0.0/0":
            continue
        if route.nat_gateway is not None or route.transit_gateway is not None or route.interface is not None:
            return True
        if route.instance is not None:
            return True
    return False


class Ec2View:
    """One Region's emulated EC2 as the judgments read it, indexed in one pass. moto finds a security group by
    copying and scanning every VPC's groups, and the judgments scanned every route table and endpoint per subnet:
    asked for every cluster on every tick of HyperPod's clock, that grew with the square of the clusters."""

    def __init__(self, ec2: Any) -> None:
        self.groups = {g.id: g for per_vpc in list(ec2.groups.values()) for g in list(per_vpc.values())}
        self.subnets = {sid: s for per_zone in list(ec2.subnets.values()) for sid, s in list(per_zone.items())}
        self.tables: dict[str, list[Any]] = {}
        for table in list(ec2.route_tables.values()):
            self.tables.setdefault(table.vpc_id, []).append(table)
        self.endpoints: dict[str, list[Any]] = {}
        for endpoint in list(ec2.vpc_end_points.values()):
            self.endpoints.setdefault(endpoint.vpc_id, []).append(endpoint)

    def subnet(self, subnet_id: str) -> Any:
        return self.subnets[subnet_id]  # KeyError: a subnet the emulated EC2 does not hold

    def group(self, group_id: str) -> Any:
        return self.groups.get(group_id)


_looking = threading.local()


@contextlib.contextmanager
def one_look() -> Iterator[None]:
    """Within the block, every judgment on this thread reads one index per Region: a tick of HyperPod's clock
    judges every cluster against the VPCs as they were when it started (a change made meanwhile is seen on the
    next tick, a tenth of a second later, as it would have been had the tick started then)."""
    _looking.views = {}
    try:
        yield
    finally:
        _looking.views = None


def _view(account: str, region: str) -> Ec2View:
    from moto.ec2.models import ec2_backends

    views: dict[tuple[str, str], Ec2View] | None = getattr(_looking, "views", None)
    if views is None:
        return Ec2View(ec2_backends[account][region])
    if (account, region) not in views:
        views[account, region] = Ec2View(ec2_backends[account][region])
    return views[account, region]


@functools.lru_cache(maxsize=4096)
def _network(cidr: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_network(cidr, strict=False)


def _table_of(ec2: Ec2View, subnet: Any) -> Any:
    tables = ec2.tables.get(subnet.vpc_id, [])
    for table in tables:
        if subnet.id in table._associations.values():  # moto keeps association id -> subnet id
            return table
    return next((t for t in tables if t.main_association_id is not None), None)


def _missing_endpoints(ec2: Ec2View, vpc_id: str, region: str) -> list[str]:
    present = {
        e.service_name.rsplit(f"{region}.", 1)[-1]
        for e in ec2.endpoints.get(vpc_id, [])
        if getattr(e, "state", "available") == "available"
    }
    return [name for name in ENDPOINTS_NEEDED if name not in present]


def _allows(rules: list[Any], port: int, peer_groups: set[str], peer_cidrs: list[str]) -> bool:
    for rule in rules:
        protocol = str(rule.ip_protocol)
        if protocol not in ("-1", "tcp", "6"):
            continue
        if protocol != "-1" and not (
            rule.from_port is not None and rule.to_port is not None and rule.from_port <= port <= rule.to_port
        ):
            continue
        if (rule.source_group or {}).get("GroupId") in peer_groups:
            return True
        cidr = (rule.ip_range or {}).get("CidrIp")
        if cidr and peer_cidrs:
            network = _network(cidr)
            if all(_network(p).subnet_of(network) for p in peer_cidrs):  # type: ignore[arg-type]
                return True
    return False


def _opens(src_groups: list[Any], dst_groups: list[Any], port: int, src_cidrs: list[str], dst_cidrs: list[str]) -> bool:
    src_ids, dst_ids = {g.id for g in src_groups}, {g.id for g in dst_groups}
    egress = _allows([r for g in src_groups for r in g.egress_rules], port, dst_ids, dst_cidrs)
    ingress = _allows([r for g in dst_groups for r in g.ingress_rules], port, src_ids, src_cidrs)
    return egress and ingress


def join_blocker(
    account: str, region: str, eks_cluster: Any, subnet_ids: list[str], security_group_ids: list[str]
) -> str | None:
    """Why instances in ``subnet_ids`` with ``security_group_ids`` cannot join ``eks_cluster``, or None."""
    try:
        ec2 = _view(account, region)
        subnets = [ec2.subnet(s) for s in subnet_ids]
        node_groups = [ec2.group(g) for g in security_group_ids]
    except Exception:  # subnets or groups the emulated EC2 does not hold: not judged
        return None
    if not subnets or any(g is None for g in node_groups):
        return None
    for subnet in subnets:
        table = _table_of(ec2, subnet)
        if table is not None and _routes_out(table):
            continue
        missing = _missing_endpoints(ec2, subnet.vpc_id, region)
        if missing:
            where = f"route table {table.id}" if table is not None else "its VPC's route table"
            return (
                f"The instance cannot reach Amazon EKS, Amazon ECR or Amazon S3 from subnet {subnet.id}: {where} "
                "has no 0.0.0.0/0 route to a NAT gateway, and the VPC has no endpoints for "
                f"{', '.join(missing)}. Add a NAT gateway route or those VPC endpoints."
            )
    vpc_config = getattr(eks_cluster, "resources_vpc_config", None) or {}
    plane_ids = [vpc_config.get("clusterSecurityGroupId"), *(vpc_config.get("securityGroupIds") or [])]
    plane_groups = [g for g in (ec2.group(i) for i in plane_ids if i) if g is not None]
    if not plane_groups:
        return None
    try:
        plane_cidrs = [ec2.subnet(s).cidr_block for s in vpc_config.get("subnetIds") or []]
    except Exception:
        plane_cidrs = []
    node_cidrs = [s.cidr_block for s in subnets]
    names = ", ".join(g.id for g in node_groups if g is not None)
    if not _opens(node_groups, plane_groups, 443, node_cidrs, plane_cidrs):
        return (
            f"The instance cannot reach the Kubernetes API server of EKS cluster {eks_cluster.name} on TCP 443: "
            f"security groups {names} and the cluster's security groups "
            f"{', '.join(g.id for g in plane_groups)} do not allow it. Use one shared security group, or allow "
            "443 from the nodes' group to the cluster's."
        )
    if not _opens(plane_groups, node_groups, 10250, plane_cidrs, node_cidrs):
        return (
            f"The EKS control plane of {eks_cluster.name} cannot reach the kubelet on TCP 10250: security groups "
            f"{names} do not allow it from the cluster's security groups {', '.join(g.id for g in plane_groups)}."
        )
    return None


def internet_egress(account: str, region: str, subnet_ids: list[str]) -> bool:
    """Whether instances in ``subnet_ids`` reach the internet (a 0.0.0.0/0 route out, e.g. to a NAT
    gateway), not only the AWS services the VPC has endpoints for: public registries need it."""
    try:
        ec2 = _view(account, region)
        subnets = [ec2.subnet(s) for s in subnet_ids]
    except Exception:  # subnets the emulated EC2 does not hold: not judged
        return True
    for subnet in subnets:
        table = _table_of(ec2, subnet)
        if table is None or not _routes_out(table):
            return False
    return True
