"""CreateCluster: EKS CreateCluster with API_AND_CONFIG_MAP authentication and control-plane logging."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import ClusterRoleOutput, NetworkOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import ownership
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.create_control_plane._common import request_of, tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def run(doc: WorkflowInput) -> PhaseResult:
    request, eks = request_of(doc), wiring.eks()
    existing = eks.cluster(doc.target)
    if existing is not None:
        if existing.get("tags", {}).get(f"{settings().resource_prefix}:cluster") != doc.target:
            raise PermanentError(
                f"An EKS cluster named {doc.target} already exists and was not created by Launchpod; "
                "choose another name."
            )
        if ownership.may_record_existing(wiring.clusters().get(doc.target), ownership.CREATED_EKS):
            wiring.clusters().annotate(doc.target, **{ownership.CREATED_EKS: existing["arn"]})
        return PhaseResult(
            outputs={"arn": existing["arn"]},
            message=f"{existing['arn']} already exists ({existing['status']}).",
        )
    network = doc.require(NetworkOutput)
    wiring.clusters().annotate(doc.target, **{ownership.requested(ownership.CREATED_EKS): True})
    created = eks.create_cluster(
        name=doc.target,
        role_arn=doc.require(ClusterRoleOutput).roleArn,
        subnet_ids=network.subnetIds + network.publicSubnetIds,
        security_group_ids=[network.securityGroupId] if network.securityGroupId else [],
        version=request.kubernetesVersion,
        log_types=list(request.logging),
        tags=tags_of(doc),
    )
    # What delete-cluster trusts, beyond the tags (launchpod.domain.ownership).
    wiring.clusters().annotate(doc.target, **{ownership.CREATED_EKS: created["arn"]})
    return PhaseResult(outputs={"arn": created["arn"]}, message=f"Requested {created['arn']}.")


handler = phase("CreateCluster")(run)
