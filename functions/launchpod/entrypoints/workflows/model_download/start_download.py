"""StartDownload: the download Job applied (server-side apply: re-running it changes nothing)."""

from __future__ import annotations

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.models import ModelDownloadWorkflowRequest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.inference import models
from launchpod.entrypoints.workflows.phase import PhaseResult, phase


def run(doc: WorkflowInput) -> PhaseResult:
    request = ModelDownloadWorkflowRequest.model_validate(doc.request)
    k8s.apply(doc.target, models.job(request))
    return PhaseResult(message=f"Job {request.namespace}/{request.job} downloads {request.repoId} to {request.path}")


handler = phase("StartDownload")(run)
