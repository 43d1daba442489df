"""A cluster's models: a download from Hugging Face into an S3 storage (the model-download workflow), and the
models present in its S3 storages. The token is written to a Secret before the operation is recorded, so
neither the operation nor any log ever holds it; if the operation cannot be recorded, the Secret goes.
The ports are only the calls made, so unit tests pass in-memory fakes."""

from __future__ import annotations

import secrets as random
from dataclasses import dataclass
from typing import Any, Protocol

from launchpod.contracts.models import DownloadModelInput, ModelDownloadWorkflowRequest, ModelListView
from launchpod.contracts.operations import OperationView
from launchpod.domain import operations as ops
from launchpod.domain import ownership, storage
from launchpod.domain.errors import Conflict, next_step
from launchpod.domain.inference import models
from launchpod.usecases.ports import ControlPlanes
from launchpod.usecases.provisioning import require_active

MANAGED = f"{ownership.K8S_MANAGED_BY}={ownership.K8S_MANAGER},{storage.STORAGE_LABEL}"


class KubeObjects(Protocol):
    """Reads and writes of a cluster's Kubernetes objects (adapters.k8s.apply)."""

    def read(self, cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None: ...
    def apply(self, cluster: str, obj: dict[str, Any]) -> None: ...
    def delete(self, cluster: str, obj: dict[str, Any]) -> bool: ...
    def list_labelled(self, cluster: str, api_version: str, kind: str, selector: str) -> list[dict[str, Any]]: ...


class ObjectKeys(Protocol):
    """S3's keys under a prefix, at most ``limit`` (adapters.aws.s3): (keys, cut short)."""

    def list_keys(self, bucket: str, prefix: str, limit: int = 10_000) -> tuple[list[dict[str, Any]], bool]: ...


@dataclass(frozen=True)
class ModelPorts:
    eks: ControlPlanes
    kube: KubeObjects
    s3: ObjectKeys
    operations: ops.OperationStore
    workflows: ops.WorkflowRunner


def real() -> ModelPorts:
    """The deployed adapters (runtime.wiring)."""
    from launchpod.runtime import wiring

    return ModelPorts(
        eks=wiring.eks(),
        kube=wiring.kube(),
        s3=wiring.s3(),
        operations=wiring.operations(),
        workflows=wiring.workflows(),
    )


def _active(name: str, ports: ModelPorts) -> None:
    require_active(name, "models need", eks_clusters=ports.eks)


def _s3_storage(name: str, storage_name: str, ports: ModelPorts) -> tuple[str, str, str]:
    """(bucket, prefix, claim namespace) of an S3 storage Launchpod configured."""
    ref = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": storage_name}}
    volume = ports.kube.read(name, ref)
    source = storage.s3_prefix_of(volume) if volume and storage.managed(volume) else None
    if volume is None or source is None:
        raise Conflict(
            f"{name} has no S3 storage {storage_name} configured by Launchpod; add it to the cluster's storage, or"
            " choose one the cluster has.",
            details=[
                {"field": "body.storageName", "rule": "s3_storage_exists", "message": storage_name},
                next_step(f"POST /api/clusters/{name}/storage"),
            ],
        )
    namespace = ((volume.get("spec") or {}).get("claimRef") or {}).get("namespace", "default")
    return source[0], source[1], namespace


def download(request: DownloadModelInput, *, who: ops.Principal, ports: ModelPorts) -> OperationView:
    """Record and start the download into ``models/<repoId>/`` of the storage; a token goes into a Secret of the
    claim's namespace first, and only the Secret's name into the operation."""
    name = request.name
    _active(name, ports)
    bucket, prefix, namespace = _s3_storage(name, request.storageName, ports)
    job = models.job_name(request.repoId, request.revision)
    path = f"s3://{bucket}/{prefix}{models.MODELS}/{request.repoId}/"
    token_secret = None
    if request.hfToken is not None and not who.dry_run:  # a dry run writes nothing
        token_secret = f"{job}-token-{random.token_hex(3)}"
        ports.kube.apply(name, models.secret(token_secret, namespace, request.hfToken.get_secret_value()))
    doc = ModelDownloadWorkflowRequest(
        name=name,
        repoId=request.repoId,
        revision=request.revision,
        repoType=request.repoType,
        storage=request.storageName,
        namespace=namespace,
        job=job,
        tokenSecret=token_secret,
        path=path,
    )
    plan = models.plan(request, path)
    try:
        operation, _ = ops.submit(ports.operations, ports.workflows, models.workflow(doc, plan), who)
    except Exception:
        if token_secret:  # nothing will use it: do not leave the token behind
            ports.kube.delete(name, models.secret(token_secret, namespace, ""))
        raise
    return operation


def list_models(name: str, *, ports: ModelPorts) -> ModelListView:
    _active(name, ports)
    items, truncated = [], False
    for volume in ports.kube.list_labelled(name, "v1", "PersistentVolume", MANAGED):
        source = storage.s3_prefix_of(volume)
        if source is None:
            continue
        bucket, prefix = source
        objects, cut = ports.s3.list_keys(bucket, f"{prefix}{models.MODELS}/")
        truncated |= cut
        items += models.found_models(volume["metadata"]["name"], bucket, prefix, objects)
    return ModelListView(cluster=name, items=items, truncated=truncated)
