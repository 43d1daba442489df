"""ApplyEndpoint: the endpoint's objects server-side applied (deploy), its replicas patched (scale), or its
objects deleted (delete); re-runnable: each action checks what the cluster already has."""

from __future__ import annotations

from launchpod.adapters.k8s import apply as k8s
from launchpod.adapters.k8s import endpoints as cluster_endpoints
from launchpod.contracts.inference import EndpointWorkflowRequest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import PermanentError
from launchpod.domain.inference import manifests
from launchpod.entrypoints.workflows.phase import PhaseResult, phase


def run(doc: WorkflowInput) -> PhaseResult:
    request = EndpointWorkflowRequest.model_validate(doc.request)
    if request.action == "deploy":
        assert request.create is not None
        made = manifests.objects(
            request.create, request.bucket or "", request.region or "", request.prefix, request.fsx
        )
        for obj in made:
            k8s.apply(doc.target, obj)
        return PhaseResult(message="Applied " + ", ".join(f"{o['kind']} {o['metadata']['name']}" for o in made) + ".")
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
        for ref in manifests.router_refs(real.name, real.namespace):
            k8s.delete(doc.target, ref)
    return PhaseResult(message=f"Deleting {manifests.KINDS[real.kind]} {real.namespace}/{real.name}.")


handler = phase("ApplyEndpoint")(run)
