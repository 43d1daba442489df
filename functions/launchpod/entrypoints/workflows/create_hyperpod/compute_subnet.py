"""ComputeSubnet: a /20 for HyperPod nodes in the chosen zone, planned by the one subnet planner so
it overlaps nothing in the VPC, routed through the control plane's NAT gateway. The VPC is the EKS
cluster's, or, under provision-cluster (which runs this while EKS is created), the network's."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.domain.network import plan_subnets
from launchpod.entrypoints.workflows.create_hyperpod._common import request_of, tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    request, ec2 = request_of(doc), wiring.ec2()
    vpc_id = doc.outputs.get("Network", {}).get("vpcId")  # provision-cluster: made before EKS is created
    if vpc_id is None:
        eks = wiring.eks().cluster(doc.target)
        if eks is None:
            raise PermanentError(f"EKS cluster {doc.target} does not exist; create the control plane first.")
        vpc_id = ec2.subnets(subnet_ids=list(eks["resourcesVpcConfig"]["subnetIds"]))[0]["VpcId"]
    vpc = ec2.vpc(vpc_id) or {}
    tags = {**tags_of(doc), "launchpod:purpose": "hyperpod-compute", "launchpod:zone": request.availabilityZone}
    existing = ec2.subnets_tagged(vpc_id, tags)
    if existing:
        subnet_id, cidr = existing[0]["SubnetId"], existing[0]["CidrBlock"]
    else:
        taken = [s["CidrBlock"] for s in ec2.subnets(vpc_id=vpc_id)]
        (cidr,) = plan_subnets(vpc["CidrBlock"], taken, [hyperpod.COMPUTE_PREFIX])
        subnet_id = ec2.ensure_subnet(
            vpc_id, cidr, request.availabilityZone, {**tags, "Name": f"{doc.target}-compute-{request.availabilityZone}"}
        )
    private_table = ec2.route_table_id(vpc_id, {**tags_of(doc), "Name": f"{doc.target}-private"})
    if private_table:
        ec2.associate(private_table, subnet_id)
    routed = "routed through the NAT gateway" if private_table else "left on the VPC's main route table"
    return PhaseResult(
        outputs={"subnetId": subnet_id, "cidr": cidr, "vpcId": vpc_id},
        message=f"{subnet_id} {cidr} in {request.availabilityZone}, {routed}.",
    )


handler = phase("ComputeSubnet")(run)
