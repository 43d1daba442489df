"""The configure-storage workflow's phases: a Mountpoint for S3 or FSx for Lustre volume and its claim,
applied and Bound."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import StorageAccessOutput
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons, storage
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.errors import Conflict, PermanentError
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.phase import PhaseResult

WAIT_BOUND = "WaitBound"


def _state(addon: EksAddon) -> str:
    return "ACTIVE" if addon.status == "ACTIVE" else "installed, waits for nodes"


def storage_access(doc: WorkflowInput) -> PhaseResult:
    """StorageAccess: the CSI driver add-on (installed by reconcile-dependencies with its pod identity) is
    ACTIVE, or DEGRADED only because its controller has no node yet (the volume and claim are API objects and
    bind without it; pods mount once nodes run the driver), and the source exists: the shared bucket's
    prefix, or the FSx for Lustre file system."""
    request = ConfigureStorageInput.model_validate(doc.request)
    addon = storage.ADDON[request.kind]
    found = wiring.eks().addons(doc.target).get(addon)
    if found is None or not addons.settled(found):
        state = f"is {found.status}" if found else "is not installed"
        optional = " with the optional ones" if request.kind == "fsx" else ""
        raise PermanentError(
            f"The CSI driver add-on {addon} {state} on {doc.target}. Install the cluster's dependencies{optional}"
            " first, wait until that operation succeeds, then retry."
        )
    if request.kind == "s3":
        bucket = settings().bucket
        return PhaseResult(
            outputs=StorageAccessOutput(bucket=bucket, region=settings().region, prefix=request.prefix),
            message=f"{addon} {_state(found)}; mounting {storage.s3_source(bucket, request.prefix)}",
        )
    assert request.fileSystemId is not None
    described = wiring.fsx().file_system(request.fileSystemId)
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


def apply_volume(doc: WorkflowInput) -> PhaseResult:
    """ApplyVolume: the PersistentVolume and its PersistentVolumeClaim, server-side applied."""
    request = ConfigureStorageInput.model_validate(doc.request)
    volume, claim = storage.volume_objects(request, doc.require(StorageAccessOutput))
    k8s = wiring.kube()
    existing = k8s.read(doc.target, volume)
    if existing is not None and not storage.managed(existing):
        raise Conflict(
            f"A PersistentVolume named {request.storageName} exists on {doc.target} and Launchpod did not create it; "
            "choose another storageName."
        )
    for obj in (volume, claim):
        k8s.apply(doc.target, obj)
    return PhaseResult(
        outputs={"volume": request.storageName, "namespace": request.namespace},
        message=f"PersistentVolume {request.storageName} and claim {request.namespace}/{request.storageName} applied.",
    )


def wait_bound(doc: WorkflowInput) -> PhaseResult:
    """WaitBound: polls the claim until Kubernetes binds it to its volume."""
    request = ConfigureStorageInput.model_validate(doc.request)
    claim = storage.claim(request.storageName, request.namespace, "")
    found = wiring.kube().read(doc.target, claim)
    status = ((found or {}).get("status") or {}).get("phase", "Pending") if found else "missing"
    if status == "Bound":
        return PhaseResult(outputs={"phase": status}, message=f"{request.namespace}/{request.storageName} is Bound.")
    if status in ("Lost", "missing") or doc.poll.get(WAIT_BOUND, 0) >= storage.MAX_POLLS:
        raise PermanentError(
            f"Claim {request.namespace}/{request.storageName} is {status}, not Bound; "
            f"check `kubectl describe pvc {request.storageName} -n {request.namespace}`, then retry."
        )
    return PhaseResult(ready=False, wait=storage.POLL_SECONDS, message=f"Claim is {status}")
