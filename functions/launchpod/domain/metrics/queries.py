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

from launchpod.domain import addons as addon_health
from launchpod.domain.clusters.eks_addon import EksAddon

ADDON = "amazon-sagemaker-hyperpod-observability"


def enable_hint(cluster: str) -> str:
    """What to turn on when a cluster has no workspace to read, in words a person acts on (the call is the
    error's next_step detail): the HyperPod observability feature."""
    return (
        f"turn on HyperPod observability in {cluster}'s Features (it installs the add-on"
        " amazon-sagemaker-hyperpod-observability with an Amazon Managed Prometheus workspace to write to); the"
        " charts fill in once it sends metrics"
    )


IDLE_UTILIZATION = 1.0  # percent: a GPU under this is idle


@dataclass(frozen=True)
class Query:
    metric: str  # the name Launchpod answers it under
    unit: str
    promql: str


def workspace(addons: dict[str, EksAddon]) -> str | None:
    """The prometheusEndpoint the add-on writes to, or None (no add-on, being removed, or no workspace set)."""
    addon = addons.get(ADDON)
    if addon is None or not addon_health.in_use(addon):
        return None
    endpoint = (addon.configuration.get("ampWorkspace") or {}).get("prometheusEndpoint")
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


@dataclass(frozen=True)
class _ServerMetrics:
    """The names one family of inference servers exports its answered requests and latencies under."""

    requests: str  # counter of requests answered
    latency: str  # histogram of a request's latency
    first_token: str  # histogram of the time to the first token
    to_ms: str  # what turns the histograms' unit into milliseconds
    tokens: str | None = None  # counter of tokens generated


_OPERATOR = _ServerMetrics("model_invocations_total", "model_latency_milliseconds", "model_ttfb_milliseconds", "")
_VLLM = _ServerMetrics(
    "vllm:request_success_total",
    "vllm:e2e_request_latency_seconds",
    "vllm:time_to_first_token_seconds",
    " * 1000",
    "vllm:generation_tokens_total",
)


OPERATOR_KINDS = ("managed", "jumpstart")  # endpoints the HyperPod inference operator runs


def endpoint(namespace: str, name: str, step: float, kind: str = "managed") -> list[Query]:
    """An endpoint's request rate, latency and time to first token, in the family of names its server exports.

    - Managed and JumpStart endpoints: the inference operator's ``model_invocations_total`` and histograms
      ``model_latency_milliseconds`` and ``model_ttfb_milliseconds``, labelled with the endpoint's
      ``namespace`` and ``resource_name`` ("Inference observability",
      https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-observability.html).
      The operator names no token metric.
    - Container endpoints (a vLLM server Launchpod deploys itself, no operator): vLLM's own ``vllm:*`` names from
      its ``/metrics`` ("Production Metrics", https://docs.vllm.ai/en/latest/usage/metrics.html; "Metrics",
      vllm docs/design/metrics.md): ``vllm:request_success_total``, the histograms
      ``vllm:e2e_request_latency_seconds`` and ``vllm:time_to_first_token_seconds`` (seconds: answered in ms
      here) and ``vllm:generation_tokens_total``, for tokens per second. AWS does not document how the add-on
      labels a self-managed server's samples; Launchpod matches the Prometheus Kubernetes target labels
      ``namespace`` and ``pod`` (its Deployment's pods, ``<endpoint>-<hash>-<id>``), an assumption to check on
      AWS (unverified). SGLang's ``sglang:*`` names are not read yet.
    """
    window = rate_window(step)
    if kind in OPERATOR_KINDS:
        server, match = _OPERATOR, f"namespace={_quoted(namespace)},resource_name={_quoted(name)}"
    else:
        escaped = name.replace(".", "\\.")  # RFC 1123: only dots need escaping in the RE2 pattern
        pods = _quoted(f"{escaped}-[a-z0-9]+-[a-z0-9]+")
        server, match = _VLLM, f"namespace={_quoted(namespace)},pod=~{pods}"

    def rate(counter: str) -> str:
        return f"sum(rate({counter}{{{match}}}[{window}]))"

    def ms(phi: float, histogram: str) -> str:
        return f"histogram_quantile({phi}, sum by (le) (rate({histogram}_bucket{{{match}}}[{window}]))){server.to_ms}"

    queries = [
        Query("requestRate", "requests/s", rate(server.requests)),
        Query("latencyP50", "ms", ms(0.5, server.latency)),
        Query("latencyP95", "ms", ms(0.95, server.latency)),
        Query("timeToFirstTokenP50", "ms", ms(0.5, server.first_token)),
    ]
    if server.tokens:
        queries.append(Query("tokensPerSecond", "tokens/s", rate(server.tokens)))
    return queries


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
