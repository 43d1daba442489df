"""Network: a new VPC with private and public subnets in each zone and a NAT gateway, or checks
that a VPC and subnets given for reuse exist and span two zones; in either, the security group EKS's
control plane will share with HyperPod's nodes (all traffic within the group, as AWS's reference
HyperPod EKS stack does, awsome-distributed-training ``security-group-stack.yaml``)."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import NetworkOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError
from launchpod.domain.network import DEFAULT_VPC_CIDR
from launchpod.entrypoints.workflows.create_control_plane._common import request_of, tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def _shared_group(doc: WorkflowInput, vpc_id: str) -> str:
    name = control_plane.shared_security_group_name(settings().resource_prefix, doc.target)
    return wiring.ec2().ensure_efa_security_group(vpc_id, name, {**tags_of(doc), "Name": name})


def _reuse(doc: WorkflowInput, vpc_id: str, subnet_ids: list[str]) -> PhaseResult:
    ec2 = wiring.ec2()
    if ec2.vpc(vpc_id) is None:
        raise PermanentError(f"VPC {vpc_id} does not exist in this region; give an existing VPC or none.")
    found = {s["SubnetId"]: s for s in ec2.subnets(subnet_ids=subnet_ids)}
    missing = [s for s in subnet_ids if s not in found]
    if missing:
        raise PermanentError(f"Subnets {', '.join(missing)} do not exist; give subnets of {vpc_id}.")
    outside = [s for s, v in found.items() if v["VpcId"] != vpc_id]
    if outside:
        raise PermanentError(f"Subnets {', '.join(outside)} are not in {vpc_id}; give subnets of that VPC.")
    zones = {v["AvailabilityZone"] for v in found.values()}
    if len(zones) < 2:
        raise PermanentError(f"The subnets are all in {zones.pop()}; EKS needs subnets in at least two zones.")
    group_id = _shared_group(doc, vpc_id)
    return PhaseResult(
        outputs=NetworkOutput(vpcId=vpc_id, subnetIds=subnet_ids, securityGroupId=group_id, reused=True),
        message=f"Reusing {vpc_id} with {len(subnet_ids)} subnets in {', '.join(sorted(zones))}; "
        f"{group_id} for the control plane and HyperPod's nodes.",
    )


def run(doc: WorkflowInput) -> PhaseResult:
    request = request_of(doc)
    if request.network.vpcId and request.network.subnetIds:
        return _reuse(doc, request.network.vpcId, request.network.subnetIds)
    ec2, tags = wiring.ec2(), tags_of(doc)
    cidr = request.network.vpcCidr or DEFAULT_VPC_CIDR
    vpc_id = ec2.ensure_vpc(cidr, {**tags, "Name": f"{doc.target}-vpc"})
    plan = control_plane.network_plan(cidr, request.availabilityZones)
    private: list[str] = []
    public: list[str] = []
    for subnet in plan:
        role = {"kubernetes.io/role/elb": "1"} if subnet.public else {"kubernetes.io/role/internal-elb": "1"}
        kind = "public" if subnet.public else "private"
        subnet_id = ec2.ensure_subnet(
            vpc_id, subnet.cidr, subnet.zone, {**tags, **role, "Name": f"{doc.target}-{kind}-{subnet.zone}"}
        )
        (public if subnet.public else private).append(subnet_id)
    igw = ec2.ensure_internet_gateway(vpc_id, {**tags, "Name": f"{doc.target}-igw"})
    ec2.ensure_route_table(vpc_id, {**tags, "Name": f"{doc.target}-public"}, public, gateway_id=igw)
    for subnet_id in public:
        ec2.map_public_ip(subnet_id)
    nat = ec2.ensure_nat_gateway(public[0], {**tags, "Name": f"{doc.target}-nat"})
    ec2.ensure_route_table(vpc_id, {**tags, "Name": f"{doc.target}-private"}, private, nat_gateway_id=nat)
    group_id = _shared_group(doc, vpc_id)
    return PhaseResult(
        outputs=NetworkOutput(
            vpcId=vpc_id,
            vpcCidr=cidr,
            subnetIds=private,
            publicSubnetIds=public,
            natGatewayId=nat,
            securityGroupId=group_id,
            reused=False,
        ),
        message=f"{vpc_id} ({cidr}): private {', '.join(private)}; public {', '.join(public)}; NAT {nat}; "
        f"{group_id} for the control plane and HyperPod's nodes.",
    )


handler = phase("Network")(run)
