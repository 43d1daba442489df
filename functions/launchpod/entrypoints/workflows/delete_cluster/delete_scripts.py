"""DeleteScripts: the cluster's lifecycle scripts in the shared bucket (the bucket itself stays)."""

from __future__ import annotations

from launchpod.adapters.aws import s3
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime.settings import settings


def run(doc: WorkflowInput) -> PhaseResult:
    count = s3.delete_prefix(settings().bucket, f"{hyperpod.SCRIPTS_PREFIX}/{doc.target}/")
    return PhaseResult(outputs={"deleted": count}, message=f"Deleted {count} objects.", skipped=count == 0)


handler = phase("DeleteScripts")(run)
