"""A cluster's inference endpoints: the checks before a deploy (an ACTIVE control plane, a GPU group of the
type, the inference operator or KEDA, the storage, the load balancer controller, the Prometheus KEDA
queries), the deploy/scale/delete proposals the inference workflow carries out (a delete sent again while
it runs answers that operation), the views read from the cluster (or from the running deploy until it
applied the objects) and a pool pod's reassignment, planned first for ``dryRun``; calls to an endpoint
(invoke, chat completions) are usecases/endpoint_chat.py's. The ports are only the calls made, so unit
tests pass in-memory fakes."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

from launchpod.contracts.inference import (
    AssignPodRequest,
    AssignPodView,
    CreateEndpointInput,
    EndpointListView,
    EndpointView,
    EndpointWorkflowRequest,
    FsxModelSource,
    ScaleEndpointInput,
)
from launchpod.contracts.operations import NoopView, OperationStatus, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.domain import features, mig, storage
from launchpod.domain import operations as ops
from launchpod.domain import task_governance as governance
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.concurrency import ContextPool
from launchpod.domain.dependencies import lbc
from launchpod.domain.errors import Conflict, InvalidInput, NotFound, next_step
from launchpod.domain.inference import endpoints, manifests
from launchpod.domain.inference.endpoints import RealEndpoint
from launchpod.domain.nodes import views as node_views
from launchpod.domain.plan import Plan, Step
from launchpod.usecases.ports import (
    AddonReader,
    ControlPlanes,
    HyperPodReader,
    InstanceFacts,
    KubeLister,
    KubeReader,
    OperationLog,
)
from launchpod.usecases.proposal import Proposal, at_once
from launchpod.usecases.provisioning import require_active


class ClusterEndpoints(Protocol):
    """The endpoints Launchpod deployed on a cluster's API server (adapters.k8s.endpoints)."""

    def endpoints(self, cluster: str, with_pods: bool = True, name: str | None = None) -> list[RealEndpoint]: ...
    def endpoint(self, cluster: str, name: str) -> RealEndpoint | None: ...
    def chat(self, cluster: str, real: RealEndpoint, payload: dict[str, Any]) -> tuple[dict[str, Any], bool]: ...
    def models(self, cluster: str, real: RealEndpoint) -> dict[str, Any]: ...
    def bind_pod(self, cluster: str, namespace: str, pod: str, endpoint: str) -> None: ...


@dataclass(frozen=True)
class InferencePorts:
    eks: ControlPlanes
    addons: AddonReader
    hyperpods: HyperPodReader
    read: KubeReader
    endpoints: ClusterEndpoints
    operations: OperationLog
    workflows: ops.WorkflowRunner
    region: str
    instances: InstanceFacts
    listed: KubeLister


def real() -> InferencePorts:
    """The deployed adapters (runtime.wiring)."""
    from launchpod.runtime import wiring
    from launchpod.runtime.settings import settings

    eks = wiring.eks()
    return InferencePorts(
        eks=eks,
        addons=eks,
        hyperpods=wiring.sagemaker(),
        read=wiring.kube().read,
        endpoints=wiring.kube_endpoints(),
        operations=wiring.operations(),
        workflows=wiring.workflows(),
        region=settings().region,
        instances=wiring.instance_facts(),
        listed=wiring.kube_items(),
    )


# ---------------------------------------------------------------------------- checks


def active(name: str, ports: InferencePorts) -> None:
    require_active(name, "endpoints need", eks_clusters=ports.eks)


def _groups(cluster: HyperPodCluster | None) -> dict[str, tuple[str, ...]]:
    """Each group's instance types: its one type, or a flexible group's list (DescribeCluster's
    ``InstanceRequirements.CurrentInstanceTypes``; such a group may report no ``InstanceType``)."""
    groups = cluster.instance_groups if cluster is not None else ()
    return {g.name: g.current_instance_types or ((g.instance_type,) if g.instance_type else ()) for g in groups}


def _karpenter(cluster: HyperPodCluster | None) -> bool:
    """Whether HyperPod-managed Karpenter adds the cluster's nodes (AutoScaling Mode Enable)."""
    return cluster is not None and cluster.autoscaling is not None and cluster.autoscaling.mode == "Enable"


def _nodes_of_type(cluster: HyperPodCluster | None, instance_type: str, nodes: int) -> None:
    """A multi-node endpoint puts one server on each of ``nodes`` nodes of the type at once: the cluster's groups
    of that type must run that many (HyperPod-managed Karpenter adds nodes up to the groups' limits instead)."""
    if _karpenter(cluster):
        return
    types, groups = _groups(cluster), (cluster.instance_groups if cluster is not None else ())
    have = sum(g.current_count for g in groups if instance_type in types.get(g.name, ()))
    if nodes > have:
        raise InvalidInput(
            f"Spreading one copy of the model over {nodes} nodes needs {nodes} {instance_type} nodes at once, and the "
            f"cluster runs {have}. Scale a group of that type to {nodes} nodes, or spread the model over fewer.",
            field="body.container.multiNode.nodes",
            rule="nodes_of_type",
        )


def _needs_operator(request: CreateEndpointInput, ports: InferencePorts) -> None:
    """managed and jumpstart endpoints are the operator's; a container's ScaledObject needs KEDA, which
    the inference add-on installs with its KEDA operator role (AWS Architecture Blog, "Simplified
    Inference Operator setup on Amazon SageMaker HyperPod", 2026-04-06)."""
    keda = request.container is not None and request.container.autoscaling is not None
    if (request.kind == "container" and not keda) or features.inference_enabled(ports.addons.addons(request.name)):
        return
    if keda:
        field, rule = "body.container.autoscaling", "keda_installed"
        message = (
            f"Container autoscaling is a KEDA ScaledObject, and KEDA comes with the HyperPod inference operator, "
            f"which is not enabled on {request.name}. Turn on the inference operator in the cluster's features, or"
            " deploy without autoscaling."
        )
    else:
        field, rule = "body.kind", "inference_operator_enabled"
        message = (
            f"{request.kind} endpoints are run by the HyperPod inference operator, which is not enabled on "
            f"{request.name}. Turn on the inference operator in the cluster's features and send the request again,"
            " or deploy kind container."
        )
    raise Conflict(
        message,
        details=[{"field": field, "rule": rule, "message": "inference operator"}, _enable_inference(request.name)],
    )


def _enable_inference(name: str) -> dict[str, Any]:
    return next_step(f'PATCH /api/clusters/{name}/features {{"inferenceOperator": {{"enabled": true}}}}')


def _needs_prometheus(request: CreateEndpointInput, ports: InferencePorts) -> None:
    """KEDA's prometheus scaler queries serverAddress from inside the cluster
    (https://keda.sh/docs/2.17/scalers/prometheus/); Launchpod installs no Prometheus (a cluster's metrics
    stack is the platform team's choice, and one endpoint should not bring a cluster-wide server), so the
    Service the address names must exist with that port before the ScaledObject is made, or KEDA would
    only ever report a TriggerError."""
    auto = request.container.autoscaling if request.container is not None else None
    if auto is None or auto.prometheus is None:
        return
    address = auto.prometheus.serverAddress
    service, namespace, port = endpoints.prometheus_service(address)
    found = ports.read(request.name, manifests.service_ref(service, namespace))
    ports_of = {int(p.get("port", 0)) for p in ((found or {}).get("spec") or {}).get("ports") or []}
    if found is not None and port in ports_of:
        return
    what = (
        f"has no Service {service} in namespace {namespace}"
        if found is None
        else f"has Service {namespace}/{service}, but it does not expose port {port} (it has "
        f"{', '.join(str(p) for p in sorted(ports_of)) or 'none'})"
    )
    raise Conflict(
        f"KEDA queries Prometheus at {address} from inside the cluster, and {request.name} {what}. Install "
        "Prometheus there (for example the prometheus-community/prometheus Helm chart as release prometheus in "
        "namespace prometheus: Service prometheus-server, port 80), or send "
        "container.autoscaling.prometheus.serverAddress naming your Prometheus Service "
        "(http://<service>.<namespace>.svc.cluster.local:<port>).",
        details=[
            {
                "field": "body.container.autoscaling.prometheus.serverAddress",
                "rule": "prometheus_service_exists",
                "message": address,
            }
        ],
    )


def _volume(name: str, storage_name: str, namespace: str, ports: InferencePorts) -> dict[str, Any] | None:
    """The PersistentVolume of a storage Launchpod configured, whose claim is in ``namespace``; None when there
    is no such storage."""
    volume = ports.read(name, {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": storage_name}})
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
        f"{name} has no {kinds} storage {storage_name} configured by Launchpod; add it to the cluster's storage, or"
        " choose one the cluster has.",
        details=[
            {"field": field, "rule": "storage_exists", "message": storage_name},
            next_step(f"POST /api/clusters/{name}/storage"),
        ],
    )


def _model_source(
    name: str, storage_name: str, namespace: str, ports: InferencePorts
) -> tuple[str | None, str | None, FsxModelSource | None]:
    """(bucket, prefix, None) of an S3 storage, or (None, None, the file system) of an FSx one."""
    field = "body.managed.storageName"
    volume = _volume(name, storage_name, namespace, ports)
    s3 = storage.s3_prefix_of(volume) if volume else None
    if s3 is not None:
        return s3[0], s3[1], None
    fsx = storage.fsx_source_of(volume) if volume else None
    if fsx is None:
        raise _missing(name, storage_name, field, "S3 or FSx")
    return None, None, FsxModelSource(fileSystemId=fsx[0], dnsName=fsx[1], mountName=fsx[2])


def _claim(name: str, storage_name: str, namespace: str, ports: InferencePorts) -> None:
    """A container mounts an S3 storage's claim at /s3."""
    volume = _volume(name, storage_name, namespace, ports)
    if volume is None or storage.s3_prefix_of(volume) is None:
        raise _missing(name, storage_name, "body.container.storageClaim", "S3")


def _needs_balancer(name: str, ports: InferencePorts) -> None:
    """A loadBalancer Service gets its NLB only from the AWS Load Balancer Controller; without it the
    Service would wait for an address forever, so the request is refused with what to do. Installing it
    from here would create an IAM role and a cluster-wide controller as a side effect of one endpoint, so
    that stays the dependency reconcile's (an explicit, planned operation)."""
    if ports.read(name, lbc.deployment_ref()) is None:
        raise Conflict(
            lbc.missing(name),
            details=[
                {"field": "body.container.service", "rule": "load_balancer_controller_installed", "message": lbc.NAME}
            ],
        )


def existing(name: str, endpoint: str, ports: InferencePorts) -> RealEndpoint:
    """The endpoint Launchpod deployed on the cluster, or NotFound naming where to list them."""
    found = ports.endpoints.endpoint(name, endpoint)
    if found is None:
        raise NotFound(
            f"{name} has no endpoint {endpoint} deployed by Launchpod.",
            details=[next_step(f"GET /api/clusters/{name}/endpoints")],
        )
    return found


# Newest first: the one unfinished operation of a cluster is among them (see _in_flight).
IN_FLIGHT_LOOKBACK = 5


def _unfinished(name: str, action: str, ports: InferencePorts) -> list[OperationView]:
    """The cluster's unfinished inference operations doing ``action``. A cluster has one writer at a time (an
    operation holds it until it ends), so an unfinished operation is the cluster's newest; the few newest are
    all there is to read."""
    return [
        operation
        for operation in ports.operations.list(target=name, status=None, limit=IN_FLIGHT_LOOKBACK)
        if not OperationStatus(operation.status).terminal
        and operation.kind == endpoints.KIND
        and (operation.request or {}).get("action") == action
    ]


def _in_flight(name: str, endpoint: str, action: str, ports: InferencePorts) -> OperationView | None:
    """The cluster's unfinished inference operation that does ``action`` to ``endpoint``, if there is one."""
    return next((o for o in _unfinished(name, action, ports) if (o.request or {}).get("endpoint") == endpoint), None)


def _answered_by(operation: OperationView) -> Proposal:
    """The same request again while ``operation`` carries it out: its steps, and that operation (202)."""
    steps = tuple(Step(s.action, s.target, s.reason, s.phase) for s in operation.plan) or (
        Step("run", f"operation {operation.id}", f"the {operation.kind} workflow is carrying the request out"),
    )
    return Proposal(Plan(operation.target, steps), lambda: operation)


def _starter(
    name: str, request: EndpointWorkflowRequest, plan: Plan, who: ops.Principal, ports: InferencePorts
) -> Proposal:
    def start() -> Any:
        doc = request.model_dump(mode="json", exclude_none=True)
        operation, _ = ops.submit(ports.operations, ports.workflows, endpoints.workflow(name, doc, plan), who)
        return operation

    return Proposal(plan, start)


def _fit(
    name: str,
    endpoint: str,
    instance_type: str,
    replicas: int,
    gpus: int,
    ports: InferencePorts,
    prefill: tuple[int, int] | None = None,
    resource: str = node_views.GPU,
) -> list[str]:
    """Whether ``replicas`` more replicas of ``gpus`` GPUs fit the free GPUs of the cluster's nodes of the type,
    read from its Nodes and the pods on them (the scheduler's view); HyperPod-managed Karpenter adds nodes. With
    ``prefill`` (workers, GPUs each), a PD endpoint's prefill workers are checked in the room the decode ones
    leave."""
    pods = node_views.pods_by_node(ports.listed(name, "Pod"))
    room = [
        endpoints.NodeRoom(
            n["metadata"]["name"],
            node_views.gpus_allocatable(n, resource),
            sum(node_views.pod_gpus(p, resource) for p in node_views.running(pods.get(n["metadata"]["name"], []))),
        )
        for n in ports.listed(name, "Node")
        if ((n.get("metadata") or {}).get("labels") or {}).get(manifests.INSTANCE_TYPE_LABEL) == instance_type
    ]
    karpenter = _karpenter(ports.hyperpods.hyperpod_cluster(hyperpod.hyperpod_name(name)))
    unit = "GPU" if resource == node_views.GPU else resource.removeprefix("nvidia.com/") + " partition"
    warnings = endpoints.fit_warnings(endpoint, instance_type, replicas, gpus, room, karpenter, unit)
    if prefill is not None:
        left = endpoints.after_placing(room, replicas, gpus)
        label = manifests.prefill_name(endpoint)
        warnings += endpoints.fit_warnings(label, instance_type, prefill[0], prefill[1], left, karpenter)
    return warnings


def _check_partitions(request: CreateEndpointInput, gpus: int) -> None:
    """GPU partitions the instance type's GPUs offer, at most what one node holds (domain.mig)."""
    section = request.managed or request.container
    part = section.worker.acceleratorPartition if section is not None else None
    if part is not None:
        field = f"body.{request.kind}.worker.acceleratorPartition"
        mig.check_partition(request.instanceType, gpus, part.type, part.count, f"{field}.type", f"{field}.count")
    if request.jumpstart is not None and request.jumpstart.acceleratorPartitionType:
        profile = request.jumpstart.acceleratorPartitionType
        field = "body.jumpstart.acceleratorPartitionType"
        mig.check_partition(request.instanceType, gpus, profile, 1, field, field)


def _check_queue(request: CreateEndpointInput, ports: InferencePorts) -> None:
    """The LocalQueue (in the endpoint's namespace) and the WorkloadPriorityClass it names exist: a replica in a
    queue that is not there is never admitted ("Deploy models with task governance")."""
    api = "kueue.x-k8s.io/v1beta1"
    queues: list[tuple[str, str]] = []
    # the endpoint's namespace, then the team's own (hyperpod-ns-<team> for hyperpod-ns-<team>-localqueue), so a
    # refusal can say where the queue is
    for namespace in dict.fromkeys([request.namespace, (request.queue or "").removesuffix("-localqueue")]):
        ref = {"apiVersion": api, "kind": "LocalQueue", "metadata": {"name": request.queue, "namespace": namespace}}
        if request.queue and namespace and ports.read(request.name, ref) is not None:
            queues.append((namespace, request.queue))
    classes: list[str] = []
    if request.priority:
        ref = {"apiVersion": api, "kind": "WorkloadPriorityClass", "metadata": {"name": request.priority}}
        if ports.read(request.name, ref) is not None:
            classes.append(request.priority)
    governance.check_job_queue(request.name, request.namespace, request.queue, request.priority, queues, classes)


# ---------------------------------------------------------------------------- mutations


def create(request: CreateEndpointInput, *, who: ops.Principal, ports: InferencePorts) -> Proposal:
    name = request.name
    active(name, ports)
    acc = ports.instances.of(request.instanceType)
    cluster = ports.hyperpods.hyperpod_cluster(hyperpod.hyperpod_name(name))  # one DescribeCluster for the checks
    endpoints.check_instance_type(request, acc, _groups(cluster))
    _check_partitions(request, acc.gpus)
    _check_queue(request, ports)
    _needs_operator(request, ports)
    _needs_prometheus(request, ports)
    bucket = prefix = fsx = None
    if request.managed is not None:
        bucket, prefix, fsx = _model_source(name, request.managed.storageName, request.namespace, ports)
    if request.container is not None and request.container.storageClaim:
        _claim(name, request.container.storageClaim, request.namespace, ports)
    if request.container is not None and request.container.service == "loadBalancer":
        _needs_balancer(name, ports)
    plan = endpoints.create_plan(request, ports.endpoints.endpoint(name, request.endpoint))
    worker = (
        request.managed.worker
        if request.managed is not None
        else request.container.worker
        if request.container
        else None
    )
    spread = request.container.multiNode if request.container is not None else None
    if spread is not None:
        _nodes_of_type(cluster, request.instanceType, spread.nodes)
    if not plan.empty and worker is not None:
        section = request.managed or request.container
        pd = section.pd if section is not None else None
        prefill = (pd.prefillReplicas, pd.prefillGpus or worker.gpus) if pd is not None else None
        part = worker.acceleratorPartition
        amount, resource = (part.count, f"nvidia.com/{part.type}") if part else (worker.gpus, node_views.GPU)
        pods = request.replicas * (spread.nodes if spread is not None else 1)  # a multi-node copy: a pod per node
        fit = _fit(name, request.endpoint, request.instanceType, pods, amount, ports, prefill, resource)
        plan = replace(plan, warnings=(*plan.warnings, *fit))
    doc = EndpointWorkflowRequest(
        name=name,
        action="deploy",
        endpoint=request.endpoint,
        namespace=request.namespace,
        kind=request.kind,
        replicas=request.replicas,
        create=request.model_copy(update={"dryRun": False}),
        bucket=bucket,
        region=ports.region if bucket else None,
        prefix=prefix or None,
        fsx=fsx,
        efa=ports.instances.of(request.instanceType).efa if spread is not None else 0,
    )
    return _starter(name, doc, plan, who, ports)


def scale(request: ScaleEndpointInput, *, who: ops.Principal, ports: InferencePorts) -> Proposal:
    active(request.name, ports)
    real = existing(request.name, request.endpoint, ports)
    plan = endpoints.scale_plan(request, real)
    doc = EndpointWorkflowRequest.model_validate(
        {
            "name": request.name,
            "action": "scale",
            "endpoint": request.endpoint,
            "namespace": real.namespace,
            "kind": real.kind,
            "replicas": request.replicas,
        }
    )
    proposal = _starter(request.name, doc, plan, who, ports)
    return Proposal(plan, proposal.start, f"{request.endpoint} already has {request.replicas} replicas.")


def delete(name: str, endpoint: str, *, who: ops.Principal, ports: InferencePorts) -> Proposal:
    """The endpoint's objects deleted by the inference workflow. Sent again while that delete runs, it answers
    the running operation, also once the objects are gone and the workflow waits for their pods; 404 after."""
    active(name, ports)
    real = ports.endpoints.endpoint(name, endpoint)
    running = _in_flight(name, endpoint, "delete", ports) if real is None else None
    if running is not None:
        return _answered_by(running)
    real = real or existing(name, endpoint, ports)
    plan = endpoints.delete_plan(name, real)
    doc = EndpointWorkflowRequest.model_validate(
        {"name": name, "action": "delete", "endpoint": endpoint, "namespace": real.namespace, "kind": real.kind}
    )
    return _starter(name, doc, plan, who, ports)


# ---------------------------------------------------------------------------- reads


def list_all(name: str, *, ports: InferencePorts) -> EndpointListView:
    """The cluster's endpoints, with one a running deploy has not applied yet listed as Deploying (as ``get``).
    The cluster's status, its endpoints and its unfinished operations are read side by side."""
    with ContextPool(max_workers=3, thread_name_prefix="endpoints") as pool:
        checked = pool.submit(active, name, ports)
        found = pool.submit(ports.endpoints.endpoints, name)
        unfinished = pool.submit(_unfinished, name, "deploy", ports)
        checked.result()  # a cluster that is not ACTIVE answers 409 whatever the others found
        items = [endpoints.view(name, e) for e in found.result()]
        deploying = unfinished.result()
    known = {i.endpoint for i in items}
    for operation in deploying:
        endpoint = (operation.request or {}).get("endpoint")
        if endpoint and endpoint not in known:
            items.append(endpoints.deploying_view(name, operation.request or {}, operation.id))
            known.add(endpoint)
    return EndpointListView(cluster=name, items=items)


def get(name: str, endpoint: str, *, ports: InferencePorts) -> EndpointView:
    """The endpoint as the cluster has it; between a deploy's 202 and its workflow applying the objects, the
    endpoint the running operation deploys (Deploying), so a client polling after the 202 never reads 404."""
    active(name, ports)
    real = ports.endpoints.endpoint(name, endpoint)
    if real is None:
        running = _in_flight(name, endpoint, "deploy", ports)
        if running is not None:
            return endpoints.deploying_view(name, running.request, running.id)
    return endpoints.view(name, real or existing(name, endpoint, ports))


# ---------------------------------------------------------------------------- model pools


def _pool(name: str, endpoint: str, field: str, ports: InferencePorts) -> RealEndpoint:
    found = existing(name, endpoint, ports)
    if found.kind != "container" or not manifests.pool_endpoint(found.primary):
        raise Conflict(
            f"Endpoint {endpoint} is not a model pool (a container endpoint with service modelPool); only pool "
            "pods are reassigned, and only to pool endpoints.",
            details=[{"field": field, "rule": "model_pool", "message": endpoint}],
        )
    return found


def assign(
    name: str, pool: str, request: AssignPodRequest, dry_run: bool = False, *, ports: InferencePorts
) -> AssignPodView | NoopView | PlanView:
    """Bind a warm worker of ``pool`` to another pool endpoint by its label: that endpoint's Service, or its
    SGLang router (which discovers workers by the same label), serves through the pod from then on. NOOP when
    it already serves that endpoint; a dry run answers the label change."""
    active(name, ports)
    source, target = _pool(name, pool, "path.pool", ports), _pool(name, request.endpoint, "body.endpoint", ports)
    if source.namespace != target.namespace:
        raise Conflict(
            f"{pool} runs in {source.namespace} and {request.endpoint} in {target.namespace}; a Service selects pods"
            " of its own namespace only.",
            details=[{"field": "body.endpoint", "rule": "same_namespace", "message": target.namespace}],
        )
    workers = [p for p in source.pods if (p["metadata"].get("labels") or {}).get(manifests.ROLE_LABEL) != "router"]
    have = ", ".join(p["metadata"]["name"] for p in workers) or "none"
    if any(p["metadata"]["name"] == request.pod for p in source.pods if p not in workers):
        raise Conflict(
            f"{request.pod} is the SGLang router of {pool}, not one of its workers; reassign a worker: {have}.",
            details=[{"field": "body.pod", "rule": "pool_worker", "message": request.pod}],
        )
    pod = next((p for p in workers if p["metadata"]["name"] == request.pod), None)
    if pod is None:
        raise NotFound(f"The pool {pool} has no pod {request.pod}; its pods are {have}.")
    previous = (pod["metadata"].get("labels") or {}).get(manifests.SERVES_LABEL)

    def bind() -> AssignPodView:
        ports.endpoints.bind_pod(name, source.namespace, request.pod, request.endpoint)
        message = f"{request.pod} (a warm worker of {pool}) now serves {request.endpoint}" + (
            f" instead of {previous}." if previous else "."
        )
        return AssignPodView(pool=pool, pod=request.pod, endpoint=request.endpoint, previous=previous, message=message)

    plan = endpoints.assign_plan(name, source.namespace, request.pod, previous, request.endpoint)
    return at_once(plan, dry_run, f"{request.pod} already serves {request.endpoint}; no changes.", bind)
