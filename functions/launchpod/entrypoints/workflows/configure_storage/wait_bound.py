"""WaitBound: polls the claim until Kubernetes binds it to its volume."""

from __future__ import annotations

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import storage
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase

PHASE = "WaitBound"


def run(doc: WorkflowInput) -> PhaseResult:
    request = ConfigureStorageInput.model_validate(doc.request)
    claim = storage.claim(request.storageName, request.namespace, "")
    found = k8s.read(doc.target, claim)
    status = ((found or {}).get("status") or {}).get("phase", "Pending") if found else "missing"
    if status == "Bound":
        return PhaseResult(outputs={"phase": status}, message=f"{request.namespace}/{request.storageName} is Bound.")
    if status in ("Lost", "missing") or doc.poll.get(PHASE, 0) >= storage.MAX_POLLS:
        raise PermanentError(
            f"Claim {request.namespace}/{request.storageName} is {status}, not Bound; "
            f"check `kubectl describe pvc {request.storageName} -n {request.namespace}`, then retry."
        )
    return PhaseResult(ready=False, wait=storage.POLL_SECONDS, message=f"Claim is {status}")


handler = phase(PHASE)(run)
