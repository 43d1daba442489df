"""WaitEndpoint: polls until every replica is Ready (and a load-balanced Service has its hostname), or,
for delete, until the endpoint's objects are gone; fails with the scheduler's or the operator's words."""

from __future__ import annotations

from launchpod.adapters.k8s import endpoints as cluster_endpoints
from launchpod.contracts.inference import EndpointWorkflowRequest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import PermanentError
from launchpod.domain.inference import endpoints
from launchpod.entrypoints.workflows.phase import PhaseResult, phase

PHASE = "WaitEndpoint"


def run(doc: WorkflowInput) -> PhaseResult:
    request = EndpointWorkflowRequest.model_validate(doc.request)
    real = cluster_endpoints.endpoint(doc.target, request.endpoint)
    polls = doc.poll.get(PHASE, 0)
    if request.action == "delete":
        if real is None:
            return PhaseResult(message=f"Endpoint {request.endpoint} deleted.")
        status, message = "Deleting", None
    elif real is None:
        raise PermanentError(f"Endpoint {request.endpoint} is not on {doc.target} any more.")
    else:
        status, message = endpoints.status_of(real)
        if status == "Failed":
            raise PermanentError(f"Endpoint {request.endpoint} failed: {message}")
        if status == "Ready":
            url = endpoints.url_of(real)
            return PhaseResult(
                outputs={"url": url or "", "readyReplicas": real.ready},
                message=f"{request.endpoint}: {real.ready}/{real.desired} replicas Ready at {url}.",
            )
    if polls >= endpoints.MAX_POLLS:
        raise PermanentError(
            f"Endpoint {request.endpoint} is still {status} after 15 minutes" + (f": {message}" if message else ".")
        )
    progress = f"{real.ready}/{real.desired} Ready" if real is not None else ""
    return PhaseResult(
        ready=False,
        wait=endpoints.POLL_SECONDS,
        message=f"{request.endpoint} is {status} {progress}".strip() + (f": {message}" if message else ""),
    )


handler = phase(PHASE)(run)
