"""A cluster's inference endpoints: deploy, scale and delete (the inference workflow), list and read
(straight from the cluster), and invoke (a chat completion the API sends to the endpoint's own Service)."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import apply as k8s
from launchpod.adapters.k8s import endpoints as cluster_endpoints
from launchpod.contracts.common import ClusterName
from launchpod.contracts.inference import (
    AssignPodRequest,
    AssignPodView,
    CreateEndpointInput,
    CreateEndpointRequest,
    EndpointListView,
    EndpointName,
    EndpointView,
    EndpointWorkflowRequest,
    FsxModelSource,
    InvokeEndpointRequest,
    InvokeView,
    ScaleEndpointInput,
    ScaleEndpointRequest,
)
from launchpod.contracts.operations import NoopView, OperationAcceptedView, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.domain import features, storage
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.dependencies import lbc
from launchpod.domain.errors import Conflict, NotFound
from launchpod.domain.inference import endpoints, manifests
from launchpod.domain.inference.endpoints import RealEndpoint
from launchpod.domain.plan import Plan
from launchpod.entrypoints.api.routing import input_of, json_response, planned, route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

router = APIGatewayRouter()


def _active(name: str) -> None:
    eks = wiring.eks().cluster(name)
    if eks is None or eks.get("status") != "ACTIVE":
        state = eks.get("status") if eks else "not created"
        raise Conflict(f"The EKS control plane of {name} is {state}; endpoints need an ACTIVE cluster.")


def _groups(name: str) -> dict[str, str]:
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name)) or {}
    return {g["InstanceGroupName"]: g["InstanceType"] for g in cluster.get("InstanceGroups", [])}


def _needs_operator(request: CreateEndpointInput) -> None:
    """managed and jumpstart endpoints are the operator's; a container's ScaledObject needs KEDA, which
    the inference add-on installs with its KEDA operator role (AWS Architecture Blog, "Simplified
    Inference Operator setup on Amazon SageMaker HyperPod", 2026-04-06)."""
    keda = request.container is not None and request.container.autoscaling is not None
    if (request.kind == "container" and not keda) or features.inference_enabled(wiring.eks().addons(request.name)):
        return
    if keda:
        raise Conflict(
            f"Container autoscaling is a KEDA ScaledObject, and KEDA comes with the HyperPod inference operator, "
            f"which is not enabled on {request.name}. Enable it (PATCH /api/clusters/{request.name}/features with "
            '{"inferenceOperator": {"enabled": true}}), or deploy without autoscaling.',
            details=[
                {"field": "body.container.autoscaling", "rule": "keda_installed", "message": "inference operator"}
            ],
        )
    raise Conflict(
        f"{request.kind} endpoints are run by the HyperPod inference operator, which is not enabled on "
        f"{request.name}. Enable it (PATCH /api/clusters/{request.name}/features with "
        '{"inferenceOperator": {"enabled": true}}) and send the request again, or deploy kind container.',
        details=[{"field": "body.kind", "rule": "inference_operator_enabled", "message": "inference operator"}],
    )


def _volume(name: str, storage_name: str, namespace: str) -> dict[str, Any] | None:
    """The PersistentVolume of a storage Launchpod configured, whose claim is in ``namespace``; None when there
    is no such storage."""
    volume = k8s.read(name, {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": storage_name}})
    if volume is None or not storage.managed(volume):
        return None
    claim_ns = ((volume.get("spec") or {}).get("claimRef") or {}).get("namespace", "default")
    if claim_ns != namespace:
        raise Conflict(
            f"The storage {storage_name} is claimed in namespace {claim_ns}, not {namespace}; deploy the endpoint "
            f"in {claim_ns}.",
            details=[{"field": "body.namespace", "rule": "same_namespace_as_storage", "message": claim_ns}],
        )
    return volume


def _missing(name: str, storage_name: str, field: str, kinds: str) -> Conflict:
    return Conflict(
        f"{name} has no {kinds} storage {storage_name} configured by Launchpod; configure one "
        f"(POST /api/clusters/{name}/storage) or name one from GET /api/clusters/{name}/storage.",
        details=[{"field": field, "rule": "storage_exists", "message": storage_name}],
    )


def _model_source(name: str, storage_name: str, namespace: str) -> tuple[str | None, str | None, FsxModelSource | None]:
    """(bucket, prefix, None) of an S3 storage, or (None, None, the file system) of an FSx one."""
    field = "body.managed.storage"
    volume = _volume(name, storage_name, namespace)
    s3 = storage.s3_prefix_of(volume) if volume else None
    if s3 is not None:
        return s3[0], s3[1], None
    fsx = storage.fsx_source_of(volume) if volume else None
    if fsx is None:
        raise _missing(name, storage_name, field, "S3 or FSx")
    return None, None, FsxModelSource(fileSystemId=fsx[0], dnsName=fsx[1], mountName=fsx[2])


def _claim(name: str, storage_name: str, namespace: str) -> None:
    """A container mounts an S3 storage's claim at /s3."""
    field = "body.container.storage"
    volume = _volume(name, storage_name, namespace)
    if volume is None or storage.s3_prefix_of(volume) is None:
        raise _missing(name, storage_name, field, "S3")


def _needs_balancer(name: str) -> None:
    """A loadBalancer Service gets its NLB only from the AWS Load Balancer Controller; without it the
    Service would wait for an address forever, so the request is refused with what to do. Installing it
    from here would create an IAM role and a cluster-wide controller as a side effect of one endpoint, so
    that stays the dependency reconcile's (an explicit, planned operation)."""
    if k8s.read(name, lbc.deployment_ref()) is None:
        raise Conflict(
            lbc.missing(name),
            details=[
                {"field": "body.container.service", "rule": "load_balancer_controller_installed", "message": lbc.NAME}
            ],
        )


def _existing(name: str, endpoint: str) -> RealEndpoint:
    found = cluster_endpoints.endpoint(name, endpoint)
    if found is None:
        raise NotFound(f"{name} has no endpoint {endpoint} deployed by Launchpod; GET /api/clusters/{name}/endpoints.")
    return found


def _submit(name: str, request: EndpointWorkflowRequest, plan: Plan) -> OperationView:
    doc = request.model_dump(mode="json", exclude_none=True)
    workflow = endpoints.workflow(name, doc, plan)
    operation, _ = ops.submit(wiring.operations(), wiring.workflows(), workflow, router.context["principal"])
    return operation


@route(router, "create_endpoint")
def create_endpoint(
    name: Annotated[ClusterName, Path()],
    body: Annotated[CreateEndpointRequest, Body()],
    dryRun: Annotated[bool, Query()] = False,
) -> Response[OperationAcceptedView | NoopView | PlanView]:
    request = input_of(CreateEndpointInput, body, name=name)
    _active(name)
    endpoints.check_instance_type(request, _groups(name))
    _needs_operator(request)
    bucket = prefix = fsx = None
    if request.managed is not None:
        bucket, prefix, fsx = _model_source(name, request.managed.storage, request.namespace)
    if request.container is not None and request.container.storage:
        _claim(name, request.container.storage, request.namespace)
    if request.container is not None and request.container.service == "loadBalancer":
        _needs_balancer(name)
    plan = endpoints.create_plan(request, cluster_endpoints.endpoint(name, request.endpoint))
    doc = EndpointWorkflowRequest(
        name=name,
        action="deploy",
        endpoint=request.endpoint,
        namespace=request.namespace,
        kind=request.kind,
        replicas=request.replicas,
        create=request.model_copy(update={"dryRun": False}),
        bucket=bucket,
        region=settings().region if bucket else None,
        prefix=prefix or None,
        fsx=fsx,
    )
    return planned(plan, dryRun, lambda: _submit(name, doc, plan))


@route(router, "list_endpoints")
def list_endpoints(name: Annotated[ClusterName, Path()]) -> EndpointListView:
    _active(name)
    return EndpointListView(cluster=name, items=[endpoints.view(name, e) for e in cluster_endpoints.endpoints(name)])


@route(router, "get_endpoint")
def get_endpoint(name: Annotated[ClusterName, Path()], endpoint: Annotated[EndpointName, Path()]) -> EndpointView:
    _active(name)
    return endpoints.view(name, _existing(name, endpoint))


@route(router, "scale_endpoint")
def scale_endpoint(
    name: Annotated[ClusterName, Path()],
    endpoint: Annotated[EndpointName, Path()],
    body: Annotated[ScaleEndpointRequest, Body()],
) -> Response[OperationAcceptedView | NoopView]:
    _active(name)
    request = ScaleEndpointInput(name=name, endpoint=endpoint, replicas=body.replicas)
    real = _existing(name, endpoint)
    plan = endpoints.scale_plan(request, real)
    doc = EndpointWorkflowRequest.model_validate(
        {
            "name": name,
            "action": "scale",
            "endpoint": endpoint,
            "namespace": real.namespace,
            "kind": real.kind,
            "replicas": body.replicas,
        }
    )
    return planned(
        plan, False, lambda: _submit(name, doc, plan), noop=f"{endpoint} already has {body.replicas} replicas."
    )


@route(router, "delete_endpoint")
def delete_endpoint(
    name: Annotated[ClusterName, Path()], endpoint: Annotated[EndpointName, Path()]
) -> Response[OperationAcceptedView | NoopView]:
    _active(name)
    real = _existing(name, endpoint)
    plan = endpoints.delete_plan(name, real)
    doc = EndpointWorkflowRequest.model_validate(
        {"name": name, "action": "delete", "endpoint": endpoint, "namespace": real.namespace, "kind": real.kind}
    )
    return planned(plan, False, lambda: _submit(name, doc, plan))


@route(router, "invoke_endpoint")
def invoke_endpoint(
    name: Annotated[ClusterName, Path()],
    endpoint: Annotated[EndpointName, Path()],
    body: Annotated[InvokeEndpointRequest, Body()],
) -> Response[InvokeView]:
    _active(name)
    real = _existing(name, endpoint)
    status, message = endpoints.status_of(real)
    if status not in ("Ready", "Degraded"):
        raise Conflict(
            f"Endpoint {endpoint} is {status}" + (f": {message}" if message else "") + "; invoke it once Ready."
        )
    payload: dict[str, Any] = {"messages": [m.model_dump() for m in body.messages], "max_tokens": body.maxTokens}
    if body.temperature is not None:
        payload["temperature"] = body.temperature
    answer, truncated = cluster_endpoints.chat(name, real, payload)
    return json_response(endpoints.invoke_view(endpoint, answer, truncated))


def _pool(name: str, endpoint: str, field: str) -> RealEndpoint:
    found = _existing(name, endpoint)
    selector = ((found.service or {}).get("spec") or {}).get("selector") or {}
    if found.kind != "container" or manifests.SERVES_LABEL not in selector:
        raise Conflict(
            f"Endpoint {endpoint} is not a model pool (a container endpoint with service modelPool); only pool "
            "pods are reassigned, and only to pool endpoints.",
            details=[{"field": field, "rule": "model_pool", "message": endpoint}],
        )
    return found


@route(router, "assign_pod")
def assign_pod(
    name: Annotated[ClusterName, Path()],
    pool: Annotated[EndpointName, Path()],
    body: Annotated[AssignPodRequest, Body()],
) -> Response[AssignPodView]:
    _active(name)
    source, target = _pool(name, pool, "path.pool"), _pool(name, body.endpoint, "body.endpoint")
    if source.namespace != target.namespace:
        raise Conflict(
            f"{pool} runs in {source.namespace} and {body.endpoint} in {target.namespace}; a Service selects pods"
            " of its own namespace only.",
            details=[{"field": "body.endpoint", "rule": "same_namespace", "message": target.namespace}],
        )
    pod = next((p for p in source.pods if p["metadata"]["name"] == body.pod), None)
    if pod is None:
        have = ", ".join(p["metadata"]["name"] for p in source.pods) or "none"
        raise NotFound(f"The pool {pool} has no pod {body.pod}; its pods are {have}.")
    previous = (pod["metadata"].get("labels") or {}).get(manifests.SERVES_LABEL)
    if previous == body.endpoint:
        message = f"{body.pod} already serves {body.endpoint}; no changes."
    else:
        cluster_endpoints.bind_pod(name, source.namespace, body.pod, body.endpoint)
        message = f"{body.pod} (a warm worker of {pool}) now serves {body.endpoint}" + (
            f" instead of {previous}." if previous else "."
        )
    view = AssignPodView(pool=pool, pod=body.pod, endpoint=body.endpoint, previous=previous, message=message)
    return json_response(view)
