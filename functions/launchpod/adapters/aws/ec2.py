"""EC2: zones, instance-type offerings, and the network a control plane needs.

Each ``ensure_*`` looks for Launchpod's own resource by its tags before creating one, so a
re-run phase finds the work already done instead of doing it twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code, ignoring
from launchpod.adapters.aws.tags import tag_dict, tag_list
from launchpod.domain.concurrency import ContextPool
from launchpod.domain.errors import LaunchpodError
from launchpod.domain.network import Subnet


def subnet(described: dict[str, Any]) -> Subnet:
    """One of DescribeSubnets' subnets as Launchpod reads it."""
    return Subnet(
        id=str(described["SubnetId"]),
        zone=str(described["AvailabilityZone"]),
        vpc_id=str(described["VpcId"]),
        cidr=str(described["CidrBlock"]),
        tags=tag_dict(described.get("Tags")),
    )


def _filters(tags: dict[str, str]) -> list[dict[str, Any]]:
    return [{"Name": f"tag:{k}", "Values": [v]} for k, v in sorted(tags.items())]


def _spec(kind: str, tags: dict[str, str]) -> list[dict[str, Any]]:
    return [{"ResourceType": kind, "Tags": tag_list(tags)}]


class Ec2:
    def __init__(self) -> None:
        self.ec2 = client("ec2")  # retries an id just created while EC2 still answers NotFound (clients.py)

    # ------------------------------------------------------------------ catalog
    def zones(self) -> list[dict[str, str]]:
        with aws_call("ec2:DescribeAvailabilityZones"):
            out = self.ec2.describe_availability_zones(Filters=[{"Name": "zone-type", "Values": ["availability-zone"]}])
        return [{"name": z["ZoneName"], "zoneId": z["ZoneId"], "state": z["State"]} for z in out["AvailabilityZones"]]

    def offerings(self, instance_types: list[str], zone: str | None = None) -> dict[str, list[str]]:
        """EC2 instance type -> zones offering it (optionally one zone). The types go 100 to a call: EC2
        caps a filter's values (200 on most Describe calls), and HyperPod offers over 200 types; the calls
        go side by side (boto3 clients are thread safe)."""

        def chunk(start: int) -> list[tuple[str, str]]:
            filters = [{"Name": "instance-type", "Values": instance_types[start : start + 100]}]
            if zone:
                filters.append({"Name": "location", "Values": [zone]})
            with aws_call("ec2:DescribeInstanceTypeOfferings"):
                pages = self.ec2.get_paginator("describe_instance_type_offerings").paginate(
                    LocationType="availability-zone", Filters=filters
                )
                return [(o["InstanceType"], o["Location"]) for page in pages for o in page["InstanceTypeOfferings"]]

        starts = range(0, len(instance_types), 100)
        with ContextPool(max_workers=max(1, len(starts)), thread_name_prefix="offerings") as pool:
            chunks = list(pool.map(chunk, starts))
        found: dict[str, list[str]] = {}
        for offered in chunks:
            for instance_type, location in offered:
                found.setdefault(instance_type, []).append(location)
        return {k: sorted(v) for k, v in found.items()}

    # ------------------------------------------------------------------ reads
    def vpc(self, vpc_id: str) -> dict[str, Any] | None:
        with aws_call("ec2:DescribeVpcs"):
            vpcs = self.ec2.describe_vpcs(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])["Vpcs"]
        return vpcs[0] if vpcs else None

    def subnets(self, subnet_ids: list[str] | None = None, vpc_id: str | None = None) -> list[Subnet]:
        filters = []
        if subnet_ids:
            filters.append({"Name": "subnet-id", "Values": subnet_ids})
        if vpc_id:
            filters.append({"Name": "vpc-id", "Values": [vpc_id]})
        with aws_call("ec2:DescribeSubnets"):
            return [subnet(s) for s in self.ec2.describe_subnets(Filters=filters)["Subnets"]]

    def find_vpc(self, tags: dict[str, str]) -> dict[str, Any] | None:
        with aws_call("ec2:DescribeVpcs"):
            vpcs = self.ec2.describe_vpcs(Filters=_filters(tags))["Vpcs"]
        return vpcs[0] if vpcs else None

    # ------------------------------------------------------------------ ensures
    def ensure_vpc(self, cidr: str, tags: dict[str, str]) -> str:
        found = self.find_vpc(tags)
        if found:
            vpc_id = found["VpcId"]
        else:
            with aws_call("ec2:CreateVpc"):
                vpc_id = self.ec2.create_vpc(CidrBlock=cidr, TagSpecifications=_spec("vpc", tags))["Vpc"]["VpcId"]
        # EKS needs DNS hostnames and support for private endpoint access and node registration. Set on a
        # found VPC too: a phase that stopped between the create and these calls resumes here.
        with aws_call("ec2:ModifyVpcAttribute"):
            self.ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsSupport={"Value": True})
            self.ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsHostnames={"Value": True})
        return str(vpc_id)

    def ensure_subnet(self, vpc_id: str, cidr: str, zone: str, tags: dict[str, str]) -> str:
        for subnet in self.subnets(vpc_id=vpc_id):
            if subnet.cidr == cidr:
                return subnet.id
        with aws_call("ec2:CreateSubnet"):
            subnet_id = self.ec2.create_subnet(
                VpcId=vpc_id, CidrBlock=cidr, AvailabilityZone=zone, TagSpecifications=_spec("subnet", tags)
            )["Subnet"]["SubnetId"]
        return str(subnet_id)

    def ensure_internet_gateway(self, vpc_id: str, tags: dict[str, str]) -> str:
        with aws_call("ec2:DescribeInternetGateways"):
            gateways = self.ec2.describe_internet_gateways(Filters=[{"Name": "attachment.vpc-id", "Values": [vpc_id]}])[
                "InternetGateways"
            ]
        if gateways:
            return str(gateways[0]["InternetGatewayId"])
        # Ours but detached: a phase that stopped between the create and the attach resumes with it.
        with aws_call("ec2:DescribeInternetGateways"):
            detached = [
                g
                for g in self.ec2.describe_internet_gateways(Filters=_filters(tags))["InternetGateways"]
                if not g.get("Attachments")
            ]
        with aws_call("ec2:CreateInternetGateway"):
            if detached:
                igw_id = detached[0]["InternetGatewayId"]
            else:
                igw = self.ec2.create_internet_gateway(TagSpecifications=_spec("internet-gateway", tags))
                igw_id = igw["InternetGateway"]["InternetGatewayId"]
        try:
            with aws_call("ec2:AttachInternetGateway"):
                self.ec2.attach_internet_gateway(InternetGatewayId=igw_id, VpcId=vpc_id)
        except LaunchpodError as exc:
            # Attached meanwhile by another run of this phase (see _lost_race): the VPC's gateway is the one.
            if not _lost_race(exc, "Resource.AlreadyAssociated"):
                raise
            with aws_call("ec2:DescribeInternetGateways"):
                attached = self.ec2.describe_internet_gateways(
                    Filters=[{"Name": "attachment.vpc-id", "Values": [vpc_id]}]
                )["InternetGateways"]
            if not attached:
                raise
            return str(attached[0]["InternetGatewayId"])
        return str(igw_id)

    def ensure_nat_gateway(self, subnet_id: str, tags: dict[str, str]) -> str:
        existing = self._nat_gateway(subnet_id)
        if existing:
            return existing
        # An address of ours that no NAT gateway holds: one left by a phase stopped between the two calls.
        with aws_call("ec2:DescribeAddresses"):
            free = [
                a
                for a in self.ec2.describe_addresses(Filters=_filters(tags))["Addresses"]
                if not a.get("AssociationId")
            ]
        try:
            with aws_call("ec2:CreateNatGateway"):
                allocation = (
                    free[0]["AllocationId"]
                    if free
                    else self.ec2.allocate_address(Domain="vpc", TagSpecifications=_spec("elastic-ip", tags))[
                        "AllocationId"
                    ]
                )
                nat_id = self.ec2.create_nat_gateway(
                    SubnetId=subnet_id, AllocationId=allocation, TagSpecifications=_spec("natgateway", tags)
                )["NatGateway"]["NatGatewayId"]
        except LaunchpodError as exc:
            # The address went to the gateway another run of this phase made meanwhile (see _lost_race).
            existing = self._nat_gateway(subnet_id) if _lost_race(exc, "Resource.AlreadyAssociated") else None
            if not existing:
                raise
            return existing
        return str(nat_id)

    def _nat_gateway(self, subnet_id: str) -> str | None:
        with aws_call("ec2:DescribeNatGateways"):
            gateways = self.ec2.describe_nat_gateways(
                Filters=[
                    {"Name": "subnet-id", "Values": [subnet_id]},
                    {"Name": "state", "Values": ["pending", "available"]},
                ]
            )["NatGateways"]
        return str(gateways[0]["NatGatewayId"]) if gateways else None

    def ensure_route_table(
        self,
        vpc_id: str,
        tags: dict[str, str],
        subnet_ids: list[str],
        *,
        gateway_id: str | None = None,
        nat_gateway_id: str | None = None,
    ) -> str:
        with aws_call("ec2:DescribeRouteTables"):
            tables = self.ec2.describe_route_tables(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}, *_filters(tags)])[
                "RouteTables"
            ]
        with aws_call("ec2:CreateRouteTable"):
            if tables:
                table = tables[0]
            else:
                table = self.ec2.create_route_table(VpcId=vpc_id, TagSpecifications=_spec("route-table", tags))[
                    "RouteTable"
                ]
            table_id = table["RouteTableId"]
            if not any(r.get("DestinationCidrBlock") == "0.0.0.0/0" for r in table.get("Routes", [])):
                target = {"GatewayId": gateway_id} if gateway_id else {"NatGatewayId": nat_gateway_id}
                self.ec2.create_route(RouteTableId=table_id, DestinationCidrBlock="0.0.0.0/0", **target)
            associated = {a.get("SubnetId") for a in table.get("Associations", [])}
            for subnet_id in subnet_ids:
                if subnet_id not in associated:
                    self.ec2.associate_route_table(RouteTableId=table_id, SubnetId=subnet_id)
        return str(table_id)

    def map_public_ip(self, subnet_id: str) -> None:
        with aws_call("ec2:ModifySubnetAttribute"):
            self.ec2.modify_subnet_attribute(SubnetId=subnet_id, MapPublicIpOnLaunch={"Value": True})

    # ------------------------------------------------------------------ HyperPod compute
    def route_table_id(self, vpc_id: str, tags: dict[str, str]) -> str | None:
        with aws_call("ec2:DescribeRouteTables"):
            tables = self.ec2.describe_route_tables(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}, *_filters(tags)])[
                "RouteTables"
            ]
        return str(tables[0]["RouteTableId"]) if tables else None

    def route_tables(self, vpc_id: str) -> list[dict[str, Any]]:
        with aws_call("ec2:DescribeRouteTables"):
            return list(self.ec2.describe_route_tables(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])["RouteTables"])

    def vpc_endpoints(self, vpc_id: str) -> list[dict[str, Any]]:
        with aws_call("ec2:DescribeVpcEndpoints"):
            return list(
                self.ec2.describe_vpc_endpoints(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])["VpcEndpoints"]
            )

    def associate(self, route_table_id: str, subnet_id: str) -> None:
        with aws_call("ec2:AssociateRouteTable"):
            tables = self.ec2.describe_route_tables(RouteTableIds=[route_table_id])["RouteTables"]
            if not any(a.get("SubnetId") == subnet_id for a in tables[0].get("Associations", [])):
                self.ec2.associate_route_table(RouteTableId=route_table_id, SubnetId=subnet_id)

    def security_group(self, vpc_id: str, name: str) -> dict[str, Any] | None:
        with aws_call("ec2:DescribeSecurityGroups"):
            groups = self.ec2.describe_security_groups(
                Filters=[{"Name": "vpc-id", "Values": [vpc_id]}, {"Name": "group-name", "Values": [name]}]
            )["SecurityGroups"]
        return dict(groups[0]) if groups else None

    def security_group_by_id(self, group_id: str) -> dict[str, Any] | None:
        with aws_call("ec2:DescribeSecurityGroups"):
            groups = self.ec2.describe_security_groups(Filters=[{"Name": "group-id", "Values": [group_id]}])
        found = groups["SecurityGroups"]
        return dict(found[0]) if found else None

    def ensure_efa_security_group(self, vpc_id: str, name: str, tags: dict[str, str]) -> str:
        """The group EKS's control plane and HyperPod's nodes share: all traffic to and from itself.

        EFA's OS-bypass traffic needs the self rule both ways; the same rule lets nodes reach the API
        server (443) and the control plane reach kubelets (10250) and webhooks, as in AWS's reference
        HyperPod EKS stack (awsome-distributed-training, security-group-stack.yaml).
        """
        group = self.security_group(vpc_id, name)
        if group is None:
            try:
                with aws_call("ec2:CreateSecurityGroup"):
                    group_id = self.ec2.create_security_group(
                        GroupName=name,
                        Description="EKS control plane and HyperPod nodes: all traffic within the group, created "
                        "by Launchpod",
                        VpcId=vpc_id,
                        TagSpecifications=_spec("security-group", tags),
                    )["GroupId"]
            except LaunchpodError as exc:
                # Made meanwhile by another run of this phase: a cancelled execution's invocation goes on
                # after StopExecution (Step Functions does not stop a running Lambda), and its retry can
                # look before that one creates. The group is then the one to use.
                if not _lost_race(exc, "InvalidGroup.Duplicate"):
                    raise
                group = self.security_group(vpc_id, name)
                if group is None:
                    raise
            else:
                with aws_call("ec2:DescribeSecurityGroups"):
                    group = self.ec2.describe_security_groups(GroupIds=[group_id])["SecurityGroups"][0]
        return self.ensure_self_rules(group)

    def ensure_self_rules(self, group: dict[str, Any]) -> str:
        """Add, where missing, the all-traffic rules from and to the group itself and to anywhere."""
        group_id = group["GroupId"]
        self_rule = {"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": group_id}]}

        def has_self(permissions: list[dict[str, Any]]) -> bool:
            return any(
                p.get("IpProtocol") == "-1" and any(u.get("GroupId") == group_id for u in p.get("UserIdGroupPairs", []))
                for p in permissions
            )

        def has_anywhere(permissions: list[dict[str, Any]]) -> bool:
            return any(
                p.get("IpProtocol") == "-1" and any(r.get("CidrIp") == "0.0.0.0/0" for r in p.get("IpRanges", []))
                for p in permissions
            )

        with aws_call("ec2:AuthorizeSecurityGroupIngress"):
            if not has_self(group.get("IpPermissions", [])):
                self.ec2.authorize_security_group_ingress(GroupId=group_id, IpPermissions=[self_rule])
        egress = group.get("IpPermissionsEgress", [])
        missing = [] if has_self(egress) else [self_rule]
        if not has_anywhere(egress):
            # Nodes pull images and reach AWS APIs through the NAT gateway (the reference stack's
            # InternetCommunicationRuleEgress); CreateSecurityGroup adds this rule, a reused group may lack it.
            missing.append({"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]})
        with aws_call("ec2:AuthorizeSecurityGroupEgress"):
            if missing:
                self.ec2.authorize_security_group_egress(GroupId=group_id, IpPermissions=missing)
        return str(group_id)

    def subnets_tagged(self, vpc_id: str, tags: dict[str, str]) -> list[Subnet]:
        with aws_call("ec2:DescribeSubnets"):
            found = self.ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}, *_filters(tags)])
        return [subnet(s) for s in found["Subnets"]]

    # ------------------------------------------------------------------ teardown (only what carries our tags)
    def delete_tagged_nat_gateways(self, tags: dict[str, str]) -> tuple[list[str], list[str]]:
        """Start deleting every NAT gateway carrying ``tags``: (those deleted now, those still deleting).

        Deletion takes minutes on AWS, and until a gateway is ``deleted`` its Elastic IP stays
        associated, its subnet cannot be deleted and the internet gateway cannot be detached
        (DependencyViolation): the rest of the network waits for it.
        """
        started: list[str] = []
        pending: list[str] = []
        with aws_call("ec2:DeleteNatGateway"):
            for nat in self.ec2.describe_nat_gateways(Filters=_filters(tags))["NatGateways"]:
                if nat["State"] == "deleted":
                    continue
                if nat["State"] != "deleting":
                    self.ec2.delete_nat_gateway(NatGatewayId=nat["NatGatewayId"])
                    started.append(nat["NatGatewayId"])
                pending.append(nat["NatGatewayId"])
        return started, pending

    def delete_tagged_network(self, tags: dict[str, str]) -> list[str]:
        """Delete, in dependency order, every network resource but NAT gateways carrying ``tags``
        (delete those first, with ``delete_tagged_nat_gateways``, until none is pending)."""
        ec2, filters = self.ec2, _filters(tags)
        return [
            *_delete_each(
                "ec2:ReleaseAddress",
                ec2.describe_addresses,
                "Addresses",
                "AllocationId",
                ec2.release_address,
                filters,
                before=self._disassociate_address,
            ),
            *_delete_each(
                "ec2:DeleteSecurityGroup",
                ec2.describe_security_groups,
                "SecurityGroups",
                "GroupId",
                ec2.delete_security_group,
                filters,
            ),
            *_delete_each(
                "ec2:DeleteRouteTable",
                ec2.describe_route_tables,
                "RouteTables",
                "RouteTableId",
                ec2.delete_route_table,
                filters,
                before=self._disassociate_route_table,
            ),
            *_delete_each("ec2:DeleteSubnet", ec2.describe_subnets, "Subnets", "SubnetId", ec2.delete_subnet, filters),
            *_delete_each(
                "ec2:DeleteInternetGateway",
                ec2.describe_internet_gateways,
                "InternetGateways",
                "InternetGatewayId",
                ec2.delete_internet_gateway,
                filters,
                before=self._detach_internet_gateway,
            ),
            *_delete_each("ec2:DeleteVpc", ec2.describe_vpcs, "Vpcs", "VpcId", ec2.delete_vpc, filters),
        ]

    def _disassociate_address(self, address: dict[str, Any]) -> None:
        if address.get("AssociationId"):
            self.ec2.disassociate_address(AssociationId=address["AssociationId"])

    def _disassociate_route_table(self, table: dict[str, Any]) -> None:
        for association in table.get("Associations", []):
            if not association.get("Main"):
                self.ec2.disassociate_route_table(AssociationId=association["RouteTableAssociationId"])

    def _detach_internet_gateway(self, igw: dict[str, Any]) -> None:
        for attachment in igw.get("Attachments", []):
            self.ec2.detach_internet_gateway(InternetGatewayId=igw["InternetGatewayId"], VpcId=attachment["VpcId"])

    # ------------------------------------------------------------------ instance groups' dedicated subnets
    def delete_subnet(self, subnet_id: str) -> None:
        """Delete one subnet; already gone counts as deleted. DependencyViolation (ENIs still leaving) is retried."""
        with aws_call("ec2:DeleteSubnet"), ignoring("InvalidSubnetID.NotFound"):
            self.ec2.delete_subnet(SubnetId=subnet_id)


def _delete_each(
    action: str,
    describe: Callable[..., dict[str, Any]],
    listed: str,
    key: str,
    delete: Callable[..., Any],
    filters: list[dict[str, Any]],
    before: Callable[[dict[str, Any]], None] = lambda found: None,
) -> list[str]:
    """Delete every resource ``describe`` finds by ``filters`` (its answer's ``listed`` list), each by its id
    ``key`` (the delete call's parameter too), after ``before`` has let go of what holds it: their ids."""
    gone: list[str] = []
    with aws_call(action):
        for found in describe(Filters=filters)[listed]:
            before(found)
            delete(**{key: found[key]})
            gone.append(found[key])
    return gone


def _lost_race(exc: LaunchpodError, code: str) -> bool:
    """Whether a create failed with `code` because another run of the same phase made the resource first.

    A cancelled execution's Lambda invocation goes on after StopExecution (Step Functions does not stop a
    running function: https://docs.aws.amazon.com/step-functions/latest/apireference/API_StopExecution.html),
    so the retry's invocation can run the same phase beside it.
    """
    cause = exc.__cause__
    return isinstance(cause, ClientError) and error_code(cause) == code
