"""Where HyperPod's health-monitoring agent (HMA) runs, as the sandbox's workload controller last saw it.

AWS requires HyperPod's dependencies on the EKS cluster before CreateCluster ("This Helm installation step
is required ... Failure to configure your Amazon EKS cluster using the provided Helm chart might result in
the SageMaker HyperPod cluster not functioning correctly", developer guide, "Installing packages on the
Amazon EKS cluster using Helm"); the chart's health-monitoring agent is the DaemonSet that watches each
node's GPUs and EFA and reports what it finds. What follows in the sandbox when it does not run on a node
(``health_agent``, ``health_checks``):

* a GPU or EFA fault is not detected: no health labels or taints, no node-health event, no repair;
  the agent reports it when it starts on that node later;
* an unresponsive kubelet still turns the Node NotReady (that is Kubernetes' node lifecycle, not the agent);
* deep health checks started with StartClusterHealthCheck fail on that instance, saying the agent is
  missing.

The workload controller (sandbox.workloads) reports, on each pass over a cluster, the nodes where a Pod of a
DaemonSet running the agent's image is Ready.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from sandbox.aws.state import STATE

# The agent's repository in AWS's registries (official chart, health-monitoring-agent/templates/_helpers.tpl).
HMA_REPOSITORY = "hyperpod-health-monitoring-agent"

_lock = threading.Lock()


@dataclass
class AgentsState:
    """Where the health-monitoring agent runs, as the workload controller last reported."""

    running: dict[str, frozenset[str]] = field(
        default_factory=dict
    )  # EKS cluster name -> Kubernetes node names with a Ready agent


def _state() -> AgentsState:
    return STATE.of(AgentsState)


def is_agent_image(image: str) -> bool:
    path = image.split("@", 1)[0].rsplit(":", 1)[0] if "/" in image else image
    return path.rsplit("/", 1)[-1] == HMA_REPOSITORY


def report(eks_cluster: str, nodes: Iterable[str]) -> None:
    with _lock:
        _state().running[eks_cluster] = frozenset(nodes)


def runs_on(eks_cluster: str | None, node_name: str) -> bool:
    with _lock:
        return bool(eks_cluster) and node_name in _state().running.get(eks_cluster or "", frozenset())


def forget(eks_cluster: str | None = None) -> None:
    with _lock:
        if eks_cluster is None:
            _state().running.clear()
        else:
            _state().running.pop(eks_cluster, None)
