"""A cluster's storage: configure (a workflow), list, delete (synchronous: two Kubernetes deletes) and
browse the objects of an S3 storage."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.aws import s3
from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.common import ClusterName, K8sName
from launchpod.contracts.operations import NoopView, OperationAcceptedView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.storage import (
    ConfigureStorageInput,
    ConfigureStorageRequest,
    DeleteStorageView,
    S3Prefix,
    StorageListView,
    StorageObjectListView,
    StorageObjectView,
    StorageView,
)
from launchpod.domain import ownership, storage
from launchpod.domain.clusters import plans
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.entrypoints.api.routing import input_of, planned, route
from launchpod.runtime import wiring
from launchpod.usecases import provisioning

router = APIGatewayRouter()
MANAGED = f"{ownership.K8S_MANAGED_BY}={ownership.K8S_MANAGER},{storage.STORAGE_LABEL}"


def _volume(name: str, storage_name: str) -> dict[str, Any]:
    found = k8s.read(name, {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": storage_name}})
    if not storage.managed(found):
        raise NotFound(f"{name} has no storage {storage_name} configured by Launchpod; GET its storage list.")
    assert found is not None
    return found


def _claim_of(name: str, volume: dict[str, Any]) -> dict[str, Any] | None:
    ref = (volume.get("spec") or {}).get("claimRef") or {}
    if not ref:
        return None
    return k8s.read(name, storage.claim(ref["name"], ref.get("namespace", "default"), ""))


@route(router, "configure_storage")
def configure_storage(
    name: Annotated[ClusterName, Path()],
    body: Annotated[ConfigureStorageRequest, Body()],
    dryRun: Annotated[bool, Query()] = False,
) -> Response[OperationAcceptedView | NoopView | PlanView]:
    request = input_of(ConfigureStorageInput, body, name=name)
    provisioning.require_active(name, "storage needs", eks_clusters=wiring.eks())
    found = k8s.read(name, {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": body.storageName}})
    if found is not None and not storage.managed(found):
        raise Conflict(
            f"A PersistentVolume {body.storageName} exists on {name} and Launchpod did not create it; choose another"
            " storageName.",
            details=[{"field": "body.storageName", "rule": "owned_by_launchpod", "message": body.storageName}],
        )
    volume = found if storage.managed(found) else None
    steps = plans.storage_plan(name, body, volume, _claim_of(name, volume) if volume else None)
    return planned(
        steps,
        dryRun,
        lambda: provisioning.start_configure(request, router.context["principal"], steps),
        noop=f"Storage {body.storageName} is already Bound as asked; no changes.",
    )


@route(router, "list_storage")
def list_storage(name: Annotated[ClusterName, Path()]) -> StorageListView:
    provisioning.require_active(name, "storage needs", eks_clusters=wiring.eks())
    volumes = k8s.list_labelled(name, "v1", "PersistentVolume", MANAGED)
    items = [StorageView(**storage.describe(v, _claim_of(name, v))) for v in volumes]
    return StorageListView(cluster=name, items=sorted(items, key=lambda i: i.storageName))


@route(router, "delete_storage")
def delete_storage(name: Annotated[ClusterName, Path()], storageName: Annotated[K8sName, Path()]) -> DeleteStorageView:
    provisioning.require_active(name, "storage needs", eks_clusters=wiring.eks())
    volume = _volume(name, storageName)
    deleted = []
    claim = _claim_of(name, volume)
    if storage.managed(claim):
        assert claim is not None
        meta = claim["metadata"]
        if k8s.delete(name, {"apiVersion": "v1", "kind": "PersistentVolumeClaim", **{"metadata": meta}}):
            deleted.append(f"PersistentVolumeClaim/{meta['namespace']}/{meta['name']}")
    if k8s.delete(name, volume):
        deleted.append(f"PersistentVolume/{storageName}")
    return DeleteStorageView(cluster=name, storageName=storageName, deleted=deleted)


@route(router, "browse_storage")
def browse_storage(
    name: Annotated[ClusterName, Path()],
    storageName: Annotated[K8sName, Path()],
    prefix: Annotated[S3Prefix | None, Query()] = None,
    continuationToken: Annotated[str | None, Query(max_length=2048)] = None,
) -> StorageObjectListView:
    provisioning.require_active(name, "storage needs", eks_clusters=wiring.eks())
    source = storage.s3_prefix_of(_volume(name, storageName))
    if source is None:
        raise InvalidInput(
            f"{storageName} is an FSx for Lustre storage; only S3 storage can be browsed here.",
            field="storageName",
            rule="an S3 storage",
        )
    bucket, base = source
    under = base + (prefix.strip("/") + "/" if prefix else "")
    page = s3.list_page(bucket, under, continuationToken)
    return StorageObjectListView(
        storageName=storageName,
        bucket=bucket,
        prefix=under,
        objects=[
            StorageObjectView(
                key=o["Key"].removeprefix(base), size=o["Size"], lastModified=o["LastModified"].isoformat()
            )
            for o in page.get("Contents", [])
        ],
        prefixes=[p["Prefix"].removeprefix(base) for p in page.get("CommonPrefixes", [])],
        nextContinuationToken=page.get("NextContinuationToken"),
    )
