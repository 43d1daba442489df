"""Injecting node faults into the sandbox's HyperPod (a sandbox control): ``inject`` faults a Running node
now, ``describe`` and ``clear`` read and forget what was injected. What a fault does, and how HyperPod's
health-monitoring agent reports and repairs it, is ``sandbox.aws.sagemaker.health_agent``."""

from __future__ import annotations

from typing import Any

from sandbox.aws.sagemaker.common import LOCK, NODE_PREFIX
from sandbox.aws.sagemaker.durations import sim_now
from sandbox.aws.sagemaker.health_agent import FAULT_TYPE_LABEL as FAULT_TYPE_LABEL
from sandbox.aws.sagemaker.health_agent import (
    FIXED_BY,
    KINDS,
    RECORDS_LOCK,
    ActiveFault,
    agent_on,
    fault_records,
    report,
)
from sandbox.aws.sagemaker.models import HyperPodCluster
from sandbox.aws.sagemaker.node_operations import batch_node_operation


def inject(cluster_name: str, node_id: str, kind: str, fixed_by: str | None = None) -> dict[str, Any]:
    """Fault the node ``node_id`` of ``cluster_name`` now; raises ValueError saying what is wrong."""
    from moto.sagemaker.models import sagemaker_backends

    if kind not in KINDS:
        raise ValueError(f"kind is one of {', '.join(KINDS)}")
    spec = KINDS[kind]
    fixed = fixed_by or spec.fixed_by
    if fixed not in FIXED_BY:
        raise ValueError(f"fixedBy is one of {', '.join(FIXED_BY)}")
    with LOCK:
        for account in list(sagemaker_backends.keys()):
            for region in list(sagemaker_backends[account].keys()):
                backend = sagemaker_backends[account][region]
                cluster = backend.clusters.get(cluster_name)
                if not isinstance(cluster, HyperPodCluster):
                    continue
                node = cluster.nodes.get(node_id)
                if node is None:
                    raise ValueError(f"cluster {cluster_name} has no node {node_id}")
                if node.state()[0] != "Running":
                    raise ValueError(f"node {node_id} is {node.state()[0]}; faults are injected into Running nodes")
                seen = agent_on(cluster, node_id)
                fault = ActiveFault(kind, fixed, node.started, sim_now(), node.group, cluster.arn, seen)
                with RECORDS_LOCK:
                    fault_records().faults[node_id] = fault
                    fault_records().injected.append(
                        {"cluster": cluster_name, "nodeId": node_id, "kind": kind, "fixedBy": fixed}
                    )
                answer: dict[str, Any] = {
                    "cluster": cluster_name,
                    "nodeId": node_id,
                    "kind": kind,
                    "fixedBy": fixed,
                    "detected": seen,
                }
                if seen:
                    action = report(cluster, node, spec)
                    if action:  # HyperPod repairs the node itself, as BatchReboot/ReplaceClusterNodes do
                        batch_node_operation(backend, cluster_name, [node_id], action)
                else:
                    answer["why"] = (
                        f"No health-monitoring agent runs on {NODE_PREFIX}{node_id}: nothing reports the fault "
                        "until it does (install HyperPod's dependencies)."
                    )
                return answer
    raise ValueError(f"no HyperPod cluster {cluster_name}")


def describe() -> dict[str, Any]:
    with RECORDS_LOCK:
        return {
            "active": {iid: {"kind": f.kind, "fixedBy": f.fixed_by} for iid, f in fault_records().faults.items()},
            "injected": len(fault_records().injected),
        }


def clear() -> None:
    with RECORDS_LOCK:
        fault_records().faults.clear()
        fault_records().injected.clear()
