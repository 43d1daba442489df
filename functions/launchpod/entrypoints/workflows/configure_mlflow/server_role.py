"""ServerRole: the new tracking server's role, trusted by SageMaker, whose inline policy reaches only
mlflow/ in the shared bucket (re-runnable: ensure_role and PutRolePolicy change nothing the second time).
Skipped when an existing server is picked: it has its own role."""

from __future__ import annotations

from launchpod.contracts.mlflow import ConfigureMlflowWorkflowRequest
from launchpod.contracts.phase_outputs import ServerRoleOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import mlflow, ownership
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

POLICY_NAME = "launchpod-mlflow-artifacts"


def run(doc: WorkflowInput) -> PhaseResult:
    request = ConfigureMlflowWorkflowRequest.model_validate(doc.request)
    if not request.create:
        return PhaseResult(
            skipped=True, message=f"Tracking server {request.trackingServerName} exists; no role to make."
        )
    prefix, bucket = settings().resource_prefix, settings().bucket
    role, iam = mlflow.role_name(prefix, doc.target), wiring.iam()
    arn = iam.ensure_role(
        role,
        mlflow.TRUSTED_SERVICE,
        [],
        ownership.aws_tags(doc.target, prefix),
        f"MLflow tracking server of {doc.target}, created by Launchpod",
    )
    iam.put_inline_policy(role, POLICY_NAME, mlflow.role_policy(bucket))
    return PhaseResult(
        outputs=ServerRoleOutput(roleArn=arn), message=f"{arn}: reaches {mlflow.artifact_store(bucket)} only"
    )


handler = phase("ServerRole")(run)
