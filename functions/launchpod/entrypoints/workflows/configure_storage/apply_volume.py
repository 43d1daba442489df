"""ApplyVolume: the PersistentVolume and its PersistentVolumeClaim, server-side applied."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.phase_outputs import StorageAccessOutput
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import storage
from launchpod.domain.errors import Conflict
from launchpod.entrypoints.workflows.phase import PhaseResult, phase

PHASE = "ApplyVolume"


def objects_of(request: ConfigureStorageInput, access: StorageAccessOutput) -> list[dict[str, Any]]:
    if request.kind == "s3":
        assert access.bucket is not None and access.region is not None
        return storage.s3_objects(request.storageName, request.namespace, access.bucket, access.region, access.prefix)
    assert request.fileSystemId is not None and access.dnsName is not None and access.mountName is not None
    return storage.fsx_objects(
        request.storageName, request.namespace, request.fileSystemId, access.dnsName, access.mountName
    )


def run(doc: WorkflowInput) -> PhaseResult:
    request = ConfigureStorageInput.model_validate(doc.request)
    volume, claim = objects_of(request, doc.require(StorageAccessOutput))
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


handler = phase(PHASE)(run)
