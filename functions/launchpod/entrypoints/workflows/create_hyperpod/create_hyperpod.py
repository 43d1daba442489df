"""CreateHyperPod: SageMaker CreateCluster on the EKS control plane, node auto-recovery as asked."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import (
    ComputeSubnetOutput,
    ExecutionRoleOutput,
    LifecycleScriptsOutput,
    SecurityGroupOutput,
)
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import ownership
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.create_hyperpod._common import request_of, tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    request, sm = request_of(doc), wiring.sagemaker()
    name = hyperpod.hyperpod_name(doc.target)
    existing = sm.hyperpod_cluster(name)
    record = wiring.clusters().get(doc.target)
    if existing is not None and ownership.may_record_existing(record, ownership.CREATED_HYPERPOD):
        wiring.clusters().annotate(doc.target, **{ownership.CREATED_HYPERPOD: existing["ClusterArn"]})
        record = {**(record or {}), ownership.CREATED_HYPERPOD: existing["ClusterArn"]}
    if (
        existing is not None
        and existing["ClusterStatus"] == "Failed"
        and not ownership.recorded_as_created(record, ownership.CREATED_HYPERPOD, existing["ClusterArn"])
    ):
        raise PermanentError(
            f"HyperPod cluster {existing['ClusterArn']} failed and Launchpod did not create it; delete it yourself "
            "or choose another cluster name."
        )
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
    wiring.clusters().annotate(doc.target, **{ownership.requested(ownership.CREATED_HYPERPOD): True})
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
    # What delete-cluster trusts, beyond the tags (launchpod.domain.ownership); a new ARN after a failed one.
    wiring.clusters().annotate(doc.target, **{ownership.CREATED_HYPERPOD: arn})
    return PhaseResult(outputs={"arn": arn}, message=f"Requested {arn} (NodeRecovery={request.nodeRecovery}).")


handler = phase("CreateHyperPod")(run)
