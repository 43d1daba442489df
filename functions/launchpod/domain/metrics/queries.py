"""The workspace a cluster's metrics are in, and the PromQL Launchpod sends it.

The HyperPod observability add-on (``amazon-sagemaker-hyperpod-observability``) remote-writes into the Amazon
Managed Prometheus workspace of its ``configurationValues.ampWorkspace.prometheusEndpoint`` (the key AWS's
Terraform sample and the HyperPod CLI use; "Amazon SageMaker HyperPod observability",
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-observability-addon.html). The metric names
are the add-on's: NVIDIA DCGM's per GPU (label ``Hostname`` = the Kubernetes Node, ``gpu``), the EFA
exporter's per node (label ``instance``), and the inference operator's per endpoint (labels ``namespace``,
``resource_name``) ("HyperPod cluster metrics", .../sagemaker-hyperpod-observability-cluster-metrics.html;
"Inference observability", .../sagemaker-hyperpod-model-deployment-observability.html).

Every query here is one the sandbox's workspace answers (sandbox.aws.prometheus.promql lists the subset);
add one here and there together.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

ADDON = "amazon-sagemaker-hyperpod-observability"
# What a person does about it, in the console's words (the add-on's configuration key is for the docstring above).
ENABLE_HINT = (
    "install the Amazon SageMaker HyperPod observability add-on (amazon-sagemaker-hyperpod-observability) on it,"
    " with an Amazon Managed Prometheus workspace to write to, from the EKS console's Add-ons tab of the cluster;"
    " the charts fill in once it sends metrics"
)
IDLE_UTILIZATION = 1.0  # percent: a GPU under this is idle


@dataclass(frozen=True)
class Query:
    metric: str  # the name Launchpod answers it under
    unit: str
    promql: str


def workspace(addons: dict[str, dict[str, Any]]) -> str | None:
    """The prometheusEndpoint the add-on writes to, or None (no add-on, being removed, or no workspace set)."""
    addon = addons.get(ADDON)
    if addon is None or addon.get("status") in ("DELETING", "CREATE_FAILED"):
        return None
    try:
        values = json.loads(addon.get("configurationValues") or "{}")
    except ValueError:
        return None
    endpoint = (
        ((values or {}).get("ampWorkspace") or {}).get("prometheusEndpoint") if isinstance(values, dict) else None
    )
    return str(endpoint) if endpoint else None


def _quoted(value: str) -> str:
    return json.dumps(value)


def _hosts(nodes: list[str]) -> str:
    """A Hostname=~ matcher for these Node names (RFC 1123: only dots need escaping in the RE2 pattern)."""
    return _quoted("|".join(n.replace(".", "\\.") for n in sorted(nodes)))


def rate_window(step: float) -> str:
    """The range of rate(): four steps, at least two of the add-on's 30 s scrapes (Prometheus advises a range of
    at least four scrape intervals; a minute keeps a chart's step of seconds responsive)."""
    return f"{max(60, int(4 * step))}s"


def node(name: str, step: float) -> list[Query]:
    host = f"Hostname={_quoted(name)}"
    window = rate_window(step)
    return [
        Query("gpuUtilization", "percent", f"avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL{{{host}}})"),
        Query("gpuMemoryUsed", "MiB", f"sum by (Hostname) (DCGM_FI_DEV_FB_USED{{{host}}})"),
        Query("gpuPower", "W", f"sum by (Hostname) (DCGM_FI_DEV_POWER_USAGE{{{host}}})"),
        Query("xidErrors", "xid", f"max by (Hostname) (DCGM_FI_DEV_XID_ERRORS{{{host}}})"),
        Query(
            "efaTransmit",
            "bytes/s",
            f"sum by (instance) (rate(node_amazonefa_tx_bytes{{instance={_quoted(name)}}}[{window}]))",
        ),
        Query(
            "efaReceive",
            "bytes/s",
            f"sum by (instance) (rate(node_amazonefa_recv_bytes{{instance={_quoted(name)}}}[{window}]))",
        ),
    ]


def job(nodes: list[str]) -> list[Query]:
    """The GPUs of the nodes the job's pods run on, per node (HyperPod training takes whole nodes)."""
    hosts = f"Hostname=~{_hosts(nodes)}"
    return [
        Query("gpuUtilization", "percent", f"avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL{{{hosts}}})"),
        Query("gpuMemoryUsed", "MiB", f"sum by (Hostname) (DCGM_FI_DEV_FB_USED{{{hosts}}})"),
    ]


def endpoint(namespace: str, name: str, step: float) -> list[Query]:
    match = f"namespace={_quoted(namespace)},resource_name={_quoted(name)}"
    window = rate_window(step)

    def quantile(phi: float, histogram: str) -> str:
        return f"histogram_quantile({phi}, sum by (le) (rate({histogram}_bucket{{{match}}}[{window}])))"

    return [
        Query("requestRate", "requests/s", f"sum(rate(model_invocations_total{{{match}}}[{window}]))"),
        Query("latencyP50", "ms", quantile(0.5, "model_latency_milliseconds")),
        Query("latencyP95", "ms", quantile(0.95, "model_latency_milliseconds")),
        Query("timeToFirstTokenP50", "ms", quantile(0.5, "model_ttfb_milliseconds")),
    ]


def node_utilization(nodes: list[str]) -> Query:
    """Each node's busiest GPU: a node is idle while this stays under IDLE_UTILIZATION."""
    return Query(
        "gpuUtilizationMax", "percent", f"max by (Hostname) (DCGM_FI_DEV_GPU_UTIL{{Hostname=~{_hosts(nodes)}}})"
    )


def cluster(nodes: list[str]) -> list[Query]:
    hosts = f"Hostname=~{_hosts(nodes)}"
    return [
        Query("gpuUtilization", "percent", f"avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL{{{hosts}}})"),
        Query("idleGpus", "GPUs", f"count(DCGM_FI_DEV_GPU_UTIL{{{hosts}}} < {IDLE_UTILIZATION:g})"),
    ]
