"""Endpoints as reconciled state: what an endpoint is on the cluster (its primary object, Service and
pods, read back into a view) and the plans that deploy, scale and delete it in the inference workflow.

The primary object is the custom resource for managed and JumpStart endpoints (the inference operator
makes their Deployment; its pods are found by the resource's ``status.selector``), the Deployment for
container endpoints. The URL is the load balancer's hostname once the controller assigned one, else the
Service's in-cluster DNS name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from launchpod.contracts.endpoint_scaling import MetricsSpec
from launchpod.contracts.inference import (
    CreateEndpointInput,
    EndpointPodView,
    EndpointView,
    InvokeView,
    ScaleEndpointInput,
)
from launchpod.domain import plan as planner
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.inference import manifests, multinode
from launchpod.domain.jobs.hardware import Accelerators
from launchpod.domain.operations import WorkflowPlan, role_for
from launchpod.domain.plan import Plan, Step

KIND = "inference"
PHASES: tuple[tuple[str, str], ...] = (
    ("ApplyEndpoint", "The endpoint's objects applied, scaled or deleted"),
    ("WaitEndpoint", "Every replica Ready (and the load balancer's hostname), or every object gone"),
)
FAILED_STATES = ("DeploymentFailed", "DeletionFailed")


@dataclass
class RealEndpoint:
    """What the cluster has for one endpoint."""

    kind: str
    primary: dict[str, Any]
    service: dict[str, Any] | None = None
    pods: list[dict[str, Any]] = field(default_factory=list)
    scaler: dict[str, Any] | None = None  # the KEDA ScaledObject of a container endpoint
    # managed and JumpStart: the KEDA ScaledObject the operator made for its Deployment, and KEDA's newest
    # Warning event on it (a scaler that cannot read its metric reports so)
    operator_scaler: dict[str, Any] | None = None
    scaler_event: str | None = None
    balancer_blocked: str | None = None  # why no load balancer controller serves the Service, if none does
    balancer_event: str | None = None  # the controller's last warning on the Service (an AWS error)
    queue_notes: dict[str, str] = field(default_factory=dict)  # pod -> why it waits in its team's queue (queueing)

    @property
    def name(self) -> str:
        return str(self.primary["metadata"]["name"])

    @property
    def namespace(self) -> str:
        return str(self.primary["metadata"].get("namespace", "default"))

    @property
    def autoscaled(self) -> bool:
        """KEDA sets the replicas: Launchpod's ScaledObject, or the operator's autoScalingSpec."""
        return self.scaler is not None or bool((self.primary.get("spec") or {}).get("autoScalingSpec"))

    @property
    def desired(self) -> int:
        status = self.primary.get("status") or {}
        if self.kind != "container" and self.autoscaled and status.get("replicas") is not None:
            # the operator's Deployment follows KEDA, and status.replicas observes it; spec.replicas was the start
            return int(status["replicas"])
        return int((self.primary.get("spec") or {}).get("replicas", 1))

    @property
    def ready(self) -> int:
        status = self.primary.get("status") or {}
        if self.kind == "container":
            return int(status.get("readyReplicas") or 0)
        deployment = ((status.get("deploymentStatus") or {}).get("status")) or {}
        return int(deployment.get("readyReplicas") or 0)

    @property
    def hostname(self) -> str | None:
        ingress = (((self.service or {}).get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
        return ingress[0].get("hostname") if ingress else None

    @property
    def load_balanced(self) -> bool:
        return ((self.service or {}).get("spec") or {}).get("type") == "LoadBalancer"

    @property
    def port(self) -> int | None:
        ports = ((self.service or {}).get("spec") or {}).get("ports") or []
        return int(ports[0]["port"]) if ports else None

    @property
    def deleting(self) -> bool:
        return bool(self.primary["metadata"].get("deletionTimestamp"))


def check_instance_type(request: CreateEndpointInput, acc: Accelerators, groups: dict[str, tuple[str, ...]]) -> None:
    """The instance type has NVIDIA GPUs (EC2's facts ``acc``; never a CPU-only group) and the cluster has a
    group of it; ``groups`` maps instance group name to its types (a flexible group has several)."""
    if not acc.nvidia:
        raise InvalidInput(
            f"{request.instanceType} has no NVIDIA GPUs; endpoints run on GPU instance types only. Choose one of "
            f"the cluster's GPU groups.",
            field="body.instanceType",
            rule="gpu_instance_type",
        )
    section = request.managed or request.container
    if section is not None and acc.gpus:
        asks = [("worker.gpus", section.worker.gpus)]
        if section.pd is not None and section.pd.prefillGpus is not None:
            asks.append(("pd.prefillGpus", section.pd.prefillGpus))
        for name, gpus in asks:
            if gpus > acc.gpus:
                raise InvalidInput(
                    f"A replica runs on one node, and {request.instanceType} has {acc.gpus} GPUs; {name} asks for "
                    f"{gpus}. Ask for at most {acc.gpus}, choose an instance type with more GPUs per node, or "
                    "spread one copy of the model over several nodes (kind container, SGLang, container.multiNode).",
                    field=f"body.{request.kind}.{name}",
                    rule="gpus_per_node",
                )
    if not any(request.instanceType in types for types in groups.values()):
        have = ", ".join(f"{g} ({', '.join(t)})" for g, t in sorted(groups.items())) or "none"
        raise Conflict(
            f"The cluster has no instance group of {request.instanceType}; its groups are {have}. Add one "
            f"(POST /api/clusters/{request.name}/instance-groups) or choose a type it has.",
            details=[{"field": "body.instanceType", "rule": "instance_group_exists", "message": request.instanceType}],
        )


def prometheus_service(address: str) -> tuple[str, str, int]:
    """(Service, namespace, port) of an in-cluster server address http://<service>.<namespace>.svc[.cluster.local]
    :<port> (the only form the contract takes): the Service cluster DNS resolves that name to
    (https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#services)."""
    host, _, port = address.removeprefix("http://").partition(":")
    service, namespace = host.split(".")[:2]
    return service, namespace, int(port)


def create_plan(request: CreateEndpointInput, existing: RealEndpoint | None) -> Plan:
    notes = ((existing.primary.get("metadata") or {}).get("annotations") or {}) if existing else {}
    if existing is not None and manifests.REQUEST_ANNOTATION in notes and not existing.deleting:
        return _again(request, existing, json.loads(notes[manifests.REQUEST_ANNOTATION]))
    if existing is not None:
        raise Conflict(
            f"Endpoint {request.endpoint} already exists in {existing.namespace} ({existing.kind}); scale it with "
            f"PATCH /api/clusters/{request.name}/endpoints/{request.endpoint}, or delete it first.",
            details=[{"field": "body.endpoint", "rule": "unique", "message": request.endpoint}],
        )
    made = manifests.objects(request, "<bucket>", "<region>", None)
    return Plan(
        request.name,
        tuple(
            Step(
                "create",
                f"{o['kind']} {request.namespace}/{o['metadata']['name']}",
                multinode.describe(request, o) or f"kind {request.kind}",
                "ApplyEndpoint",
            )
            for o in made
        ),
    )


def _again(request: CreateEndpointInput, existing: RealEndpoint, real: dict[str, Any]) -> Plan:
    """The same create again is NOOP; a sent field that differs from the request that made the endpoint is
    refused naming it: replicas change with PATCH, everything else by deleting the endpoint and creating it anew."""
    if not existing.autoscaled:
        real["replicas"] = existing.desired
    desired = {k: v for k, v in planner.sent(request).items() if k not in ("name", "dryRun")}
    if list(planner.changes(desired, real)) == ["replicas"]:
        raise Conflict(
            f"Endpoint {request.endpoint} exists with {real['replicas']} replicas; change them with PATCH "
            f'/api/clusters/{request.name}/endpoints/{request.endpoint} {{"replicas": {request.replicas}}}.',
            details=[{"field": "body.replicas", "rule": "immutable", "message": "replicas change with PATCH"}],
        )
    return planner.diff(
        request.name,
        desired,
        real,
        (),
        resource=f"endpoint {request.endpoint} ({existing.kind}, namespace {existing.namespace})",
        create=lambda: (),
    )


def _trigger_words(auto: dict[str, Any]) -> str:
    cw, prom = auto.get("cloudWatchTrigger"), auto.get("prometheusTrigger")
    if cw:
        dims = ", ".join(f"{d.get('name')}={d.get('value')}" for d in cw.get("dimensions") or [])
        metric = f"{cw.get('namespace')} {cw.get('metricName')}" + (f" ({dims})" if dims else "")
        return f" on CloudWatch {metric} {cw.get('metricStat', 'Average')} (target {cw.get('targetValue')} per replica)"
    if prom:
        return f" on {prom.get('query')} (target {prom.get('targetValue')} per replica)"
    return ""


def scaling_of(real: RealEndpoint) -> str | None:
    if real.scaler is None:
        auto = (real.primary.get("spec") or {}).get("autoScalingSpec")
        if not auto:
            return None
        return (
            f"inference operator autoscaling {auto.get('minReplicaCount', 1)}-{auto.get('maxReplicaCount', 5)}"
            f" replicas{_trigger_words(auto)}"
        )
    spec = real.scaler.get("spec") or {}
    trigger = (spec.get("triggers") or [{}])[0].get("metadata") or {}
    return (
        f"KEDA {spec.get('minReplicaCount', 0)}-{spec.get('maxReplicaCount', 100)} replicas on "
        f"{trigger.get('query')} (threshold {trigger.get('threshold')} per replica)"
    )


def scaling_error_of(real: RealEndpoint) -> str | None:
    """KEDA's words when the ScaledObject's triggers fail (condition Ready False, reason TriggerError, and a
    KEDAScalerFailed Warning event with the scaler's error; kedacore/keda#2603): no scaling happens then."""
    scaled = real.scaler or real.operator_scaler
    if scaled is None:
        return None
    conditions = (scaled.get("status") or {}).get("conditions") or []
    ready = next((c for c in conditions if c.get("type") == "Ready"), None)
    if ready is None or ready.get("status") != "False":
        return None
    why = f"{ready.get('reason')}: {ready.get('message')}"
    return f"{why}; {real.scaler_event}" if real.scaler_event else why


def scale_plan(request: ScaleEndpointInput, existing: RealEndpoint) -> Plan:
    if existing.autoscaled:
        raise Conflict(
            f"Endpoint {request.endpoint} is scaled by KEDA ({scaling_of(existing)}); its replicas follow the "
            "metric. Delete and redeploy it without autoscaling to set replicas by hand.",
            details=[{"field": "body.replicas", "rule": "not_autoscaled", "message": "KEDA owns the replicas"}],
        )
    if multinode.nodes_of(existing.primary) > 1 and request.replicas != existing.desired:
        raise InvalidInput(
            f"Endpoint {request.endpoint} is one copy of its model across {multinode.nodes_of(existing.primary)} "
            "nodes; its replicas stay 1. Delete it to free the nodes, or create another endpoint for more copies.",
            field="body.replicas",
            rule="multinode_field",
        )
    if existing.desired == request.replicas:
        return Plan(request.name, ())
    reason = f"replicas is {existing.desired}; the request asks for {request.replicas}"
    target = f"{manifests.KINDS[existing.kind]} {existing.namespace}/{existing.name} replicas"
    return Plan(request.name, (Step("update", target, reason, "ApplyEndpoint"),))


def delete_plan(cluster: str, existing: RealEndpoint) -> Plan:
    targets = [f"{manifests.KINDS[existing.kind]} {existing.namespace}/{existing.name}"]
    if existing.kind == "container" and existing.service is not None:
        targets.append(f"Service {existing.namespace}/{existing.name}")
    if existing.scaler is not None:
        targets.append(f"ScaledObject {existing.namespace}/{existing.name}")
    if disaggregated(existing):
        targets.append(f"Deployment {existing.namespace}/{manifests.prefill_name(existing.name)}")
    spans = multinode.nodes_of(existing.primary)
    if spans > 1:
        targets += [
            f"{r['kind']} {existing.namespace}/{r['metadata']['name']}"
            for r in multinode.refs(existing.name, existing.namespace)[:spans]
        ]
    return Plan(cluster, tuple(Step("delete", t, "the request deletes the endpoint", "ApplyEndpoint") for t in targets))


def invoke_plan(cluster: str, real: RealEndpoint, messages: int, max_tokens: int) -> Plan:
    """The one step of an invoke: the chat completion sent to the endpoint's own Service (through the API
    server's service proxy, as the adapter sends it)."""
    service = f"{(real.service or {}).get('metadata', {}).get('name')}:{real.port}"
    return Plan(
        cluster,
        (
            Step(
                "send",
                f"POST /v1/chat/completions to Service {real.namespace}/{service} ({url_of(real)})",
                f"endpoint {real.name} is {status_of(real)[0]}; the request's {messages} message(s), at most "
                f"{max_tokens} tokens back",
            ),
        ),
    )


def assign_plan(cluster: str, namespace: str, pod: str, previous: str | None, endpoint: str) -> Plan:
    """The one step of a pool pod's reassignment: its binding label (the Services select pods by it); none when
    the pod already serves ``endpoint``."""
    if previous == endpoint:
        return Plan(cluster, ())
    reason = f"{manifests.SERVES_LABEL} is {previous!r}; the request asks for {endpoint!r}" + (
        f" (the Service of {endpoint} then selects the pod, and {previous}'s no longer does)" if previous else ""
    )
    return Plan(cluster, (Step("update", f"Pod {namespace}/{pod} label {manifests.SERVES_LABEL}", reason),))


def workflow(cluster: str, request: dict[str, Any], plan: Plan) -> WorkflowPlan:
    return WorkflowPlan(
        kind=KIND, target=cluster, request=request, phases=PHASES, role=role_for(KIND), steps=plan.views()
    )


def _role(pod: dict[str, Any]) -> Literal["worker", "router", "prefill", "decode"]:
    labels = pod["metadata"].get("labels") or {}
    if labels.get(manifests.ROLE_LABEL) == "router":
        return "router"
    side = labels.get(manifests.PD_LABEL)
    return "prefill" if side == "prefill" else "decode" if side == "decode" else "worker"


def disaggregated(real: RealEndpoint) -> bool:
    """A container endpoint whose workers decode and a prefill Deployment prefills (its pods carry the PD label)."""
    if real.kind != "container":
        return False
    template = ((real.primary.get("spec") or {}).get("template") or {}).get("metadata") or {}
    return (template.get("labels") or {}).get(manifests.PD_LABEL) == "decode"


def without_prefill(real: RealEndpoint) -> bool:
    """The SGLang router sends every request of a PD endpoint to a prefill and a decode worker at once: with no
    Ready prefill worker nothing answers, however many decode workers are."""
    return disaggregated(real) and not any(_role(p) == "prefill" and _pod_ready(p) for p in real.pods)


def _pod_ready(pod: dict[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def routed_without_router(real: RealEndpoint) -> bool:
    """A routed endpoint's Service selects only its SGLang router: until a router pod is Ready, nothing answers
    however many workers are."""
    selector = ((real.service or {}).get("spec") or {}).get("selector") or {}
    if selector.get(manifests.ROLE_LABEL) != "router":
        return False
    routers = [p for p in real.pods if (p["metadata"].get("labels") or {}).get(manifests.ROLE_LABEL) == "router"]
    return not any(_pod_ready(p) for p in routers)


def _container_trouble(pod: dict[str, Any]) -> str | None:
    """Why a bound pod's container does not run, in the kubelet's words: a waiting reason other than the normal
    ContainerCreating (CrashLoopBackOff, ImagePullBackOff, ...), with the restarts and the last exit's message
    (the tail of the server's log, for FallbackToLogsOnError)."""
    for c in (pod.get("status") or {}).get("containerStatuses") or []:
        waiting = (c.get("state") or {}).get("waiting") or {}
        last = (c.get("lastState") or {}).get("terminated") or {}
        if "running" in (c.get("state") or {}) and not c.get("ready") and c.get("restartCount") and last:
            # Between two back-offs a crash-looping container runs again for a moment; its last exit is still
            # lastState.terminated (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-states).
            words = (
                f"container {c.get('name')} restarted {c['restartCount']} times (last exit code "
                f"{last.get('exitCode')}), running again but not ready"
            )
            detail = str(last.get("message") or "").strip()
            return f"{words}: {detail}" if detail else words
        if not waiting.get("reason") or waiting["reason"] == "ContainerCreating":
            continue
        words = f"container {c.get('name')} in {waiting['reason']}"
        if c.get("restartCount"):
            words += f" (restarted {c['restartCount']} times, last exit code {last.get('exitCode')})"
        detail = str(last.get("message") or waiting.get("message") or "").strip()
        return f"{words}: {detail}" if detail else words
    return None


def status_of(real: RealEndpoint) -> tuple[str, str | None]:
    """(status, message): Deleting, Failed, Ready, Degraded or Deploying, with the scheduler's, operator's or
    kubelet's words."""
    if real.deleting:
        return "Deleting", None
    state = (real.primary.get("status") or {}).get("state")
    if state in FAILED_STATES:
        reason = ((real.primary.get("status") or {}).get("deploymentStatus") or {}).get("message")
        return "Failed", reason or str(state)
    pending = [p for p in real.pods if (p.get("status") or {}).get("phase") == "Pending"]
    message = None
    if pending:
        conditions = (pending[0].get("status") or {}).get("conditions") or [{}]
        message = conditions[0].get("message")
    message = message or next((t for p in real.pods if (t := _container_trouble(p))), None)
    if routed_without_router(real):
        return "Deploying", message or "waiting for the SGLang router's pod to be Ready (the Service points at it)"
    if without_prefill(real) and real.ready >= real.desired:
        return "Deploying", message or "waiting for a prefill worker to be Ready (each request needs one)"
    missing = multinode.missing_ranks(real.primary, real.pods, _pod_ready) if real.desired else []
    if missing:
        ranks = ", ".join(str(k) for k in missing)
        return "Deploying", message or f"waiting for node rank(s) {ranks}: the rank-0 server answers once all joined"
    if real.ready >= real.desired:
        if real.load_balanced and not real.hostname:
            why = real.balancer_blocked or real.balancer_event
            return "Deploying", f"waiting for the load balancer's hostname: {why}" if why else (
                "waiting for the load balancer's hostname"
            )
        return "Ready", None
    if real.ready > 0:
        return "Degraded", message
    return "Deploying", message


def url_of(real: RealEndpoint) -> str | None:
    if real.hostname:
        return f"http://{real.hostname}:{real.port}" if real.port else f"http://{real.hostname}"
    if real.service is None:
        return None
    name = real.service["metadata"]["name"]
    return f"http://{name}.{real.namespace}.svc.cluster.local:{real.port}"


def model_of(real: RealEndpoint) -> str | None:
    spec = real.primary.get("spec") or {}
    if real.kind == "managed":
        return str(((spec.get("modelSourceConfig") or {}).get("modelLocation")) or spec.get("modelName"))
    if real.kind == "jumpstart":
        return str((spec.get("model") or {}).get("modelId"))
    containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or [{}]
    image = containers[0].get("image")
    return str(image) if image else None


def metrics_of(real: RealEndpoint) -> MetricsSpec | None:
    """A managed endpoint's spec.metrics, with the CRD's defaults for what it leaves out."""
    found = (real.primary.get("spec") or {}).get("metrics") if real.kind == "managed" else None
    if not isinstance(found, dict):
        return None
    model = found.get("modelMetrics") or {}
    return MetricsSpec(
        enabled=bool(found.get("enabled", True)),
        scrapeIntervalSeconds=int(found.get("metricsScrapeIntervalSeconds", 15)),
        path=str(model.get("path", "/metrics")),
        port=int(model.get("port", 8080)),
    )


def view(cluster: str, real: RealEndpoint) -> EndpointView:
    status, message = status_of(real)
    spec = real.primary.get("spec") or {}
    instance_type = spec.get("instanceType") or (spec.get("server") or {}).get("instanceType")
    if real.kind == "container":
        terms = (
            (((spec.get("template") or {}).get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}
        ).get("requiredDuringSchedulingIgnoredDuringExecution", {}).get("nodeSelectorTerms") or [{}]
        values = [
            e.get("values")
            for e in terms[0].get("matchExpressions", [])
            if e.get("key") == manifests.INSTANCE_TYPE_LABEL
        ]
        instance_type = values[0][0] if values and values[0] else None
    pods = [
        EndpointPodView(
            name=p["metadata"]["name"],
            kubernetesNode=(p.get("spec") or {}).get("nodeName"),
            phase=(p.get("status") or {}).get("phase", "Pending"),
            ready=any(
                c.get("type") == "Ready" and c.get("status") == "True"
                for c in (p.get("status") or {}).get("conditions") or []
            ),
            message=real.queue_notes.get(p["metadata"]["name"])
            or next(iter((p.get("status") or {}).get("conditions") or [{}])).get("message")
            or _container_trouble(p),
            role=_role(p) if real.kind == "container" else None,
            serves=(p["metadata"].get("labels") or {}).get(manifests.SERVES_LABEL),
        )
        for p in real.pods
    ]
    return EndpointView(
        cluster=cluster,
        endpoint=real.name,
        namespace=real.namespace,
        kind=real.kind,  # type: ignore[arg-type]
        instanceType=instance_type,
        status=status,
        readyReplicas=real.ready,
        desiredReplicas=real.desired,
        url=url_of(real),
        model=model_of(real),
        pods=pods,
        scaling=scaling_of(real),
        metrics=metrics_of(real),
        scalingError=scaling_error_of(real),
        message=message,
    )


def deploying_view(cluster: str, request: dict[str, Any], operation_id: str) -> EndpointView:
    """An endpoint whose deploy was accepted and whose objects are not applied yet, from the request the
    running operation recorded (an EndpointWorkflowRequest)."""
    create = request.get("create") or {}
    return EndpointView(
        cluster=cluster,
        endpoint=str(request["endpoint"]),
        namespace=str(request.get("namespace", "default")),
        kind=request["kind"],
        instanceType=create.get("instanceType"),
        status="Deploying",
        readyReplicas=0,
        desiredReplicas=int(request.get("replicas") or create.get("replicas") or 0),
        message=f"operation {operation_id} is applying its objects; follow it at /api/operations/{operation_id}",
    )


def invoke_view(endpoint: str, answer: dict[str, Any], truncated: bool) -> InvokeView:
    """An OpenAI chat completion read into the view (an answer cut at the size bound says so)."""
    if truncated:
        return InvokeView(endpoint=endpoint, content="", truncated=True)
    choice = (answer.get("choices") or [{}])[0]
    usage = answer.get("usage") or {}
    return InvokeView(
        endpoint=endpoint,
        model=answer.get("model"),
        content=str((choice.get("message") or {}).get("content") or ""),
        finishReason=choice.get("finish_reason"),
        promptTokens=usage.get("prompt_tokens"),
        completionTokens=usage.get("completion_tokens"),
    )


@dataclass(frozen=True)
class NodeRoom:
    """One Kubernetes node of the endpoint's instance type: its allocatable GPUs and those its running pods hold."""

    name: str
    allocatable: int
    held: int


def after_placing(nodes: list[NodeRoom], replicas: int, gpus: int) -> list[NodeRoom]:
    """The nodes' room once ``replicas`` pods of ``gpus`` GPUs are placed on them, whole pods per node in node
    order (how a PD endpoint's prefill workers are checked after its decode workers; the scheduler may place
    them otherwise, so this is an estimate)."""
    left, out = replicas, []
    for n in nodes:
        placed = min(left, max(n.allocatable - n.held, 0) // gpus) if gpus > 0 else 0
        left -= placed
        out.append(NodeRoom(n.name, n.allocatable, n.held + placed * gpus))
    return out


def fit_warnings(
    endpoint: str,
    instance_type: str,
    replicas: int,
    gpus: int,
    nodes: list[NodeRoom],
    karpenter: bool,
    unit: str = "GPU",
) -> list[str]:
    """Each replica asks for ``gpus`` on one node of ``instance_type`` (the manifests' nodeSelector), so the
    scheduler places as many as the nodes' free GPUs hold, whole replicas per node; the others wait Pending
    (said in the dry run and the answer, with how many fit and why)."""
    if replicas < 1 or gpus < 1:
        return []
    fit = sum(max(n.allocatable - n.held, 0) // gpus for n in nodes)
    if replicas <= fit:
        return []
    free = sum(max(n.allocatable - n.held, 0) for n in nodes)
    total = sum(n.allocatable for n in nodes)
    where = (
        f"the {len(nodes)} {instance_type} node(s) have {free} of {total} {unit}s free"
        if nodes
        else f"the cluster has no {instance_type} node"
    )
    waits = replicas - fit
    then = (
        "until Karpenter adds nodes for them"
        if karpenter
        else f"until {unit}s free up or a group of {instance_type} grows (its instanceCount)"
    )
    return [
        f"{fit} of {replicas} replicas of {endpoint} fit now: each asks for {gpus} {unit}(s) on one node and {where};"
        f" {waits} will wait Pending {then}."
    ]


def unhealthy(real: RealEndpoint) -> str | None:
    """Why an endpoint is unhealthy, or None: Failed (the operator's DeploymentFailed or DeletionFailed), or a
    container that does not run (CrashLoopBackOff, ImagePullBackOff, restarting and not ready). A pod waiting
    for a node, a replica still starting or a rollout under way is not ill health."""
    if real.deleting:
        return None
    status, message = status_of(real)
    if status == "Failed":
        return message or "Failed"
    return next((t for p in real.pods if (t := _container_trouble(p))), None)
