"""CreateHyperPod: SageMaker CreateCluster on the EKS control plane, node auto-recovery as asked."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import (
    ComputeSubnetOutput,
    ExecutionRoleOutput,
    LifecycleScriptsOutput,
    SecurityGroupOutput,
)
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.create_hyperpod._common import request_of, tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    request, sm = request_of(doc), wiring.sagemaker()
    name = hyperpod.hyperpod_name(doc.target)
    existing = sm.hyperpod_cluster(name)
    if existing is not None and existing["ClusterStatus"] == "Failed":
        # A failed HyperPod cluster cannot be repaired in place: delete it, then create it again.
        sm.delete_cluster(name)
        return PhaseResult(ready=False, wait=30, message=f"Deleting the failed {existing['ClusterArn']} first.")
    if existing is not None and existing["ClusterStatus"] == "Deleting":
        return PhaseResult(ready=False, wait=30, message=f"Waiting for the failed {name} to be deleted.")
    if existing is not None:
        return PhaseResult(
            outputs={"arn": existing["ClusterArn"]},
            message=f"{existing['ClusterArn']} already exists ({existing['ClusterStatus']}).",
        )
    eks = wiring.eks().cluster(doc.target)
    if eks is None:
        raise PermanentError(f"EKS cluster {doc.target} does not exist; create the control plane first.")
    arn = sm.create_cluster(
        name=name,
        eks_arn=eks["arn"],
        instance_groups=hyperpod.instance_groups(
            request, doc.require(ExecutionRoleOutput).roleArn, doc.require(LifecycleScriptsOutput).sourceS3Uri
        ),
        subnet_ids=[doc.require(ComputeSubnetOutput).subnetId],
        security_group_ids=[doc.require(SecurityGroupOutput).securityGroupId],
        node_recovery=request.nodeRecovery,
        tags=tags_of(doc),
        node_provisioning_mode=request.nodeProvisioningMode,
    )
    return PhaseResult(outputs={"arn": arn}, message=f"Requested {arn} (NodeRecovery={request.nodeRecovery}).")


handler = phase("CreateHyperPod")(run)
