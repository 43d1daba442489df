"""ComputeSubnet: a /20 for HyperPod nodes in the chosen zone, planned by the one subnet planner so
it overlaps nothing in the VPC, routed through the control plane's NAT gateway. The VPC is the EKS
cluster's, or, under provision-cluster (which runs this while EKS is created), the network's.

In a reused or imported VPC the subnet takes the route table of the control plane's subnets that
routes out through a NAT gateway; if none does (and the VPC has no endpoints for what nodes call),
the phase fails before CreateCluster, naming the route that is missing: HyperPod's nodes could not
bootstrap or join (``launchpod.domain.egress``)."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import ComputeSubnetOutput, NetworkOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import egress
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.domain.network import plan_subnets
from launchpod.entrypoints.workflows.create_hyperpod._common import request_of, tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def run(doc: WorkflowInput) -> PhaseResult:
    request, ec2 = request_of(doc), wiring.ec2()
    network = doc.output(NetworkOutput)  # provision-cluster: made before EKS is created
    vpc_id = network.vpcId if network else None
    if vpc_id is None:
        eks = wiring.eks().cluster(doc.target)
        if eks is None:
            raise PermanentError(f"EKS cluster {doc.target} does not exist; create the control plane first.")
        vpc_id = ec2.subnets(subnet_ids=list(eks["resourcesVpcConfig"]["subnetIds"]))[0]["VpcId"]
    vpc = ec2.vpc(vpc_id) or {}
    table_id, routed = _route_out(doc, vpc_id)
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
    if table_id:
        ec2.associate(table_id, subnet_id)
    return PhaseResult(
        outputs=ComputeSubnetOutput(subnetId=subnet_id, cidr=cidr, vpcId=vpc_id),
        message=f"{subnet_id} {cidr} in {request.availabilityZone}, {routed}.",
    )


def _route_out(doc: WorkflowInput, vpc_id: str) -> tuple[str | None, str]:
    """(route table to associate or None, how the subnet reaches out); PermanentError if it cannot."""
    ec2 = wiring.ec2()
    private_table = ec2.route_table_id(vpc_id, {**tags_of(doc), "Name": f"{doc.target}-private"})
    if private_table:
        return private_table, "routed through the NAT gateway"
    network = doc.output(NetworkOutput)
    sources = list(network.subnetIds) if network else []
    if not sources:
        eks = wiring.eks().cluster(doc.target) or {}
        sources = list(eks.get("resourcesVpcConfig", {}).get("subnetIds") or [])
    tables = ec2.route_tables(vpc_id)
    table = egress.egress_table(tables, sources)
    if table is not None:
        return str(table["RouteTableId"]), f"routed like the control plane's subnets ({table['RouteTableId']})"
    main = next((t for t in tables if any(a.get("Main") for a in t.get("Associations", []))), None)
    if egress.routes_out(main):
        return None, "on the VPC's main route table, which routes out"
    missing = egress.missing_endpoints(ec2.vpc_endpoints(vpc_id), settings().region)
    if not missing:
        return None, "on the VPC's main route table; the VPC's endpoints serve the nodes"
    names = ", ".join(sorted({str(t["RouteTableId"]) for t in tables})) or "none"
    raise PermanentError(
        f"HyperPod's nodes would have no way out of {vpc_id}: no route table of the control plane's subnets "
        f"({', '.join(sources) or 'none'}) nor the VPC's main table has a 0.0.0.0/0 route to a NAT gateway "
        f"(route tables: {names}), and the VPC has no endpoints for {', '.join(missing)}. Add a NAT gateway "
        "route to the private subnets' route table (or those VPC endpoints) and retry."
    )


handler = phase("ComputeSubnet")(run)
