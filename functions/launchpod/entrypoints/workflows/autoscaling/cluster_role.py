"""ClusterRole: the role HyperPod assumes to run Karpenter's node changes, trusted by
hyperpod.sagemaker.amazonaws.com and allowed only BatchAddClusterNodes / BatchDeleteClusterNodes on
this cluster."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import ClusterRoleOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.domain.instance_groups import autoscaling
from launchpod.entrypoints.workflows.autoscaling._common import request_of, role_name, tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    if not request_of(doc).enabled:
        return PhaseResult(skipped=True, message="Disabling: the role is kept for the cluster's deletion.")
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
    if cluster is None:
        raise PermanentError(f"{doc.target} has no HyperPod cluster.")
    name, iam = role_name(doc.target), wiring.iam()
    arn = iam.ensure_role(
        name,
        autoscaling.TRUSTED_SERVICE,
        [],
        tags_of(doc),
        f"HyperPod autoscaling (Karpenter) role of {doc.target}, created by Launchpod",
    )
    iam.put_inline_policy(name, "launchpod-karpenter-nodes", autoscaling.role_policy(cluster["ClusterArn"]))
    return PhaseResult(outputs=ClusterRoleOutput(roleArn=arn), message=arn)


handler = phase("ClusterRole")(run)
