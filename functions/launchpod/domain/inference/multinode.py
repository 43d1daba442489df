"""A self-managed SGLang endpoint across nodes (``container.multiNode``): one server per node, each started with
``--nnodes``, its ``--node-rank`` and the first node's ``--dist-init-addr``
(https://docs.sglang.ai/references/multi_node_deployment/multi_node.html). Only the first node (rank 0) answers
HTTP; the others join its process group.

Kubernetes objects: the endpoint's Deployment runs rank 0 (the Service selects only it), a Deployment of one pod
per other rank (``<endpoint>-rank-<k>``), and a headless Service ``<endpoint>-leader`` whose DNS name resolves to
the rank-0 pod's address, which every rank dials for the rendezvous (headless Services,
https://kubernetes.io/docs/concepts/services-networking/service/#headless-services). Each pod asks for the
node's EFA interfaces with FI_PROVIDER=efa, as the EKS EFA guide does for NCCL across nodes
(https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html). Parallelism: ``tensor`` runs --tp over every
GPU of every node; ``pipeline`` keeps --tp within a node and adds --pp-size nodes (one stage per node).
"""

from __future__ import annotations

import copy
from typing import Any

from launchpod.contracts.inference import CreateEndpointInput

RANK_LABEL = "launchpod.io/node-rank"
ENDPOINT_LABEL = "launchpod.io/endpoint"  # manifests.ENDPOINT_LABEL (manifests imports this module)
HOSTNAME = "kubernetes.io/hostname"
DIST_PORT = 20000  # the port of SGLang's multi-node example's --dist-init-addr
EFA = "vpc.amazonaws.com/efa"
MAX_NODES = 16  # MultiNodeSpec's bound: delete looks for this many rank Deployments


def rank_name(endpoint: str, rank: int) -> str:
    return f"{endpoint}-rank-{rank}"


def leader_name(endpoint: str) -> str:
    return f"{endpoint}-leader"


def _args(request: CreateEndpointInput, rank: int) -> list[str]:
    assert request.container is not None and request.container.multiNode is not None
    spec, worker = request.container.multiNode, request.container.worker
    parallel = (
        ["--tp", str(spec.nodes * worker.gpus)]
        if spec.parallelism == "tensor"
        else ["--tp", str(worker.gpus), "--pp-size", str(spec.nodes)]
    )
    leader = f"{leader_name(request.endpoint)}.{request.namespace}.svc.cluster.local:{DIST_PORT}"
    return [
        *worker.args,
        *parallel,
        *["--nnodes", str(spec.nodes), "--node-rank", str(rank), "--dist-init-addr", leader],
        *["--host", "0.0.0.0", "--port", str(worker.port)],
    ]


def _rank_pod(deployment: dict[str, Any], request: CreateEndpointInput, rank: int, efa: int) -> None:
    """Make ``deployment`` (a copy of the endpoint's) run ``rank``: its labels, selector, args, ports and EFA."""
    spec = deployment["spec"]
    spec["selector"]["matchLabels"][RANK_LABEL] = str(rank)
    spec["template"]["metadata"]["labels"][RANK_LABEL] = str(rank)
    # one rank per node: required anti-affinity against the endpoint's other pods on the same host
    spec["template"]["spec"]["affinity"] = {
        **spec["template"]["spec"]["affinity"],
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {ENDPOINT_LABEL: request.endpoint}}, "topologyKey": HOSTNAME}
            ]
        },
    }
    server = spec["template"]["spec"]["containers"][0]
    server["args"] = _args(request, rank)
    server["ports"] = [*server["ports"], {"name": "dist", "containerPort": DIST_PORT}]
    if efa:
        for amounts in (server["resources"]["requests"], server["resources"]["limits"]):
            amounts[EFA] = str(efa)
        server["env"] = [*server["env"], {"name": "FI_PROVIDER", "value": "efa"}]


def objects(
    request: CreateEndpointInput, deployment: dict[str, Any], service: dict[str, Any], efa: int, kind_label: str
) -> list[dict[str, Any]]:
    """Turn the endpoint's Deployment into rank 0 and its Service onto rank 0 (in place), and the objects the other
    ranks need: their Deployments and the leader's headless Service."""
    assert request.container is not None and request.container.multiNode is not None
    others = [copy.deepcopy(deployment) for _ in range(1, request.container.multiNode.nodes)]
    _rank_pod(deployment, request, 0, efa)
    service["spec"]["selector"] = {**service["spec"]["selector"], RANK_LABEL: "0"}
    made: list[dict[str, Any]] = []
    for rank, other in enumerate(others, start=1):
        _rank_pod(other, request, rank, efa)
        # part of the endpoint, as its prefill and router Deployments are: no endpoint-kind label, so the endpoint
        # is listed once (by its rank-0 Deployment)
        labels = {k: v for k, v in other["metadata"]["labels"].items() if k != kind_label}
        other["metadata"] = {
            "name": rank_name(request.endpoint, rank),
            "namespace": request.namespace,
            "labels": labels,
        }
        made.append(other)
    leader = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": leader_name(request.endpoint),
            "namespace": request.namespace,
            "labels": {k: v for k, v in deployment["metadata"]["labels"].items() if k != kind_label},
        },
        "spec": {
            "clusterIP": "None",
            "selector": dict(deployment["spec"]["selector"]["matchLabels"]),
            "ports": [{"name": "dist", "port": DIST_PORT, "targetPort": DIST_PORT, "protocol": "TCP"}],
        },
    }
    return [*made, leader]


def refs(endpoint: str, namespace: str) -> list[dict[str, Any]]:
    """What delete removes besides the endpoint's Deployment and Service (each skipped when absent)."""
    meta = {"namespace": namespace}
    return [
        {"apiVersion": "v1", "kind": "Service", "metadata": {**meta, "name": leader_name(endpoint)}},
        *(
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {**meta, "name": rank_name(endpoint, k)}}
            for k in range(1, MAX_NODES)
        ),
    ]


def nodes_of(primary: dict[str, Any]) -> int:
    """The nodes a container endpoint's Deployment spans (its server's --nnodes), 1 when it is on one node."""
    containers = (((primary.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or [{}]
    args = [str(a) for a in containers[0].get("args") or []]
    return int(args[args.index("--nnodes") + 1]) if "--nnodes" in args[:-1] else 1


def missing_ranks(primary: dict[str, Any], pods: list[dict[str, Any]], ready: Any) -> list[int]:
    """The ranks of a multi-node endpoint with no Ready pod (the rank-0 server answers only once all joined)."""
    nodes = nodes_of(primary)
    if nodes < 2:
        return []
    up = {(p["metadata"].get("labels") or {}).get(RANK_LABEL) for p in pods if ready(p)}
    return [k for k in range(nodes) if str(k) not in up]


def describe(request: CreateEndpointInput, obj: dict[str, Any]) -> str | None:
    """The plan's reason for one object of a multi-node endpoint, None for any other."""
    spec = request.container.multiNode if request.container else None
    if spec is None:
        return None
    name, worker = obj["metadata"]["name"], request.container.worker if request.container else None
    gpus = worker.gpus if worker else 0
    how = (
        f"tensor parallel over {spec.nodes * gpus} GPUs"
        if spec.parallelism == "tensor"
        else f"{spec.nodes} pipeline stages of {gpus} GPUs"
    )
    if obj["kind"] == "Service":
        return (
            "headless: its DNS name is the rank-0 pod's address, every rank's --dist-init-addr"
            if name == leader_name(request.endpoint)
            else "selects the rank-0 pod, the one that answers HTTP"
        )
    if obj["kind"] != "Deployment":
        return None
    rank = 0 if name == request.endpoint else int(name.rsplit("-", 1)[1])
    return f"node rank {rank} of {spec.nodes}: SGLang {how}, with the node's EFA interfaces"
