"""GroupSubnet: a dedicated /20 for a new group, from the one subnet planner (it overlaps nothing in the
VPC), in the group's zone, on the route table of the cluster's compute subnet, tagged with the group so
the group's deletion finds and deletes it."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import GroupSubnetOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import PermanentError
from launchpod.domain.instance_groups import workflow
from launchpod.domain.network import plan_subnets
from launchpod.entrypoints.workflows.instance_groups._common import change_of, cluster_of, tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    change = change_of(doc)
    if change.action != "add" or change.add is None or not change.add.dedicatedSubnet:
        return PhaseResult(skipped=True, message="The group uses the cluster's subnet.")
    ec2, cluster = wiring.ec2(), cluster_of(doc)
    cluster_subnets = list((cluster.get("VpcConfig") or {}).get("Subnets") or [])
    if not cluster_subnets:
        raise PermanentError(f"{doc.target} reports no subnets in its VpcConfig; cannot place a new subnet.")
    home = ec2.subnets(subnet_ids=cluster_subnets[:1])[0]
    vpc_id, zone = home["VpcId"], change.zone or home["AvailabilityZone"]
    tags = workflow.subnet_tags(tags_of(doc), change.group)
    existing = ec2.subnets_tagged(vpc_id, tags)
    if existing:
        subnet_id, cidr = existing[0]["SubnetId"], existing[0]["CidrBlock"]
    else:
        vpc = ec2.vpc(vpc_id) or {}
        taken = [s["CidrBlock"] for s in ec2.subnets(vpc_id=vpc_id)]
        (cidr,) = plan_subnets(vpc["CidrBlock"], taken, [workflow.GROUP_SUBNET_PREFIX])
        subnet_id = ec2.ensure_subnet(vpc_id, cidr, zone, {**tags, "Name": f"{doc.target}-{change.group}-{zone}"})
    table = next(
        (
            t
            for t in ec2.route_tables(vpc_id)
            if any(a.get("SubnetId") == home["SubnetId"] for a in t.get("Associations", []))
        ),
        None,
    )
    if table is not None and not any(a.get("SubnetId") == subnet_id for a in table.get("Associations", [])):
        ec2.associate(table["RouteTableId"], subnet_id)
    routed = f"routed like {home['SubnetId']}" if table else "on the VPC's main route table"
    return PhaseResult(
        outputs=GroupSubnetOutput(subnetId=subnet_id, cidr=cidr, zone=zone),
        message=f"{subnet_id} {cidr} in {zone} for {change.group}, {routed}.",
    )


handler = phase("GroupSubnet")(run)
