"""A cluster's storage: configured by a workflow (planned against the real PersistentVolume and claim),
listed, deleted at once (two Kubernetes deletes, only what Launchpod created; planned first: NOOP when the
storage is already gone, the plan on a dry run) and, for S3, browsed.
Every use case needs an ACTIVE control plane and takes its ports; ``real()`` builds the deployed ones."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from launchpod.contracts.operations import NoopView, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.storage import (
    ConfigureStorageInput,
    ConfigureStorageRequest,
    DeleteStorageView,
    StorageListView,
    StorageObjectListView,
    StorageObjectView,
    StorageView,
)
from launchpod.domain import operations as ops
from launchpod.domain import ownership, storage
from launchpod.domain.clusters import plans
from launchpod.domain.concurrency import ContextPool
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.domain.plan import Plan
from launchpod.runtime import wiring
from launchpod.usecases.ports import ControlPlanes, KubeDeleter, KubeLabelled, KubeReader, ObjectPages
from launchpod.usecases.proposal import Proposal, at_once
from launchpod.usecases.provisioning import require_active

MANAGED = f"{ownership.K8S_MANAGED_BY}={ownership.K8S_MANAGER},{storage.STORAGE_LABEL}"
NEEDS = "storage needs"


@dataclass(frozen=True)
class StoragePorts:
    operations: ops.OperationStore
    workflows: ops.WorkflowRunner
    eks: ControlPlanes
    read: KubeReader
    delete: KubeDeleter
    list_labelled: KubeLabelled
    s3_page: ObjectPages


def real() -> StoragePorts:
    """The deployed adapters (runtime.wiring)."""
    kube = wiring.kube()
    return StoragePorts(
        operations=wiring.operations(),
        workflows=wiring.workflows(),
        eks=wiring.eks(),
        read=kube.read,
        delete=kube.delete,
        list_labelled=kube.list_labelled,
        s3_page=wiring.s3().list_page,
    )


def require_claim(name: str, namespace: str, claim: str | None, *, read: KubeReader) -> None:
    """A job's or a Space's ``storageClaim`` must be a PersistentVolumeClaim of its namespace: 422 naming it.
    None: the workload mounts no claim, so there is nothing to check."""
    if claim is None:
        return
    ref = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim, "namespace": namespace}}
    if read(name, ref) is None:
        raise InvalidInput(
            f"No PersistentVolumeClaim {claim} in {namespace} on {name}; add storage to the cluster first (it makes"
            " the claim) or choose a claim it has.",
            field="body.storageClaim",
            rule="existing_claim",
        )


def _volume_object(storage_name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": storage_name}}


def claim_of(name: str, volume: dict[str, Any], *, read: KubeReader) -> dict[str, Any] | None:
    """The PersistentVolumeClaim the volume is bound to, if any."""
    ref = (volume.get("spec") or {}).get("claimRef") or {}
    if not ref:
        return None
    return read(name, storage.claim(ref["name"], ref.get("namespace", "default"), ""))


def volume_and_claim(
    cluster: str, storage_name: str, *, read: KubeReader
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A storage Launchpod configured, and its claim; (None, None) when there is none."""
    volume = read(cluster, _volume_object(storage_name))
    if volume is None or not storage.managed(volume):
        return None, None
    return volume, claim_of(cluster, volume, read=read)


def _volume(name: str, storage_name: str, ports: StoragePorts) -> dict[str, Any]:
    found = ports.read(name, _volume_object(storage_name))
    if found is None or not storage.managed(found):
        raise NotFound(
            f"{name} has no storage {storage_name} configured by Launchpod; list its storage for the names it has."
        )
    return found


def start_configure(
    request: ConfigureStorageInput, who: ops.Principal, steps: Plan | None = None, *, ports: StoragePorts
) -> OperationView:
    require_active(request.name, NEEDS, eks_clusters=ports.eks)
    workflow = storage.plan(request)
    if steps is not None:
        workflow = replace(workflow, steps=steps.views())
    operation, _ = ops.submit(ports.operations, ports.workflows, workflow, who)
    return operation


def configure(name: str, body: ConfigureStorageRequest, who: ops.Principal, *, ports: StoragePorts) -> Proposal:
    """The storage planned against its real volume and claim (409 when a volume of that name is not
    Launchpod's), started by configure-storage. The plan compares only the fields ``body`` was sent with."""
    request = ConfigureStorageInput(name=name, **body.model_dump(exclude_unset=True, exclude_none=True))
    require_active(name, NEEDS, eks_clusters=ports.eks)
    found = ports.read(name, _volume_object(request.storageName))
    if found is not None and not storage.managed(found):
        raise Conflict(
            f"A PersistentVolume {request.storageName} exists on {name} and Launchpod did not create it; choose"
            " another storageName.",
            details=[{"field": "body.storageName", "rule": "owned_by_launchpod", "message": request.storageName}],
        )
    volume = found if storage.managed(found) else None
    steps = plans.storage_plan(name, body, volume, claim_of(name, volume, read=ports.read) if volume else None)
    return Proposal(
        steps,
        lambda: start_configure(request, who, steps, ports=ports),
        noop=f"Storage {request.storageName} is already Bound as asked; no changes.",
    )


def list_storage(name: str, *, ports: StoragePorts) -> StorageListView:
    """The volumes Launchpod made, each with its claim: the cluster's status and the volumes are read side by
    side, then the claims."""
    with ContextPool(max_workers=4, thread_name_prefix="storage") as pool:
        checked = pool.submit(require_active, name, NEEDS, eks_clusters=ports.eks)
        listed = pool.submit(ports.list_labelled, name, "v1", "PersistentVolume", MANAGED)
        checked.result()  # a cluster that is not ACTIVE answers 409 whatever the list found
        volumes = listed.result()
        claims = list(pool.map(lambda v: claim_of(name, v, read=ports.read), volumes))
    items = [StorageView(**storage.describe(v, c)) for v, c in zip(volumes, claims, strict=True)]
    return StorageListView(cluster=name, items=sorted(items, key=lambda i: i.storageName))


def delete_storage(
    name: str, storage_name: str, dry_run: bool, *, ports: StoragePorts
) -> DeleteStorageView | NoopView | PlanView:
    """The volume and, when Launchpod created it, its claim; the data stays where it is (S3 or FSx). NOOP
    when there is no such volume (deleted already), 409 for a volume Launchpod did not create."""
    require_active(name, NEEDS, eks_clusters=ports.eks)
    volume = ports.read(name, _volume_object(storage_name))
    if volume is not None and not storage.managed(volume):
        raise Conflict(
            f"The PersistentVolume {storage_name} on {name} was not created by Launchpod; it is left in place.",
            details=[{"field": "path.storageName", "rule": "owned_by_launchpod", "message": storage_name}],
        )
    claim = claim_of(name, volume, read=ports.read) if volume is not None else None
    plan = storage.delete_plan(name, storage_name, volume, claim)

    def apply() -> DeleteStorageView:
        assert volume is not None  # an empty plan is never applied
        deleted = []
        if claim is not None and storage.managed(claim):
            meta = claim["metadata"]
            if ports.delete(name, {"apiVersion": "v1", "kind": "PersistentVolumeClaim", **{"metadata": meta}}):
                deleted.append(f"PersistentVolumeClaim/{meta['namespace']}/{meta['name']}")
        if ports.delete(name, volume):
            deleted.append(f"PersistentVolume/{storage_name}")
        return DeleteStorageView(cluster=name, storageName=storage_name, deleted=deleted)

    noop = f"{name} has no storage {storage_name}; nothing to delete (list its storage for the names it has)."
    return at_once(plan, dry_run, noop, apply)


def browse(
    name: str, storage_name: str, prefix: str | None, token: str | None, *, ports: StoragePorts
) -> StorageObjectListView:
    """One page of an S3 storage's objects under ``prefix`` (an FSx storage cannot be browsed: 422)."""
    require_active(name, NEEDS, eks_clusters=ports.eks)
    source = storage.s3_prefix_of(_volume(name, storage_name, ports))
    if source is None:
        raise InvalidInput(
            f"{storage_name} is an FSx for Lustre storage; only S3 storage can be browsed here.",
            field="storageName",
            rule="an S3 storage",
        )
    bucket, base = source
    under = base + (prefix.strip("/") + "/" if prefix else "")
    page = ports.s3_page(bucket, under, token)
    return StorageObjectListView(
        storageName=storage_name,
        bucket=bucket,
        prefix=under,
        objects=[
            StorageObjectView(key=o.key.removeprefix(base), size=o.size, lastModified=o.last_modified.isoformat())
            for o in page.objects
        ],
        prefixes=[p.removeprefix(base) for p in page.prefixes],
        nextToken=page.next_token,
    )
