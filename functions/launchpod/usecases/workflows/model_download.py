"""The model-download workflow's phases: a Hugging Face repository downloaded by a CPU Job into an S3 storage
under models/."""

from __future__ import annotations

from launchpod.contracts.models import ModelDownloadWorkflowRequest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import PermanentError
from launchpod.domain.inference import models
from launchpod.runtime import wiring
from launchpod.usecases.workflows.phase import PhaseResult

WAIT_DOWNLOAD = "WaitDownload"


def start_download(doc: WorkflowInput) -> PhaseResult:
    """StartDownload: the download Job applied (server-side apply: re-running it changes nothing)."""
    request = ModelDownloadWorkflowRequest.model_validate(doc.request)
    wiring.kube().apply(doc.target, models.job(request))
    return PhaseResult(message=f"Job {request.namespace}/{request.job} downloads {request.repoId} to {request.path}")


def _forget_token(cluster: str, request: ModelDownloadWorkflowRequest) -> None:
    if request.tokenSecret:
        wiring.kube().delete(cluster, models.secret(request.tokenSecret, request.namespace, ""))


def wait_download(doc: WorkflowInput) -> PhaseResult:
    """WaitDownload: polls the Job until it succeeds (the operation's output is the model's path) or fails
    (with the pod's words); either way the token's Secret is deleted once the Job no longer needs it."""
    request = ModelDownloadWorkflowRequest.model_validate(doc.request)
    found = wiring.kube().read(doc.target, models.job(request)) or {}
    status = found.get("status") or {}
    conditions = {c.get("type"): c for c in status.get("conditions") or [] if c.get("status") == "True"}
    if "Complete" in conditions:
        _forget_token(doc.target, request)
        return PhaseResult(outputs={"path": request.path}, message=f"{request.repoId} is in {request.path}")
    if "Failed" in conditions:
        _forget_token(doc.target, request)
        reason = conditions["Failed"].get("message") or conditions["Failed"].get("reason") or "the Job failed"
        raise PermanentError(f"Downloading {request.repoId} failed: {reason}")
    if doc.poll.get(WAIT_DOWNLOAD, 0) >= models.MAX_POLLS:
        _forget_token(doc.target, request)
        raise PermanentError(f"Downloading {request.repoId} did not finish in 3 hours.")
    active = status.get("active", 0)
    return PhaseResult(
        ready=False,
        wait=models.POLL_SECONDS,
        message=f"Downloading {request.repoId}@{request.revision}" + (" (running)" if active else " (pending)"),
    )
