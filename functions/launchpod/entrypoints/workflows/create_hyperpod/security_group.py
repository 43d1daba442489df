"""SecurityGroup: HyperPod nodes talk to each other freely, as EFA requires."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane
from launchpod.entrypoints.workflows.create_hyperpod._common import tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def run(doc: WorkflowInput) -> PhaseResult:
    vpc_id = doc.outputs["ComputeSubnet"]["vpcId"]
    name = control_plane.resource_name(settings().resource_prefix, doc.target, "hyperpod", limit=255)
    group_id = wiring.ec2().ensure_efa_security_group(vpc_id, name, {**tags_of(doc), "Name": name})
    return PhaseResult(outputs={"securityGroupId": group_id}, message=f"{group_id}: all traffic within the group.")


handler = phase("SecurityGroup")(run)
