"""Inference endpoints over REST: managed (InferenceEndpointConfig), JumpStart (JumpStartModel) and
self-managed containers (a Deployment and its Service); their views; scaling; and chat completions sent
by the API to an endpoint Launchpod deployed. No request carries a URL or a host: the API chooses where
a call goes from its own records, so extra fields (``url``, ``host``, ``endpointUrl``...) are refused."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from launchpod.contracts.common import (
    ABSENT,
    NEVER,
    ClusterName,
    Contract,
    K8sName,
    case,
    no_dot_segments,
    one_of,
    refused,
    rules,
    without_dot_segments,
)
from launchpod.contracts.endpoint_scaling import AutoscalingSpec, MetricsSpec
from launchpod.contracts.jobs import PartitionRequest
from launchpod.contracts.naming import renamed
from launchpod.contracts.serving import MultiNodeSpec, PdSpec, multi_node_refusal

# The endpoint names every object it makes (Deployment, Service, custom resource); the inference
# CRDs' modelName/endpointName allow at most 63 characters, and "-routing" suffixes leave room.
EndpointName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=40,
        pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        description="lowercase letters, digits and '-', starting and ending alphanumeric; at most 40 characters",
        examples=["qwen-chat"],
    ),
]
# SageMaker HyperPod instance types ("ml." and the EC2 name), as the inference CRDs require (^ml\..*).
InstanceType = Annotated[str, Field(pattern=r"^ml\.[a-z0-9-]+\.[a-z0-9]+$", examples=["ml.g5.12xlarge"])]
Quantity = Annotated[str, Field(pattern=r"^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti)?$", examples=["8", "32Gi"])]
# A container image reference: registry/repository[:tag][@digest], no scheme, no spaces.
Image = Annotated[
    str,
    Field(
        max_length=255,
        pattern=r"^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._/-][a-z0-9]+)*)*(:[A-Za-z0-9._-]{1,128})?(@sha256:[0-9a-f]{64})?$",
        examples=["vllm/vllm-openai:v0.10.1"],
    ),
]
EnvName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=128)]


# The Field comes before the validator, or pydantic leaves its pattern out of the document; the document's
# pattern also says what the validator does (no "." or ".." segment).
ModelPath = Annotated[
    str,
    Field(
        max_length=512,
        pattern=r"^[A-Za-z0-9_.=+-]+(/[A-Za-z0-9_.=+-]+)*$",
        description="the model's folder inside the storage, such as models/Qwen/Qwen3-0.6B",
        examples=["models/Qwen/Qwen3-0.6B"],
        json_schema_extra={"pattern": without_dot_segments("[A-Za-z0-9_.=+-]")},
    ),
    no_dot_segments(),
]


_GPUS_OR_PARTITIONS: dict[str, Any] = {
    "not": {
        "required": ["gpus", "acceleratorPartition"],
        "properties": {"gpus": {"minimum": 1}, "acceleratorPartition": {"type": "object"}},
    }
}


class WorkerSpec(Contract):
    """The serving container. GPUs are what the caller gives, never inferred (e.g. from tensor parallelism)."""

    # whole GPUs or partitions of them, not both (the validator below), stated for the document and the tools
    model_config = ConfigDict(json_schema_extra=rules(**_GPUS_OR_PARTITIONS))

    image: Image
    args: list[Annotated[str, Field(max_length=512)]] = Field(default_factory=list, max_length=64)
    port: int = Field(default=8000, ge=1, le=65535, description="the port the server answers HTTP on")
    gpus: int = Field(ge=0, le=8, description="nvidia.com/gpu requested and limited per replica")
    cpu: Quantity = "4"
    memory: Quantity = "16Gi"
    env: dict[EnvName, Annotated[str, Field(max_length=4096)]] = Field(default_factory=dict, max_length=64)
    # a MIG group's partitions ("Task submission with GPU partitions": the MIG resource goes in the worker's
    # resources, https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-gpu-partitioning-task-submission.html)
    acceleratorPartition: PartitionRequest | None = Field(
        default=None, description="per replica, GPU partitions (nvidia.com/mig-<profile>) instead of gpus"
    )

    @model_validator(mode="after")
    def _gpus_or_partitions(self) -> Self:
        if self.acceleratorPartition is not None and self.gpus:
            raise ValueError("a replica asks for gpus or acceleratorPartition (MIG partitions), not both")
        return self


class KvCacheSpec(Contract):
    model_config = one_of(
        case(
            "L2 in redis",
            required=["l2", "redisUrl"],
            properties={"l2": {"const": "redis"}, "redisUrl": {"type": "string"}},
        ),
        case(
            "No L2, or HyperPod managed tiered storage",
            properties={"l2": {"enum": ["tieredstorage", None]}, "redisUrl": ABSENT},
        ),
    )

    l1: bool = Field(default=True, description="L1: KV cache offloaded to the node's CPU memory")
    l2: Literal["tieredstorage", "redis"] | None = Field(
        default=None, description="L2 backend: tieredstorage (HyperPod managed tiered storage) or redis"
    )
    redisUrl: Annotated[str, Field(pattern=r"^redis://[a-z0-9]([-a-z0-9.]*[a-z0-9])?:[0-9]{1,5}$")] | None = Field(
        default=None, description="redis only: an in-cluster redis, such as redis://redis.default.svc:6379"
    )

    @model_validator(mode="after")
    def _redis_url_with_redis(self) -> Self:
        if (self.l2 == "redis") != (self.redisUrl is not None):
            raise ValueError("redisUrl is required with l2 redis, and only with it")
        return self


class RoutingSpec(Contract):
    strategy: Literal["prefixaware", "kvaware", "session", "roundrobin"] = "prefixaware"


class ManagedSpec(Contract):
    """An InferenceEndpointConfig: the model from an S3 or FSx for Lustre storage Launchpod configured on the
    cluster (the operator's modelSourceType s3 or fsx)."""

    storageName: K8sName = Field(
        description="an S3 or FSx storage of the cluster (GET /api/clusters/{name}/storage); modelPath is read from it",
        validation_alias=renamed("storageName", "storage"),
    )
    modelPath: ModelPath
    worker: WorkerSpec
    kvCache: KvCacheSpec | None = None
    routing: RoutingSpec | None = None
    autoscaling: AutoscalingSpec | None = Field(
        default=None,
        description="the inference operator's autoscaling: exactly one of prometheus (an AMP workspace) or cloudWatch",
        json_schema_extra={
            "oneOf": [
                ABSENT,
                case(
                    "On an AMP workspace's Prometheus query",
                    required=["prometheus"],
                    properties={
                        "prometheus": {"type": "object", "properties": {"serverAddress": NEVER}},
                        "cloudWatch": ABSENT,
                    },
                ),
                case(
                    "On a CloudWatch metric",
                    required=["cloudWatch"],
                    properties={"cloudWatch": {"type": "object"}, "prometheus": ABSENT},
                ),
            ]
        },
    )
    metrics: MetricsSpec | None = Field(
        default=None, description="metrics collection (spec.metrics); without it, the operator's defaults"
    )
    pd: PdSpec | None = Field(
        default=None,
        description="prefill/decode disaggregation (the operator's pdSpec): vLLM (LMCache) workers only; the "
        "endpoint's replicas decode, pd.prefillReplicas prefill",
    )

    @model_validator(mode="after")
    def _pd_is_vllm(self) -> Self:
        if self.pd is None:
            return self
        if "vllm" not in _repository(self.worker.image):
            raise refused(
                "pd_engine",
                "the inference operator's pdSpec appends vLLM flags and moves the KV cache with LMCache: managed pd "
                "needs a vLLM worker image (lmcache/vllm-openai); for SGLang use kind container with container.pd",
            )
        if self.pd.transferBackend is not None:
            raise refused(
                "pd_field", "pd.transferBackend is SGLang's (kind container); the operator moves the KV cache itself"
            )
        return self

    @model_validator(mode="after")
    def _one_trigger(self) -> Self:
        auto = self.autoscaling
        if auto is None:
            return self
        if (auto.prometheus is None) == (auto.cloudWatch is None):
            raise ValueError("managed autoscaling takes exactly one trigger: autoscaling.prometheus or .cloudWatch")
        if auto.prometheus is not None and "serverAddress" in auto.prometheus.model_fields_set:
            raise ValueError(
                "the inference operator queries an Amazon Managed Service for Prometheus workspace, not an in-cluster "
                "server: send autoscaling.prometheus.ampWorkspaceUrl instead of serverAddress"
            )
        return self


class JumpStartSpec(Contract):
    modelId: str = Field(pattern=r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$", examples=["deepseek-llm-r1-distill-qwen-1-5b"])
    modelVersion: str | None = Field(default=None, pattern=r"^\d{1,4}\.\d{1,4}\.\d{1,4}$", examples=["2.0.4"])
    acceptEula: bool = Field(default=False, description="accept the model's end-user license (gated models need it)")
    acceleratorPartitionType: str | None = Field(
        default=None, pattern=r"^mig-[1-7]g\.[0-9]+gb$", description="one GPU partition per replica"
    )


class ContainerSpec(Contract):
    """Any serving image as a Deployment and a Service, on the instance type given (never a CPU-only one)."""

    worker: WorkerSpec
    storageClaim: K8sName | None = Field(
        default=None,
        description="an S3 storage's PersistentVolumeClaim mounted at /s3 (read-write)",
        validation_alias=renamed("storageClaim", "storage"),
    )
    service: Literal["clusterIP", "loadBalancer", "modelPool"] = Field(
        default="clusterIP",
        description="clusterIP: in-cluster only; loadBalancer: an internal NLB through the AWS Load Balancer"
        " Controller; modelPool: warm workers whose Service selects pods by a binding label, so a pod can be"
        " reassigned to another pool endpoint (POST .../model-pools/{pool}/assign)",
    )
    autoscaling: AutoscalingSpec | None = Field(
        default=None,
        description="a KEDA ScaledObject on a Prometheus query (prometheus is required)",
        json_schema_extra={
            "required": ["prometheus"],
            "properties": {
                "prometheus": {"type": "object", "properties": {"ampWorkspaceUrl": ABSENT}},
                "cloudWatch": ABSENT,
            },
        },
    )
    router: bool = Field(
        default=False,
        description="SGLang only: an SGLang router (cache-aware routing) in front of the replicas, finding them"
        " by label (in a modelPool, by the pool's binding label, so a reassigned pod moves between routers); the"
        " Service then points at the router",
    )
    pd: PdSpec | None = Field(
        default=None,
        description="SGLang only, with router: prefill/decode disaggregation; the endpoint's replicas decode, "
        "pd.prefillReplicas prefill, and the router (--pd-disaggregation) hands each request from one to the other",
    )
    multiNode: MultiNodeSpec | None = Field(default=None, description="SGLang, replicas 1: a model larger than a node")

    @model_validator(mode="after")
    def _multi_node_on_sglang(self) -> Self:
        if self.multiNode is not None:
            alongside = self.router or self.pd is not None or self.service == "modelPool" or self.autoscaling
            refusal = multi_node_refusal(_repository(self.worker.image), bool(alongside), self.worker.args)
            if refusal is not None:
                raise refusal
        return self

    @model_validator(mode="after")
    def _pd_on_sglang(self) -> Self:
        if self.pd is None:
            return self
        if "sglang" not in _repository(self.worker.image):
            raise refused(
                "pd_engine",
                "self-managed prefill/decode disaggregation is SGLang's (lmsysorg/sglang, with its router); vLLM's "
                "needs an external proxy Launchpod does not run: use kind managed with managed.pd for vLLM",
            )
        if not self.router:
            raise refused("pd_router", "container.pd needs router: true (the SGLang router pairs prefill and decode)")
        if self.service == "modelPool":
            raise refused("pd_router", "container.pd is not offered for a modelPool (its workers are one kind)")
        if self.pd.routingThreshold is not None:
            raise refused(
                "pd_field",
                "pd.routingThreshold is the inference operator's (kind managed); the SGLang router "
                "sends every request through prefill and decode",
            )
        return self

    @model_validator(mode="after")
    def _keda_needs_a_query(self) -> Self:
        auto = self.autoscaling
        if auto is not None and auto.cloudWatch is not None:
            raise ValueError(
                "container autoscaling is a KEDA ScaledObject on a Prometheus query; a CloudWatch trigger is for kind "
                "managed (the inference operator's): send autoscaling.prometheus"
            )
        if auto is not None and auto.prometheus is None:
            raise ValueError("container autoscaling scales on a Prometheus query: send autoscaling.prometheus")
        if auto is not None and auto.prometheus is not None and auto.prometheus.ampWorkspaceUrl is not None:
            raise ValueError(
                "container autoscaling's KEDA queries the in-cluster Prometheus at "
                "autoscaling.prometheus.serverAddress; ampWorkspaceUrl is for kind managed"
            )
        if self.router and "sglang" not in _repository(self.worker.image):
            raise refused(
                "sglang_router", "router is the SGLang router: it needs an SGLang worker image (lmsysorg/sglang)"
            )
        return self


def _repository(image: str) -> str:
    """An image reference without its tag and digest (a registry's port stays)."""
    name = image.split("@")[0]
    last = name.rsplit("/", 1)[-1]
    return name.rsplit(":", 1)[0] if ":" in last else name


def _kind(kind: str, section: dict[str, Any] | None = None) -> dict[str, Any]:
    """The branch of CreateEndpointRequest's oneOf for one kind: that section and no other."""
    others = {k: ABSENT for k in ("managed", "jumpstart", "container") if k != kind}
    properties = {"kind": {"const": kind}, kind: section or {"type": "object"}, **others}
    return case(f"kind {kind}", required=["kind", kind], properties=properties)


# a container endpoint runs on GPU nodes: whole GPUs or partitions of them
_ON_GPUS = {
    "anyOf": [
        {"properties": {"gpus": {"minimum": 1}}},
        {"required": ["acceleratorPartition"], "properties": {"acceleratorPartition": {"type": "object"}}},
    ]
}


class CreateEndpointRequest(Contract):
    model_config = one_of(
        _kind("managed"),
        _kind("jumpstart"),
        _kind("container", {"type": "object", "properties": {"worker": _ON_GPUS}}),
    )

    endpoint: EndpointName
    kind: Literal["managed", "jumpstart", "container"]
    namespace: K8sName = "default"
    instanceType: InstanceType
    replicas: int = Field(default=1, ge=0, le=16)
    managed: ManagedSpec | None = None
    jumpstart: JumpStartSpec | None = None
    container: ContainerSpec | None = None
    # task governance: the endpoint's replicas wait in a team's queue and may preempt lower priorities (AWS,
    # https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-task-gov.html)
    queue: K8sName | None = Field(default=None, description="a team's LocalQueue in namespace (task governance)")
    priority: K8sName | None = Field(default=None, description="a WorkloadPriorityClass, e.g. inference-priority")

    @model_validator(mode="after")
    def _one_section_for_its_kind(self) -> Self:
        given = [k for k in ("managed", "jumpstart", "container") if getattr(self, k) is not None]
        if given != [self.kind]:
            raise ValueError(f"kind {self.kind} takes the section {self.kind} and no other (got {given or 'none'})")
        worker = self.container.worker if self.kind == "container" and self.container is not None else None
        if worker is not None and worker.gpus == 0 and worker.acceleratorPartition is None:
            raise ValueError("a container endpoint runs on GPU nodes: give worker.gpus or worker.acceleratorPartition")
        section = self.managed or self.container
        if section is not None and section.pd is not None and section.worker.acceleratorPartition is not None:
            raise ValueError("prefill/decode disaggregation (pd) runs on whole GPUs: drop acceleratorPartition")
        if self.container is not None and self.container.multiNode is not None and self.replicas > 1:
            raise refused(
                "multinode_field", "a multiNode endpoint is one copy of the model across its nodes: replicas 0 or 1"
            )
        return self


class CreateEndpointInput(CreateEndpointRequest):
    name: ClusterName
    dryRun: bool = Field(default=False, description="answer the plan and start nothing")


class EndpointRef(Contract):
    name: ClusterName
    endpoint: EndpointName


class ScaleEndpointRequest(Contract):
    replicas: int = Field(ge=0, le=16)


class ScaleEndpointInput(EndpointRef, ScaleEndpointRequest):
    pass


class EndpointPodView(Contract):
    name: str
    kubernetesNode: str | None = None
    phase: str
    ready: bool
    message: str | None = None
    role: Literal["worker", "router", "prefill", "decode"] | None = Field(
        default=None,
        description="container only: a serving worker, the endpoint's SGLang router, or with pd a prefill or decode"
        " worker",
    )
    serves: str | None = Field(
        default=None, description="model pools only: the endpoint whose Service (or router) this worker serves"
    )


class EndpointView(Contract):
    cluster: ClusterName
    endpoint: str
    namespace: str
    kind: Literal["managed", "jumpstart", "container"]
    instanceType: str | None = None
    status: str = Field(description="Deploying, Ready, Degraded (some replicas not ready), Failed or Deleting")
    readyReplicas: int
    desiredReplicas: int
    url: str | None = Field(default=None, description="the load balancer's hostname, or the in-cluster DNS name")
    model: str | None = None
    pods: list[EndpointPodView] = Field(default_factory=list)
    scaling: str | None = Field(
        default=None, description="who sets the replicas: KEDA's range and its query or CloudWatch metric, if any"
    )
    metrics: MetricsSpec | None = Field(
        default=None, description="managed only: the metrics collection the endpoint's spec.metrics sets, if any"
    )
    scalingError: str | None = Field(
        default=None,
        description="why the autoscaler cannot read its metric (KEDA's words, such as an AccessDenied); the replicas"
        " stay where they are until it can",
    )
    message: str | None = None


class EndpointListView(Contract):
    cluster: ClusterName
    items: list[EndpointView]


class ChatMessage(Contract):
    role: Literal["system", "user", "assistant"]
    content: str = Field(min_length=1, max_length=32_000)


class InvokeEndpointRequest(Contract):
    """An OpenAI-style chat completion; where it goes is the endpoint's own Service, never a caller's URL."""

    messages: list[ChatMessage] = Field(min_length=1, max_length=64)
    max_tokens: int | None = Field(
        default=None, ge=1, le=4096, description="at most this many tokens back (256 when unset)"
    )
    maxTokens: int | None = Field(
        default=None, ge=1, le=4096, deprecated=True, description="the older spelling of max_tokens (OpenAI's name)"
    )
    temperature: float | None = Field(default=None, ge=0, le=2)

    @model_validator(mode="after")
    def _one_limit(self) -> Self:
        old = self.__dict__.get("maxTokens")  # read past the deprecation warning the attribute raises
        if old is not None and self.max_tokens is not None and old != self.max_tokens:
            raise refused(
                "same_limit", "send max_tokens (maxTokens is its older spelling), not both with different values"
            )
        return self

    @property
    def limit(self) -> int:
        return self.max_tokens or self.__dict__.get("maxTokens") or 256


class InvokeEndpointInput(EndpointRef, InvokeEndpointRequest):
    pass


class InvokeView(Contract):
    endpoint: str
    model: str | None = None
    content: str
    finishReason: str | None = None
    promptTokens: int | None = None
    completionTokens: int | None = None
    truncated: bool = Field(default=False, description="the answer was longer than Launchpod returns and was cut")


class FsxModelSource(Contract):
    """An FSx for Lustre file system a managed endpoint reads its model from (the CRD's fsxStorage)."""

    fileSystemId: str
    dnsName: str
    mountName: str


class EndpointWorkflowRequest(Contract):
    """What the inference workflow records and its phases read: one action on one endpoint."""

    name: ClusterName
    action: Literal["deploy", "scale", "delete"]
    endpoint: EndpointName
    namespace: K8sName
    kind: Literal["managed", "jumpstart", "container"]
    replicas: int | None = None
    create: CreateEndpointInput | None = None
    # managed: where the storage's claim points (bucket, region and prefix, or the FSx file system), read when
    # it was planned
    bucket: str | None = None
    region: str | None = None
    prefix: str | None = None
    fsx: FsxModelSource | None = None
    efa: int = 0  # container multiNode: the EFA interfaces of one node of the type (EC2), each rank asks for them


class AssignPodRequest(Contract):
    pod: K8sName = Field(description="a pod of the pool (the pool endpoint's details list its pods)")
    endpoint: EndpointName = Field(description="the modelPool endpoint whose Service the pod serves from now on")


class AssignPodInput(AssignPodRequest):
    name: ClusterName
    pool: EndpointName


class AssignPodView(Contract):
    pool: str
    pod: str
    endpoint: str
    previous: str | None = Field(default=None, description="the endpoint the pod served before")
    message: str
