"""The Kubernetes objects behind an endpoint, built from the request alone (pure functions).

- managed: an InferenceEndpointConfig (inference.sagemaker.aws.amazon.com/v1) whose model is a folder
  of an S3 or FSx for Lustre storage Launchpod configured (modelSourceType s3 or fsx, "Deploy models from
  Amazon S3, Amazon FSx, or Hugging Face Hub using kubectl",
  https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-deploy-ftm.html),
  with kvCacheSpec, intelligentRoutingSpec,
  autoScalingSpec and metrics as given; the HyperPod inference operator makes its Deployment and Service.
- jumpstart: a JumpStartModel (model id, version, EULA acceptance, instance type).
- container: a Deployment of any serving image with the GPUs the caller gave (requested and limited),
  required node affinity to the instance type (so never a CPU-only group), the storage claim at /s3,
  /dev/shm as memory, the log's tail as termination message, and a Service: ClusterIP, or an NLB through
  the AWS Load Balancer Controller.
Every object carries Launchpod's managed-by label and ``launchpod.io/endpoint``; the primary object also
carries the request that made it (``launchpod.io/request``), which the planner compares a repeated create with.
"""

from __future__ import annotations

import json
import math
from typing import Any

from launchpod.contracts.endpoint_scaling import AutoscalingSpec
from launchpod.contracts.inference import CreateEndpointInput, FsxModelSource, WorkerSpec
from launchpod.domain import ownership
from launchpod.domain.inference import multinode

GROUP_VERSION = "inference.sagemaker.aws.amazon.com/v1"
ENDPOINT_LABEL = "launchpod.io/endpoint"
KIND_LABEL = "launchpod.io/endpoint-kind"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"  # HyperPod nodes carry their ml.* type
GPU = "nvidia.com/gpu"
QUEUE_LABEL, PRIORITY_LABEL = "kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/priority-class"
MODEL_MOUNT = "/opt/ml/model"
STORAGE_MOUNT = "/s3"
# AWS Load Balancer Controller: a Service of this class is its to reconcile, as an NLB with IP targets
# (https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/nlb/).
NLB_CLASS = "service.k8s.aws/nlb"
NLB_ANNOTATIONS = {
    "service.beta.kubernetes.io/aws-load-balancer-type": "external",
    "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip",
    # internal: reachable from the VPC (and peered networks), not from the internet
    "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal",
}
KINDS = {"managed": "InferenceEndpointConfig", "jumpstart": "JumpStartModel", "container": "Deployment"}
SERVES_LABEL = "launchpod.io/serves"  # modelPool: the endpoint whose Service a pod is bound to
REQUEST_ANNOTATION = "launchpod.io/request"  # the create request, as JSON, on the primary object
ROLE_LABEL = "launchpod.io/role"  # worker or router: the two Deployments of a routed endpoint never overlap
# The SGLang router's Kubernetes service discovery: it watches pods matching --selector (key=value pairs, all
# must match) in its namespace and routes to their --service-discovery-port with the cache-aware policy
# (https://docs.sglang.ai/advanced_features/router.html, "Kubernetes service discovery"). It selects by labels
# only, so a model pool's router selects by the pool's binding label, as the pool's Service does: a pod
# relabelled to another endpoint leaves this router's workers and joins that endpoint's.
ROUTER_PORT = 30000
# Prefill/decode disaggregation (SGLang, https://docs.sglang.ai/advanced_features/pd_disaggregation.html): each
# server starts with --disaggregation-mode prefill|decode; a prefill server answers the decode server's KV
# transfer handshake on its bootstrap port (default 8998), which the router's PD service discovery reads from
# the prefill pod's annotation sglang.ai/bootstrap-port (https://docs.sglang.ai/advanced_features/router.html).
PD_LABEL = "launchpod.io/pd-role"  # prefill or decode: the two Deployments of a PD endpoint never overlap
BOOTSTRAP_PORT = 8998
BOOTSTRAP_ANNOTATION = "sglang.ai/bootstrap-port"
# The CRD's defaults for a cloudWatchTrigger's period and query window (metricCollectionPeriod and
# metricCollectionStartTime, seconds).
CLOUDWATCH_PERIOD = 300
CLOUDWATCH_WINDOW = 300


def labels(endpoint: str, kind: str) -> dict[str, str]:
    return {**ownership.K8S_LABELS, ENDPOINT_LABEL: endpoint, KIND_LABEL: kind}


def labels_of(request: CreateEndpointInput) -> dict[str, str]:
    return labels(request.endpoint, request.kind)


def _meta(request: CreateEndpointInput) -> dict[str, Any]:
    return {"name": request.endpoint, "namespace": request.namespace, "labels": labels_of(request) | _queued(request)}


def _queued(request: CreateEndpointInput) -> dict[str, str]:
    """Kueue's labels: the team's LocalQueue and the priority class, in metadata.labels of the
    InferenceEndpointConfig or JumpStartModel (AWS, "Deploy models with task governance"), and on a Deployment
    and its pod template (Kueue, "Run A Deployment", https://kueue.sigs.k8s.io/docs/tasks/run/deployment/)."""
    out = {QUEUE_LABEL: request.queue} if request.queue else {}
    if request.priority:
        out[PRIORITY_LABEL] = request.priority
    return out


def _resources(worker: WorkerSpec) -> dict[str, Any]:
    requests: dict[str, str] = {"cpu": worker.cpu, "memory": worker.memory}
    limits: dict[str, str] = {"memory": worker.memory}
    if worker.gpus:
        requests[GPU] = limits[GPU] = str(worker.gpus)
    if worker.acceleratorPartition is not None:
        part = worker.acceleratorPartition
        requests[f"nvidia.com/{part.type}"] = limits[f"nvidia.com/{part.type}"] = str(part.count)
    return {"requests": requests, "limits": limits}


def _env(worker: WorkerSpec) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in sorted(worker.env.items())]


def model_source(
    model_path: str, bucket: str, region: str, prefix: str | None, fsx: FsxModelSource | None = None
) -> dict[str, Any]:
    """The CRD's modelSourceConfig. S3: the bucket, and the model's key under the storage's prefix (the operator
    reads the bucket itself, not the claim). FSx: the file system (its id is required, the DNS and mount names
    let the operator mount it without a lookup), and the model's path from the file system's root, which is
    where the storage's volume mounts it."""
    if fsx is not None:
        return {
            "modelSourceType": "fsx",
            "fsxStorage": {"fileSystemId": fsx.fileSystemId, "dnsName": fsx.dnsName, "mountName": fsx.mountName},
            "modelLocation": model_path,
        }
    location = f"{prefix.strip('/')}/{model_path}" if prefix else model_path
    return {
        "modelSourceType": "s3",
        "s3Storage": {"bucketName": bucket, "region": region},
        "modelLocation": location,
    }


def managed(
    request: CreateEndpointInput, bucket: str, region: str, prefix: str | None, fsx: FsxModelSource | None = None
) -> dict[str, Any]:
    spec = request.managed
    assert spec is not None
    worker = spec.worker
    body: dict[str, Any] = {
        "modelName": request.endpoint,
        "instanceType": request.instanceType,
        "replicas": request.replicas,
        "invocationEndpoint": "v1/chat/completions",
        "modelSourceConfig": model_source(spec.modelPath, bucket, region, prefix, fsx),
        "worker": {
            "image": worker.image,
            "args": list(worker.args),
            "modelInvocationPort": {"containerPort": worker.port, "name": "http"},
            "modelVolumeMount": {"name": "model-weights", "mountPath": MODEL_MOUNT},
            "resources": _resources(worker),
            "environmentVariables": _env(worker),
        },
    }
    if spec.kvCache is not None:
        kv: dict[str, Any] = {"enableL1Cache": spec.kvCache.l1, "enableL2Cache": spec.kvCache.l2 is not None}
        if spec.kvCache.l2 is not None:
            kv["l2CacheSpec"] = {"l2CacheBackend": spec.kvCache.l2}
            if spec.kvCache.redisUrl:
                kv["l2CacheSpec"]["l2CacheLocalUrl"] = spec.kvCache.redisUrl
        body["kvCacheSpec"] = kv
    if spec.routing is not None:
        body["intelligentRoutingSpec"] = {"enabled": True, "routingStrategy": spec.routing.strategy}
    if spec.autoscaling is not None:
        body["autoScalingSpec"] = autoscaling_spec(spec.autoscaling)
    if spec.pd is not None:
        body["pdSpec"] = pd_spec(request)
    if spec.metrics is not None:
        body["metrics"] = {
            "enabled": spec.metrics.enabled,
            "metricsScrapeIntervalSeconds": spec.metrics.scrapeIntervalSeconds,
            "modelMetrics": {"path": spec.metrics.path, "port": spec.metrics.port},
        }
    return {"apiVersion": GROUP_VERSION, "kind": "InferenceEndpointConfig", "metadata": _meta(request), "spec": body}


def pd_spec(request: CreateEndpointInput) -> dict[str, Any]:
    """The InferenceEndpointConfig's pdSpec (operator v3.2): the operator runs a prefill and a decode Deployment;
    each side's args are vLLM flags appended after worker.args (a duplicate overrides), its resources must ask for
    GPUs, and the nodeSelector keeps it on the endpoint's instance type. Prompts of routingThreshold tokens or more
    take the PD path (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-inference-release-notes.html)."""
    assert request.managed is not None and request.managed.pd is not None
    worker, pd = request.managed.worker, request.managed.pd
    prefill = worker.model_copy(update={"gpus": pd.prefillGpus or worker.gpus})
    placed = {INSTANCE_TYPE_LABEL: request.instanceType}
    out: dict[str, Any] = {
        "prefillSpec": {
            "replicas": pd.prefillReplicas,
            "resources": _resources(prefill),
            "args": list(pd.prefillArgs),
            "nodeSelector": placed,
        },
        "decodingSpec": {
            "replicas": request.replicas,
            "resources": _resources(worker),
            "args": list(pd.decodeArgs),
            "nodeSelector": dict(placed),
        },
    }
    if pd.routingThreshold is not None:
        out["routingThreshold"] = pd.routingThreshold
    return out


def scale_patch(primary: dict[str, Any], replicas: int) -> dict[str, Any]:
    """The merge patch that scales an endpoint: spec.replicas, and with a pdSpec also its decode side (the
    decodingSpec's replicas are the decode Deployment's, and the endpoint's replicas are its decode workers)."""
    spec: dict[str, Any] = {"replicas": replicas}
    if (primary.get("spec") or {}).get("pdSpec"):
        spec["pdSpec"] = {"decodingSpec": {"replicas": replicas}}
    return {"spec": spec}


def autoscaling_spec(auto: AutoscalingSpec) -> dict[str, Any]:
    """The InferenceEndpointConfig's autoScalingSpec, which the operator turns into a KEDA ScaledObject on its
    Deployment (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-autoscaling.html).
    A prometheusTrigger names an AMP workspace or none (the CRD's serverAddress pattern); a cloudWatchTrigger's
    query window (metricCollectionStartTime) is a whole number of periods at least 300 s long, as KEDA's
    aws-cloudwatch scaler requires its metricCollectionTime to be a multiple of metricStatPeriod
    (https://keda.sh/docs/2.17/scalers/aws-cloudwatch/)."""
    out: dict[str, Any] = {"minReplicaCount": auto.minReplicas, "maxReplicaCount": auto.maxReplicas}
    if auto.prometheus is not None:
        trigger: dict[str, Any] = {"query": auto.prometheus.query, "targetValue": auto.prometheus.targetValue}
        if auto.prometheus.ampWorkspaceUrl:
            trigger["serverAddress"] = auto.prometheus.ampWorkspaceUrl
        out["prometheusTrigger"] = trigger
    if auto.cloudWatch is not None:
        cw = auto.cloudWatch
        period = cw.period or CLOUDWATCH_PERIOD
        out["cloudWatchTrigger"] = {
            "namespace": cw.namespace,
            "metricName": cw.metricName,
            "dimensions": [{"name": d.name, "value": d.value} for d in cw.dimensions],
            "targetValue": cw.targetValue,
            "metricStat": cw.statistic,
            "metricCollectionPeriod": period,
            "metricCollectionStartTime": period * math.ceil(CLOUDWATCH_WINDOW / period),
        }
    return out


def jumpstart(request: CreateEndpointInput) -> dict[str, Any]:
    spec = request.jumpstart
    assert spec is not None
    model: dict[str, Any] = {
        "modelHubName": "SageMakerPublicHub",
        "modelId": spec.modelId,
        "acceptEula": spec.acceptEula,
    }
    if spec.modelVersion:
        model["modelVersion"] = spec.modelVersion
    server: dict[str, Any] = {"instanceType": request.instanceType}
    if spec.acceleratorPartitionType:
        server["acceleratorPartitionType"] = spec.acceleratorPartitionType
    body = {"model": model, "server": server, "replicas": request.replicas}
    return {"apiVersion": GROUP_VERSION, "kind": "JumpStartModel", "metadata": _meta(request), "spec": body}


def container(request: CreateEndpointInput, efa: int = 0) -> list[dict[str, Any]]:
    """The Deployment and its Service (with multiNode, ``efa`` interfaces per node: multinode)."""
    spec = request.container
    assert spec is not None
    worker = spec.worker
    meta = _meta(request)
    selector = {ENDPOINT_LABEL: request.endpoint, ROLE_LABEL: "worker", **({PD_LABEL: "decode"} if spec.pd else {})}
    mounts: list[dict[str, Any]] = [{"name": "dshm", "mountPath": "/dev/shm"}]
    # NCCL and PyTorch dataloaders use shared memory; the container runtime's default /dev/shm is 64 MiB.
    volumes: list[dict[str, Any]] = [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]
    if spec.storageClaim:
        mounts.append({"name": "storage", "mountPath": STORAGE_MOUNT})
        volumes.append({"name": "storage", "persistentVolumeClaim": {"claimName": spec.storageClaim}})
    server: dict[str, Any] = {
        "name": "server",
        "image": worker.image,
        "args": [*worker.args, *_pd_args(request, "decode")],
        "ports": [{"name": "http", "containerPort": worker.port}],
        "env": _env(worker),
        "resources": _resources(worker),
        "volumeMounts": mounts,
        # A server that exits at start (a model path without its files) leaves the tail of its log as the
        # container's termination message, which the endpoint's view shows: the kubelet does this for
        # FallbackToLogsOnError when the program wrote no message of its own
        # (https://kubernetes.io/docs/tasks/debug/debug-application/determine-reason-pod-failure/#customizing-the-termination-message).
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": [request.instanceType]}
                        ]
                    }
                ]
            }
        }
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": {
            "replicas": request.replicas,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {
                    "labels": {
                        **meta["labels"],
                        ROLE_LABEL: "worker",
                        **({SERVES_LABEL: request.endpoint} if spec.service == "modelPool" else {}),
                        **({PD_LABEL: "decode"} if spec.pd else {}),
                    }
                },
                "spec": {"containers": [server], "volumes": volumes, "affinity": affinity},
            },
        },
    }
    port = ROUTER_PORT if spec.router else worker.port
    service_spec: dict[str, Any] = {
        "selector": (
            {ENDPOINT_LABEL: request.endpoint, ROLE_LABEL: "router"}
            if spec.router
            else {SERVES_LABEL: request.endpoint}
            if spec.service == "modelPool"
            else selector
        ),
        "ports": [{"name": "http", "port": port, "targetPort": port, "protocol": "TCP"}],
    }
    service_meta = {**meta}
    if spec.service == "loadBalancer":
        service_spec |= {"type": "LoadBalancer", "loadBalancerClass": NLB_CLASS}
        service_meta = {**meta, "annotations": dict(NLB_ANNOTATIONS)}
    else:
        service_spec["type"] = "ClusterIP"
    service = {"apiVersion": "v1", "kind": "Service", "metadata": service_meta, "spec": service_spec}
    routed = router_objects(request) if spec.router else []
    prefill = [prefill_deployment(request, deployment)] if spec.pd else []
    ranks = multinode.objects(request, deployment, service, efa, KIND_LABEL) if spec.multiNode else []
    return [deployment, *prefill, *ranks, *routed, service, *([scaled_object(request)] if spec.autoscaling else [])]


def _pd_args(request: CreateEndpointInput, role: str) -> list[str]:
    """An SGLang server's PD flags: its mode, the KV transfer backend (both sides the same), and on the prefill
    side the bootstrap port the decode side's transfer handshake reaches."""
    pd = request.container.pd if request.container else None
    if pd is None:
        return []
    out = ["--disaggregation-mode", role]
    if pd.transferBackend:
        out += ["--disaggregation-transfer-backend", pd.transferBackend]
    if role == "prefill":
        out += ["--disaggregation-bootstrap-port", str(BOOTSTRAP_PORT), *pd.prefillArgs]
    else:
        out += list(pd.decodeArgs)
    return out


def prefill_name(endpoint: str) -> str:
    return f"{endpoint}-prefill"


def prefill_deployment(request: CreateEndpointInput, decode: dict[str, Any]) -> dict[str, Any]:
    """The prefill side of a PD endpoint: the decode Deployment's pod with --disaggregation-mode prefill, the
    bootstrap port (declared and annotated for the router), its own GPUs and replicas. No endpoint-kind label:
    it is part of the endpoint, as the router is."""
    assert request.container is not None and request.container.pd is not None
    pd, worker = request.container.pd, request.container.worker
    labels = {**ownership.K8S_LABELS, ENDPOINT_LABEL: request.endpoint, ROLE_LABEL: "worker", PD_LABEL: "prefill"}
    template = decode["spec"]["template"]
    server = {
        **template["spec"]["containers"][0],
        "args": [*worker.args, *_pd_args(request, "prefill")],
        "ports": [
            {"name": "http", "containerPort": worker.port},
            {"name": "bootstrap", "containerPort": BOOTSTRAP_PORT},
        ],
        "resources": _resources(worker.model_copy(update={"gpus": pd.prefillGpus or worker.gpus})),
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": prefill_name(request.endpoint), "namespace": request.namespace, "labels": labels},
        "spec": {
            "replicas": pd.prefillReplicas,
            "selector": {"matchLabels": {ENDPOINT_LABEL: request.endpoint, ROLE_LABEL: "worker", PD_LABEL: "prefill"}},
            "template": {
                "metadata": {"labels": labels, "annotations": {BOOTSTRAP_ANNOTATION: str(BOOTSTRAP_PORT)}},
                "spec": {**template["spec"], "containers": [server]},
            },
        },
    }


def prefill_ref(endpoint: str, namespace: str) -> dict[str, Any]:
    """What delete removes for a PD endpoint besides its decode Deployment (skipped when absent)."""
    meta = {"name": prefill_name(endpoint), "namespace": namespace}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta}


def pool_endpoint(deployment: dict[str, Any]) -> bool:
    """A model pool's Deployment: its pods carry the binding label (a router in front or not)."""
    template = ((deployment.get("spec") or {}).get("template") or {}).get("metadata") or {}
    return SERVES_LABEL in (template.get("labels") or {})


def router_name(endpoint: str) -> str:
    return f"{endpoint}-router"


def router_objects(request: CreateEndpointInput) -> list[dict[str, Any]]:
    """The SGLang router: its service account, a Role to watch the pods it routes to, and its Deployment."""
    assert request.container is not None
    name, ns = router_name(request.endpoint), request.namespace
    # no endpoint-kind label: the router is part of the endpoint, not an endpoint of its own
    labels = {**ownership.K8S_LABELS, ENDPOINT_LABEL: request.endpoint, ROLE_LABEL: "router"}
    meta = {"name": name, "namespace": ns, "labels": labels}
    bound = SERVES_LABEL if request.container.service == "modelPool" else ENDPOINT_LABEL
    workers = f"{bound}={request.endpoint} {ROLE_LABEL}=worker"
    discovery = ["--selector", *workers.split(" ")]
    if request.container.pd is not None:
        # PD mode: the router finds each side by its own selector, and a prefill pod's bootstrap port by its
        # annotation; every request goes to one prefill and one decode worker at once.
        discovery = [
            "--pd-disaggregation",
            "--prefill-selector",
            *f"{workers} {PD_LABEL}=prefill".split(" "),
            "--decode-selector",
            *f"{workers} {PD_LABEL}=decode".split(" "),
        ]
    router = {
        "name": "router",
        "image": request.container.worker.image,
        "command": ["python3", "-m", "sglang_router.launch_router"],
        "args": [
            "--host",
            "0.0.0.0",
            "--port",
            str(ROUTER_PORT),
            "--policy",
            "cache_aware",
            "--service-discovery",
            *discovery,
            "--service-discovery-port",
            str(request.container.worker.port),
            "--service-discovery-namespace",
            ns,
        ],
        "ports": [{"name": "http", "containerPort": ROUTER_PORT}],
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "4Gi"}},
    }
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": meta,
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}],
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": meta,
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {ENDPOINT_LABEL: request.endpoint, ROLE_LABEL: "router"}},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {"serviceAccountName": name, "containers": [router]},
                },
            },
        },
    ]


def router_refs(endpoint: str, namespace: str) -> list[dict[str, Any]]:
    """What delete removes for a routed endpoint (absent objects are skipped)."""
    meta = {"name": router_name(endpoint), "namespace": namespace}
    rbac = "rbac.authorization.k8s.io/v1"
    return [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta},
        {"apiVersion": rbac, "kind": "RoleBinding", "metadata": meta},
        {"apiVersion": rbac, "kind": "Role", "metadata": meta},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
    ]


def scaled_object(request: CreateEndpointInput) -> dict[str, Any]:
    """KEDA scales the Deployment through the HPA it makes, on a Prometheus query: replicas =
    ceil(value / threshold) within min..max (https://keda.sh/docs/2.17/scalers/prometheus/)."""
    assert request.container is not None and request.container.autoscaling is not None
    auto = request.container.autoscaling
    assert auto.prometheus is not None
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": _meta(request),
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": request.endpoint},
            "minReplicaCount": auto.minReplicas,
            "maxReplicaCount": auto.maxReplicas,
            "pollingInterval": 15,
            "cooldownPeriod": 120,
            "triggers": [
                {
                    "type": "prometheus",
                    "metadata": {
                        "serverAddress": auto.prometheus.serverAddress,
                        "query": auto.prometheus.query,
                        "threshold": f"{auto.prometheus.targetValue:g}",
                    },
                }
            ],
        },
    }


def scaled_object_ref(endpoint: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": endpoint, "namespace": namespace},
    }


def objects(
    request: CreateEndpointInput,
    bucket: str,
    region: str,
    prefix: str | None,
    fsx: FsxModelSource | None = None,
    efa: int = 0,
) -> list[dict[str, Any]]:
    if request.kind == "managed":
        made = [managed(request, bucket, region, prefix, fsx)]
    elif request.kind == "jumpstart":
        made = [jumpstart(request)]
    else:
        made = container(request, efa)
    for obj in made:
        if obj["kind"] == KINDS[request.kind] and obj["metadata"]["name"] == request.endpoint:
            meta = obj["metadata"]
            meta["annotations"] = {**(meta.get("annotations") or {}), REQUEST_ANNOTATION: recorded(request)}
    return made


def recorded(request: CreateEndpointInput) -> str:
    """The create request as the primary object records it: every field with its value (defaults filled)."""
    return json.dumps(request.model_dump(mode="json", exclude={"name", "dryRun"}), sort_keys=True)


def primary_ref(kind: str, endpoint: str, namespace: str) -> dict[str, Any]:
    """The object whose replicas the endpoint has (the custom resource, or the Deployment)."""
    api = "apps/v1" if kind == "container" else GROUP_VERSION
    return {"apiVersion": api, "kind": KINDS[kind], "metadata": {"name": endpoint, "namespace": namespace}}


def service_ref(endpoint: str, namespace: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": endpoint, "namespace": namespace}}
