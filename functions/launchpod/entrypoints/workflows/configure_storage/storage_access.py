"""StorageAccess: the CSI driver add-on (installed by reconcile-dependencies with its pod identity) is
ACTIVE, or DEGRADED only because its controller has no node yet (the volume and claim are API objects and
bind without it; pods mount once nodes run the driver), and the source exists: the shared bucket's
prefix, or the FSx for Lustre file system."""

from __future__ import annotations

from launchpod.adapters.aws import fsx
from launchpod.contracts.phase_outputs import StorageAccessOutput
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons, storage
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "StorageAccess"


def _state(addon: dict[str, object]) -> str:
    return "ACTIVE" if addon.get("status") == "ACTIVE" else "installed, waits for nodes"


def run(doc: WorkflowInput) -> PhaseResult:
    request = ConfigureStorageInput.model_validate(doc.request)
    addon = storage.ADDON[request.kind]
    found = wiring.eks().addons(doc.target).get(addon)
    if found is None or not addons.settled(found):
        state = f"is {found.get('status')}" if found else "is not installed"
        optional = ' with {"includeOptional": true}' if request.kind == "fsx" else ""
        raise PermanentError(
            f"The CSI driver add-on {addon} {state} on {doc.target}. Install the cluster's dependencies first: "
            f"POST /api/clusters/{doc.target}/dependencies{optional}, wait for it to succeed, then retry."
        )
    if request.kind == "s3":
        bucket = settings().bucket
        return PhaseResult(
            outputs=StorageAccessOutput(bucket=bucket, region=settings().region, prefix=request.prefix),
            message=f"{addon} {_state(found)}; mounting {storage.s3_source(bucket, request.prefix)}",
        )
    assert request.fileSystemId is not None
    described = fsx.file_system(request.fileSystemId)
    lustre = described.get("LustreConfiguration") or {}
    if described.get("FileSystemType") != "LUSTRE" or not lustre.get("MountName"):
        raise PermanentError(
            f"{request.fileSystemId} is an FSx for {described.get('FileSystemType', 'unknown').title()} file "
            "system; storage attaches FSx for Lustre only."
        )
    lifecycle = described.get("Lifecycle", "AVAILABLE")
    if lifecycle not in ("AVAILABLE", "UPDATING"):
        raise PermanentError(f"{request.fileSystemId} is {lifecycle}; attach it once it is AVAILABLE.")
    return PhaseResult(
        outputs=StorageAccessOutput(dnsName=described["DNSName"], mountName=lustre["MountName"]),
        message=f"{addon} {_state(found)}; {request.fileSystemId} at {described['DNSName']}@tcp:/{lustre['MountName']}",
    )


handler = phase(PHASE)(run)
