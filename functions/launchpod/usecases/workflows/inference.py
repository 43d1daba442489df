"""The inference workflow's phases: an endpoint deployed, scaled or deleted, then followed until Ready or
gone."""

from __future__ import annotations

from launchpod.contracts.inference import EndpointWorkflowRequest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import PermanentError
from launchpod.domain.inference import endpoints, manifests, multinode, waiting
from launchpod.runtime import wiring
from launchpod.usecases.workflows.phase import PhaseResult

WAIT_ENDPOINT = "WaitEndpoint"


def apply_endpoint(doc: WorkflowInput) -> PhaseResult:
    """ApplyEndpoint: the endpoint's objects server-side applied (deploy), its replicas patched (scale), or its
    objects deleted (delete); re-runnable: each action checks what the cluster already has."""
    request = EndpointWorkflowRequest.model_validate(doc.request)
    k8s = wiring.kube()
    if request.action == "deploy":
        assert request.create is not None
        made = manifests.objects(
            request.create, request.bucket or "", request.region or "", request.prefix, request.fsx, request.efa
        )
        for obj in made:
            k8s.apply(doc.target, obj)
        return PhaseResult(message="Applied " + ", ".join(f"{o['kind']} {o['metadata']['name']}" for o in made) + ".")
    cluster_endpoints = wiring.kube_endpoints()
    real = cluster_endpoints.endpoint(doc.target, request.endpoint)
    if request.action == "scale":
        if real is None:
            raise PermanentError(f"Endpoint {request.endpoint} is gone from {doc.target}; nothing to scale.")
        cluster_endpoints.scale(doc.target, real, request.replicas or 0)
        return PhaseResult(message=f"{request.endpoint}: replicas {real.desired} -> {request.replicas}.")
    if real is None:
        return PhaseResult(message=f"Endpoint {request.endpoint} is already gone.")
    k8s.delete(doc.target, manifests.primary_ref(real.kind, real.name, real.namespace))
    if real.scaler is not None:
        k8s.delete(doc.target, manifests.scaled_object_ref(real.name, real.namespace))
    if real.kind == "container":
        k8s.delete(doc.target, manifests.service_ref(real.name, real.namespace))
        spans = multinode.nodes_of(real.primary)
        for ref in [
            manifests.prefill_ref(real.name, real.namespace),
            *manifests.router_refs(real.name, real.namespace),
            *(multinode.refs(real.name, real.namespace)[:spans] if spans > 1 else []),
        ]:
            k8s.delete(doc.target, ref)
    return PhaseResult(message=f"Deleting {manifests.KINDS[real.kind]} {real.namespace}/{real.name}.")


def wait_endpoint(doc: WorkflowInput) -> PhaseResult:
    """WaitEndpoint: polls until every replica is Ready (and a load-balanced Service has its hostname), or,
    for delete, until the endpoint's objects are gone; fails with the scheduler's or the operator's words."""
    request = EndpointWorkflowRequest.model_validate(doc.request)
    real = wiring.kube_endpoints().endpoint(doc.target, request.endpoint)
    polls = doc.poll.get(WAIT_ENDPOINT, 0)
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
    if waiting.waited(polls) >= waiting.GIVE_UP_SECONDS:
        raise PermanentError(
            f"Endpoint {request.endpoint} is still {status} after 15 minutes" + (f": {message}" if message else ".")
        )
    progress = f"{real.ready}/{real.desired} Ready" if real is not None else ""
    return PhaseResult(
        ready=False,
        wait=waiting.look_after(polls),
        message=f"{request.endpoint} is {status} {progress}".strip() + (f": {message}" if message else ""),
    )
