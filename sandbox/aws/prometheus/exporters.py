"""What the HyperPod observability add-on's exporters would remote-write, from what runs in the sandbox.

Each ``scrape`` (a Periodic at the add-on's ``scrapeInterval``, 30 simulated seconds by default, and at
least every half real second) looks at each cluster whose add-on ``amazon-sagemaker-hyperpod-observability``
EKS reports ACTIVE, and writes into the AMP workspace of its ``ampWorkspace.prometheusEndpoint``
(configurationValues as AWS's Terraform sample sets them). Metric names and labels are the ones AWS's
dashboards query ("HyperPod cluster metrics",
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-observability-cluster-metrics.html;
DCGM field names from NVIDIA's dcgm-exporter default counters,
https://github.com/NVIDIA/dcgm-exporter/blob/main/etc/default-counters.csv):

* per GPU of every node with ``nvidia.com/gpu`` capacity, labels ``Hostname`` (the Node's name), ``gpu``
  (0..n-1), ``modelName``, ``cluster_id``: ``DCGM_FI_DEV_GPU_UTIL`` (%), ``DCGM_FI_DEV_FB_USED`` and
  ``DCGM_FI_DEV_FB_FREE`` (MiB), ``DCGM_FI_DEV_POWER_USAGE`` (W), ``DCGM_FI_DEV_XID_ERRORS`` (the last XID,
  0 when none). The sandbox's model of a GPU: the first k GPUs of a node are held by its Running pods'
  ``nvidia.com/gpu`` limits; a held GPU of a training pod is busy (util 95-98 %, 85 % of its memory, 90 % of
  its board power); a held GPU of a model server is busy in proportion to its requests of the last 30 s and
  holds 90 % of its memory (vLLM's default ``--gpu-memory-utilization 0.9``); any other GPU idles at 0 %,
  0 MiB and its idle power. A node labelled with a fault reason ``XID<n>-...`` (the health agent,
  sandbox.aws.sagemaker.health_agent) reports XID n on GPU 0.
* per node with EFA interfaces: ``node_amazonefa_tx_bytes`` / ``node_amazonefa_recv_bytes`` counters,
  label ``instance`` (the Node's name here), growing while a training pod on the node belongs to a job with
  pods on other nodes (its collective traffic): 10 GB/s each way.
* per request a model server answers (sandbox.controllers.model_server calls ``served``), in the family of names
  its server exports. A pod the inference operator runs (its ``sagemaker.amazonaws.com/inference-endpoint``
  label, sandbox.controllers.inference): the operator's ``model_invocations_total`` and the histograms
  ``model_latency_milliseconds`` and ``model_ttfb_milliseconds`` ("Inference observability",
  https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-observability.html),
  labels ``resource_name`` (the endpoint), ``namespace``, ``pod_name``, ``model_name``, ``node_name``. A vLLM
  server without the operator (a container endpoint): vLLM's own ``vllm:request_success_total``
  (``finished_reason``), ``vllm:prompt_tokens_total``, ``vllm:generation_tokens_total`` and the histograms
  ``vllm:time_to_first_token_seconds`` and ``vllm:e2e_request_latency_seconds`` with vLLM's buckets, labels
  ``model_name`` and ``engine`` ("Production Metrics", https://docs.vllm.ai/en/latest/usage/metrics.html; vLLM
  v1's vllm/v1/metrics/loggers.py for the buckets) plus the scrape target's ``namespace`` and ``pod`` (the
  Prometheus Kubernetes service discovery's usual relabelling; how the add-on labels a self-managed server's
  samples is not documented by AWS). The emulated server's timing: time to first token 20 ms + 0.2 ms per
  prompt token, then 8 ms per completion token.

Not modelled: the add-on's pod identity and ``aps:RemoteWrite`` authorization, scrape gaps, Neuron monitor,
the training operator's and Kueue's metrics, the ``vllm:*`` names of the container an operator endpoint runs,
and SGLang's or LMI's own names (a self-managed server of theirs publishes nothing here).
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws import clock
from sandbox.aws.prometheus.tsdb import Tsdb, key_of, tsdb
from sandbox.aws.state import STATE

log = logging.getLogger("sandbox.aws.prometheus")

ADDON = "amazon-sagemaker-hyperpod-observability"
SCRAPE_SIM_SECONDS = 30
GPU_NAMES = {
    "DCGM_FI_DEV_GPU_UTIL",
    "DCGM_FI_DEV_FB_USED",
    "DCGM_FI_DEV_FB_FREE",
    "DCGM_FI_DEV_POWER_USAGE",
    "DCGM_FI_DEV_XID_ERRORS",
}
ENDPOINT_LABEL = "launchpod.io/endpoint"
OPERATOR_ENDPOINT_LABELS = ("app", "sagemaker.amazonaws.com/endpoint-name")
LATENCY_BUCKETS = (5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000)
OPERATOR_POD_LABEL = "sagemaker.amazonaws.com/inference-endpoint"
VLLM_IMAGES = ("vllm/vllm-openai", "lmcache/vllm-openai")
# vLLM's histogram buckets in seconds (vllm/v1/metrics/loggers.py)
VLLM_TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0)
VLLM_LATENCY_BUCKETS = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0)
EFA_BYTES_PER_SECOND = 10e9
# (GPU model, framebuffer MiB per GPU, idle W, board power W) by instance family: DescribeInstanceTypes'
# GpuInfo (name, MemoryInfo.SizeInMiB) and NVIDIA's board power for the part.
_GPUS: dict[str, tuple[str, int, float, float]] = {
    "p5": ("NVIDIA H100 80GB HBM3", 81559, 70.0, 700.0),
    "p5e": ("NVIDIA H200", 143771, 75.0, 700.0),
    "p5en": ("NVIDIA H200", 143771, 75.0, 700.0),
    "p4d": ("NVIDIA A100-SXM4-40GB", 40960, 55.0, 400.0),
    "p4de": ("NVIDIA A100-SXM4-80GB", 81920, 60.0, 400.0),
    "g5": ("NVIDIA A10G", 22731, 25.0, 300.0),
    "g6": ("NVIDIA L4", 23034, 16.0, 72.0),
    "g6e": ("NVIDIA L40S", 46068, 35.0, 350.0),
}
_DEFAULT_GPU = ("NVIDIA GPU", 81920, 60.0, 500.0)
_XID = re.compile(r"^XID(\d+)")


@dataclass
class Exporters:
    """Each cluster's workspace as of the last scrape, the requests each model server pod answered lately,
    and the last scrape's time (for the EFA counters)."""

    workspaces: dict[str, str] = field(default_factory=dict)
    requests: dict[tuple[str, str, str], deque[float]] = field(default_factory=dict)
    last_scrape: dict[str, float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def exporters() -> Exporters:
    return STATE.of(Exporters)


def workspace_of(configuration_values: str | None) -> str | None:
    """The workspace id in the add-on's ampWorkspace.prometheusEndpoint (.../workspaces/ws-.../)."""
    try:
        found = json.loads(configuration_values or "{}")
    except ValueError:
        return None
    endpoint = str(((found or {}).get("ampWorkspace") or {}).get("prometheusEndpoint") or "")
    m = re.search(r"/workspaces/(ws-[^/]+)", endpoint)
    return m.group(1) if m else None


def _gpu_model(instance_type: str) -> tuple[str, int, float, float]:
    family = instance_type.removeprefix("ml.").split(".")[0]
    return _GPUS.get(family, _DEFAULT_GPU)


def _gpus_of(pod: dict[str, Any]) -> int:
    total = 0
    for container in (pod.get("spec") or {}).get("containers") or []:
        limits = (container.get("resources") or {}).get("limits") or {}
        total += int(str(limits.get("nvidia.com/gpu") or 0) or 0)
    return total


def _serves(pod: dict[str, Any]) -> bool:
    from sandbox.controllers.model_server import _serves_openai

    return any(_serves_openai(str(c.get("image", ""))) for c in (pod.get("spec") or {}).get("containers") or [])


def _job_of(pod: dict[str, Any]) -> str | None:
    """The training job (or other owner) a GPU pod belongs to; None for a Deployment's or DaemonSet's pod."""
    owners = (pod.get("metadata") or {}).get("ownerReferences") or []
    return next(
        (f"{o.get('kind')}/{o.get('name')}" for o in owners if o.get("kind") not in ("ReplicaSet", "DaemonSet")), None
    )


def _recent(state: Exporters, cluster: str, namespace: str, pod: str, now: float, window: float = 30.0) -> float:
    with state.lock:
        times = state.requests.get((cluster, namespace, pod))
        if not times:
            return 0.0
        while times and times[0] < now - window:
            times.popleft()
        return len(times) / window


def _node_samples(
    cluster: str, node: dict[str, Any], pods: list[dict[str, Any]], spanning: set[str], state: Exporters, now: float
) -> tuple[list[tuple[dict[str, str], float]], bool]:
    meta = node.get("metadata") or {}
    name, labels = meta.get("name", ""), meta.get("labels") or {}
    gpus = int(str(((node.get("status") or {}).get("capacity") or {}).get("nvidia.com/gpu") or 0) or 0)
    model, fb_total, idle_w, board_w = _gpu_model(labels.get("node.kubernetes.io/instance-type", ""))
    held: list[tuple[str, float]] = []  # per held GPU: "train" or "serve", and the serving load
    efa_busy = False
    for pod in pods:
        if (pod.get("spec") or {}).get("nodeName") != name or (pod.get("status") or {}).get("phase") != "Running":
            continue
        count = _gpus_of(pod)
        pod_meta = pod.get("metadata") or {}
        if _serves(pod):
            load = _recent(state, cluster, pod_meta.get("namespace", ""), pod_meta.get("name", ""), now)
            held += [("serve", min(100.0, 40.0 * load))] * count
        elif count:
            held += [("train", 0.0)] * count
            efa_busy = efa_busy or (_job_of(pod) in spanning)
    xid = _XID.match(labels.get("sagemaker.amazonaws.com/fault-reason", ""))
    out: list[tuple[dict[str, str], float]] = []
    for gpu in range(gpus):
        kind, load = held[gpu] if gpu < len(held) else ("idle", 0.0)
        if kind == "train":
            util, used, watts = 95.0 + gpu % 4, 0.85 * fb_total, 0.9 * board_w
        elif kind == "serve":
            util, used, watts = load, 0.9 * fb_total, idle_w + (board_w - idle_w) * load / 100
        else:
            util, used, watts = 0.0, 0.0, idle_w
        base = {"Hostname": name, "gpu": str(gpu), "modelName": model, "cluster_id": cluster}
        out += [
            ({**base, "__name__": "DCGM_FI_DEV_GPU_UTIL"}, util),
            ({**base, "__name__": "DCGM_FI_DEV_FB_USED"}, round(used)),
            ({**base, "__name__": "DCGM_FI_DEV_FB_FREE"}, round(fb_total - used)),
            ({**base, "__name__": "DCGM_FI_DEV_POWER_USAGE"}, round(watts, 1)),
            ({**base, "__name__": "DCGM_FI_DEV_XID_ERRORS"}, float(xid.group(1)) if xid and gpu == 0 else 0.0),
        ]
    return out, efa_busy


def _active_workspaces(fleet: Any) -> dict[str, str]:
    from sandbox.aws.eks import find_cluster

    out = {}
    for cluster in fleet.names():
        found = find_cluster(cluster)
        addon = found.addons.get(ADDON) if found is not None else None
        if addon is None or addon.status not in ("ACTIVE", "DEGRADED", "UPDATING"):
            continue
        workspace = workspace_of(addon.configuration_values)
        if workspace:
            out[cluster] = workspace
    return out


def _scraped(emulator: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What an exporter reads of a cluster's Nodes and running Pods, taken on the emulator's loop: small new dicts
    built from the stored objects, not copies of them (a scrape every 30 simulated seconds of every cluster
    spent most of its time copying every Node and Pod whole)."""
    nodes = []
    for node in emulator.list_objects("v1/nodes", copied=False):
        meta = node.get("metadata") or {}
        nodes.append(
            {
                "metadata": {"name": meta.get("name", ""), "labels": dict(meta.get("labels") or {})},
                "status": {"capacity": dict((node.get("status") or {}).get("capacity") or {})},
            }
        )
    pods = []
    for pod in emulator.list_objects("v1/pods", copied=False):
        spec, meta = pod.get("spec") or {}, pod.get("metadata") or {}
        if not spec.get("nodeName") or (pod.get("status") or {}).get("phase") != "Running":
            continue  # every reader below skips a Pod that does not run on a node
        pods.append(
            {
                "metadata": {
                    "name": meta.get("name", ""),
                    "namespace": meta.get("namespace", ""),
                    "labels": dict(meta.get("labels") or {}),
                    "ownerReferences": [dict(o) for o in meta.get("ownerReferences") or []],
                },
                "spec": {
                    "nodeName": spec["nodeName"],
                    "containers": [
                        {
                            "image": c.get("image", ""),
                            "resources": {"limits": dict((c.get("resources") or {}).get("limits") or {})},
                        }
                        for c in spec.get("containers") or []
                    ],
                },
                "status": {"phase": "Running"},
            }
        )
    return nodes, pods


def scrape(fleet: Any, now: float | None = None) -> None:
    """One scrape of every cluster with the add-on: DCGM and EFA series from its Nodes and Pods."""
    state, db = exporters(), tsdb()
    now = time.time() if now is None else now
    active = _active_workspaces(fleet)
    with state.lock:
        state.workspaces = dict(active)
    for cluster, workspace in active.items():
        try:
            nodes, pods = fleet.call(cluster, _scraped, timeout=5)
        except (KeyError, TimeoutError):
            continue
        nodes_of_job: dict[str, set[str]] = {}
        for pod in pods:
            job, node = _job_of(pod), (pod.get("spec") or {}).get("nodeName")
            if job and node and _gpus_of(pod) and (pod.get("status") or {}).get("phase") == "Running":
                nodes_of_job.setdefault(job, set()).add(node)
        spanning = {job for job, where in nodes_of_job.items() if len(where) > 1}
        elapsed = now - state.last_scrape.get(cluster, now)
        state.last_scrape[cluster] = now
        live = []
        for node in nodes:
            samples, efa_busy = _node_samples(cluster, node, pods, spanning, state, now)
            for labels, value in samples:
                db.gauge(workspace, labels, now, value)
                live.append(key_of(labels))
            efa = int(str(((node.get("status") or {}).get("capacity") or {}).get("vpc.amazonaws.com/efa") or 0) or 0)
            if efa:
                for name in ("node_amazonefa_tx_bytes", "node_amazonefa_recv_bytes"):
                    labels = {"__name__": name, "instance": node["metadata"]["name"], "cluster_id": cluster}
                    db.count(workspace, labels, now, EFA_BYTES_PER_SECOND * elapsed if efa_busy else 0.0)
        db.stale(workspace, live, GPU_NAMES, now)


def _endpoint_of(pod: dict[str, Any]) -> str:
    labels = (pod.get("metadata") or {}).get("labels") or {}
    for key in (ENDPOINT_LABEL, *OPERATOR_ENDPOINT_LABELS):
        if labels.get(key):
            return str(labels[key])
    return str((pod.get("metadata") or {}).get("name", ""))


def _histogram(
    db: Tsdb, workspace: str, base: dict[str, str], name: str, value: float, buckets: tuple[float, ...], now: float
) -> None:
    """One observation of a Prometheus histogram: its cumulative ``_bucket{le}`` counters, ``_sum`` and ``_count``."""
    for bound in [*(str(b) for b in buckets), "+Inf"]:
        inside = bound == "+Inf" or value <= float(bound)
        db.count(workspace, {**base, "__name__": f"{name}_bucket", "le": bound}, now, 1.0 if inside else 0.0)
    db.count(workspace, {**base, "__name__": f"{name}_sum"}, now, value)
    db.count(workspace, {**base, "__name__": f"{name}_count"}, now, 1.0)


def _vllm(pod: dict[str, Any]) -> bool:
    containers = (pod.get("spec") or {}).get("containers") or []
    return any(str(c.get("image", "")).split(":")[0].endswith(VLLM_IMAGES) for c in containers)


def served(cluster: str, pod: dict[str, Any], model: str, prompt_tokens: int, completion_tokens: int) -> None:
    """A model server pod answered one request: the inference metrics of that request in its server's family
    (the operator's, or vLLM's own), when the cluster's observability add-on writes to a workspace."""
    state, now = exporters(), time.time()
    meta = pod.get("metadata") or {}
    with state.lock:
        state.requests.setdefault((cluster, meta.get("namespace", ""), meta.get("name", "")), deque()).append(now)
        workspace = state.workspaces.get(cluster)
    if workspace is None:
        return
    ttfb = 20.0 + 0.2 * prompt_tokens
    latency = ttfb + 8.0 * completion_tokens
    db: Tsdb = tsdb()
    if OPERATOR_POD_LABEL in (meta.get("labels") or {}):
        base = {
            "resource_name": _endpoint_of(pod),
            "namespace": meta.get("namespace", ""),
            "pod_name": meta.get("name", ""),
            "model_name": model,
            "node_name": (pod.get("spec") or {}).get("nodeName") or "",
            "cluster_id": cluster,
        }
        db.count(workspace, {**base, "__name__": "model_invocations_total"}, now, 1.0)
        _histogram(db, workspace, base, "model_latency_milliseconds", latency, LATENCY_BUCKETS, now)
        _histogram(db, workspace, base, "model_ttfb_milliseconds", ttfb, LATENCY_BUCKETS, now)
        return
    if not _vllm(pod):
        return
    base = {"model_name": model, "engine": "0", "namespace": meta.get("namespace", ""), "pod": meta.get("name", "")}
    db.count(workspace, {**base, "__name__": "vllm:request_success_total", "finished_reason": "stop"}, now, 1.0)
    db.count(workspace, {**base, "__name__": "vllm:prompt_tokens_total"}, now, float(prompt_tokens))
    db.count(workspace, {**base, "__name__": "vllm:generation_tokens_total"}, now, float(completion_tokens))
    _histogram(db, workspace, base, "vllm:time_to_first_token_seconds", ttfb / 1000, VLLM_TTFT_BUCKETS, now)
    _histogram(db, workspace, base, "vllm:e2e_request_latency_seconds", latency / 1000, VLLM_LATENCY_BUCKETS, now)


def scrape_interval() -> float:
    """Real seconds between scrapes: the add-on's 30 simulated seconds, at most half a real second."""
    return min(0.5, max(0.05, clock.real_seconds(SCRAPE_SIM_SECONDS)))


def exporter_loop(fleet: Any) -> Any:
    from sandbox.controllers.periodic import Periodic

    return Periodic("hyperpod-observability-exporters", scrape_interval(), lambda: scrape(fleet))
