"""A cluster's models: downloads from Hugging Face into an S3 storage (the model-download workflow), and
the models present in its S3 storage. The token is written to a Secret here, before the operation is
recorded, so neither the operation nor any log ever holds it."""

from __future__ import annotations

import secrets as random
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.aws import s3
from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.common import ClusterName
from launchpod.contracts.models import (
    DownloadModelInput,
    DownloadModelRequest,
    ModelDownloadWorkflowRequest,
    ModelListView,
)
from launchpod.contracts.operations import OperationAcceptedView
from launchpod.domain import operations as ops
from launchpod.domain import ownership, storage
from launchpod.domain.errors import Conflict
from launchpod.domain.inference import models
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring

router = APIGatewayRouter()
MANAGED = f"{ownership.K8S_MANAGED_BY}={ownership.K8S_MANAGER},{storage.STORAGE_LABEL}"


def _active(name: str) -> None:
    eks = wiring.eks().cluster(name)
    if eks is None or eks.get("status") != "ACTIVE":
        state = eks.get("status") if eks else "not created"
        raise Conflict(f"The EKS control plane of {name} is {state}; models need an ACTIVE cluster.")


def _s3_storage(name: str, storage_name: str) -> tuple[str, str, str]:
    """(bucket, prefix, claim namespace) of an S3 storage Launchpod configured."""
    volume = k8s.read(name, {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": storage_name}})
    source = storage.s3_prefix_of(volume) if volume and storage.managed(volume) else None
    if volume is None or source is None:
        raise Conflict(
            f"{name} has no S3 storage {storage_name} configured by Launchpod; configure one "
            f"(POST /api/clusters/{name}/storage) or name one from GET /api/clusters/{name}/storage.",
            details=[{"field": "body.storage", "rule": "s3_storage_exists", "message": storage_name}],
        )
    namespace = ((volume.get("spec") or {}).get("claimRef") or {}).get("namespace", "default")
    return source[0], source[1], namespace


@route(router, "download_model")
def download_model(
    name: Annotated[ClusterName, Path()], body: Annotated[DownloadModelRequest, Body()]
) -> Response[OperationAcceptedView]:
    request = DownloadModelInput(name=name, **body.model_dump(exclude={"hfToken"}), hfToken=body.hfToken)
    _active(name)
    bucket, prefix, namespace = _s3_storage(name, request.storage)
    job = models.job_name(request.repoId, request.revision)
    path = f"s3://{bucket}/{prefix}{models.MODELS}/{request.repoId}/"
    token_secret = None
    if request.hfToken is not None and not router.context["principal"].dry_run:  # a dry run writes nothing
        token_secret = f"{job}-token-{random.token_hex(3)}"
        k8s.apply(name, models.secret(token_secret, namespace, request.hfToken.get_secret_value()))
    doc = ModelDownloadWorkflowRequest(
        name=name,
        repoId=request.repoId,
        revision=request.revision,
        repoType=request.repoType,
        storage=request.storage,
        namespace=namespace,
        job=job,
        tokenSecret=token_secret,
        path=path,
    )
    plan = models.plan(request, path)
    try:
        operation, _ = ops.submit(
            wiring.operations(), wiring.workflows(), models.workflow(doc, plan), router.context["principal"]
        )
    except Exception:
        if token_secret:  # nothing will use it: do not leave the token behind
            k8s.delete(name, models.secret(token_secret, namespace, ""))
        raise
    accepted = OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl)
    return json_response(accepted, 202, {"Location": accepted.statusUrl})


@route(router, "list_models")
def list_models(name: Annotated[ClusterName, Path()]) -> ModelListView:
    _active(name)
    items, truncated = [], False
    for volume in k8s.list_labelled(name, "v1", "PersistentVolume", MANAGED):
        source = storage.s3_prefix_of(volume)
        if source is None:
            continue
        bucket, prefix = source
        objects, cut = s3.list_keys(bucket, f"{prefix}{models.MODELS}/")
        truncated |= cut
        items += models.found_models(volume["metadata"]["name"], bucket, prefix, objects)
    return ModelListView(cluster=name, items=items, truncated=truncated)
