"""ReleaseSubnet: after a group is deleted, its dedicated subnet (found by its tags) is deleted too."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.instance_groups import workflow
from launchpod.entrypoints.workflows.instance_groups._common import change_of, cluster_of, tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    change = change_of(doc)
    if change.action != "delete":
        return PhaseResult(skipped=True, message="Nothing to release.")
    ec2, cluster = wiring.ec2(), cluster_of(doc)
    cluster_subnets = list((cluster.get("VpcConfig") or {}).get("Subnets") or [])
    if not cluster_subnets:
        return PhaseResult(skipped=True, message="The cluster reports no VPC.")
    vpc_id = ec2.subnets(subnet_ids=cluster_subnets[:1])[0]["VpcId"]
    owned = ec2.subnets_tagged(vpc_id, workflow.subnet_tags(tags_of(doc), change.group))
    if not owned:
        return PhaseResult(skipped=True, message=f"{change.group} used the cluster's subnet.")
    for subnet in owned:
        ec2.delete_subnet(subnet["SubnetId"])
    return PhaseResult(
        outputs={"deleted": [s["SubnetId"] for s in owned]},
        message="Deleted " + ", ".join(f"{s['SubnetId']} {s['CidrBlock']}" for s in owned) + ".",
    )


handler = phase("ReleaseSubnet")(run)
