"""Inference: endpoints, their OpenAI-compatible routes, model pools, and the models downloaded for them."""

from __future__ import annotations

from launchpod.contracts.catalog_ops.entry import CatalogEntry, ClusterRef
from launchpod.contracts.chat import ChatCompletionInput, ChatCompletionView, OpenAIModelListView
from launchpod.contracts.common import Role
from launchpod.contracts.inference import (
    AssignPodInput,
    AssignPodView,
    CreateEndpointInput,
    EndpointListView,
    EndpointRef,
    EndpointView,
    InvokeEndpointInput,
    InvokeView,
    ScaleEndpointInput,
)
from launchpod.contracts.models import DownloadModelInput, ModelListView
from launchpod.contracts.operations import (
    OperationAcceptedView,
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "create_endpoint",
        "POST",
        "/api/clusters/{name}/endpoints",
        "Deploy an inference endpoint on a GPU instance group: kind managed (an InferenceEndpointConfig: a model"
        " folder of an S3 or FSx storage, worker image, KV cache, intelligent routing, autoscaling), jumpstart (a"
        " JumpStartModel) or container (any serving image as a Deployment and a Service, clusterIP or an NLB"
        " loadBalancer; GPUs exactly as given). managed and jumpstart need the inference operator feature.",
        CreateEndpointInput,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        starts=("inference",),
        query=("dryRun",),
        tags=("inference",),
    ),
    CatalogEntry(
        "list_endpoints",
        "GET",
        "/api/clusters/{name}/endpoints",
        "List the inference endpoints Launchpod deployed on the cluster: kind, status, replicas ready/desired, URL.",
        ClusterRef,
        EndpointListView,
        Role.VIEWER,
        tags=("inference",),
    ),
    CatalogEntry(
        "get_endpoint",
        "GET",
        "/api/clusters/{name}/endpoints/{endpoint}",
        "Get one endpoint: status, replicas ready/desired, URL (load balancer hostname or in-cluster DNS), its"
        " pods and the nodes they run on, and why a pod waits.",
        EndpointRef,
        EndpointView,
        Role.VIEWER,
        tags=("inference",),
    ),
    CatalogEntry(
        "scale_endpoint",
        "PATCH",
        "/api/clusters/{name}/endpoints/{endpoint}",
        "Set an endpoint's replicas; NOOP when it already has that many.",
        ScaleEndpointInput,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        starts=("inference",),
        tags=("inference",),
    ),
    CatalogEntry(
        "delete_endpoint",
        "DELETE",
        "/api/clusters/{name}/endpoints/{endpoint}",
        "Delete an endpoint Launchpod deployed (its custom resource, or its Deployment and Service).",
        EndpointRef,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        destructive=True,
        accepted=True,
        starts=("inference",),
        tags=("inference",),
    ),
    CatalogEntry(
        "invoke_endpoint",
        "POST",
        "/api/clusters/{name}/endpoints/{endpoint}/invoke",
        "Send an OpenAI-style chat completion to the endpoint (the API calls the endpoint's own Service; no URL"
        " or host is accepted) and return the answer, bounded to 20 s and 256 KiB: effective at once, no"
        " operation to follow. dryRun true checks the endpoint is Ready and answers the one step, sending nothing.",
        InvokeEndpointInput,
        InvokeView,
        Role.OPERATOR,
        mutates=True,  # not a change, but it spends the endpoint's GPU time: never auto-approved for agents
        immediate=True,
        idempotent=False,
        query=("dryRun",),
        tags=("inference",),
    ),
    CatalogEntry(
        "create_chat_completion",
        "POST",
        "/api/clusters/{name}/endpoints/{endpoint}/openai/v1/chat/completions",
        "OpenAI-compatible chat completion on the endpoint: OpenAI's request and answer (stream true answers"
        " server-sent events), so an OpenAI SDK with base_url .../endpoints/{endpoint}/openai/v1 and a Launchpod"
        " token as api_key works. Sent to the endpoint's own Service as invoke_endpoint is, with the same bounds."
        " Errors carry OpenAI's error object. Not an MCP tool: agents call invoke_endpoint.",
        ChatCompletionInput,
        ChatCompletionView,
        Role.OPERATOR,
        mutates=True,  # as invoke_endpoint: it spends the endpoint's GPU time
        immediate=True,
        idempotent=False,
        query=("dryRun",),
        tool=False,
        tags=("inference",),
    ),
    CatalogEntry(
        "list_endpoint_models",
        "GET",
        "/api/clusters/{name}/endpoints/{endpoint}/openai/v1/models",
        "OpenAI-compatible model list of the endpoint: the model its server serves (OpenAI SDKs' models.list()).",
        EndpointRef,
        OpenAIModelListView,
        Role.VIEWER,
        tool=False,
        tags=("inference",),
    ),
    CatalogEntry(
        "assign_pod",
        "POST",
        "/api/clusters/{name}/model-pools/{pool}/assign",
        "Reassign a warm worker pod of a model pool (a container endpoint with service modelPool) to another pool"
        " endpoint's Service by its binding label; the pod keeps running: effective at once, no operation to"
        " follow. NOOP when the pod already serves that endpoint; dryRun true answers the label change.",
        AssignPodInput,
        AssignPodView,
        Role.OPERATOR,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("inference",),
    ),
    CatalogEntry(
        "download_model",
        "POST",
        "/api/clusters/{name}/models/download",
        "Download a Hugging Face model (or dataset) by repo id and revision into an S3 storage under"
        " models/<repoId>/, by a CPU Kubernetes Job. hfToken (gated or private repositories) is kept in a"
        " Kubernetes Secret only, deleted when the Job ends; it is never returned or logged. No URL is accepted.",
        DownloadModelInput,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        idempotent=False,
        starts=("model-download",),
        tags=("models",),
    ),
    CatalogEntry(
        "list_models",
        "GET",
        "/api/clusters/{name}/models",
        "List the models present in the cluster's S3 storage under models/: repo id, path, files and size.",
        ClusterRef,
        ModelListView,
        Role.VIEWER,
        tags=("models",),
    ),
)
