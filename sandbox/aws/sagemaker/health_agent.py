"""HyperPod's health-monitoring agent (HMA) and the node faults it finds: a GPU error, EFA down or an
unresponsive node (injected with ``sandbox.aws.sagemaker.node_faults``).

What AWS documents, and the sandbox does:
* The agent labels the Kubernetes Node ``sagemaker.amazonaws.com/node-health-status``
  ``UnschedulablePendingReboot`` or ``UnschedulablePendingReplacement``, with fault-type and fault-reason
  labels, and the node takes no new work (developer guide, "Resilience-related Kubernetes labels by
  SageMaker HyperPod"). The sandbox adds the matching NoSchedule taint and cordons the Node.
* HyperPod puts a "SageMaker HyperPod Cluster Node Health Event" on EventBridge with ``ClusterName``,
  ``ClusterArn``, ``InstanceId``, ``Tags`` and ``HealthSummary`` {``HealthStatus``, ``HealthStatusReason``
  ("HyperPod Health Monitoring Agent (HMA) has detected fault type <type> on this node and is
  unhealthy."), ``RepairAction``, ``Recommendation``} (developer guide, "EventBridge events emitted by
  SageMaker HyperPod"); ``RepairAction`` is ``None`` when node recovery is off. Fault events come in
  pairs, so the sandbox sends each unhealthy event twice; a node that recovers gets one Healthy event.
* With ``NodeRecovery: Automatic`` HyperPod repairs the node itself (reboot or replace, as the fault
  asks); with ``None`` it waits for BatchRebootClusterNodes / BatchReplaceClusterNodes.

What the fault dictates (``fixed_by``): ``reboot`` clears it at the end of a reboot; ``replace`` survives
reboots (the node reports the fault again once it is back) and goes with the old hardware; ``nothing``
also dooms the replacement instance, which fails at the end of its launch (HyperPod does not retry a
failed replacement). Only an agent running on the node reports a fault (``node_agents``): without
one the fault is there, unseen, until the agent starts on that node. Fault types ``NvidiaGPUUnhealthy`` and
``NvidiaErrorTerminate`` are the HMA's own
names (AWS's examples); ``EfaHealth`` and ``KubeletUnresponsive`` and the reasons are ours.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws import eventbridge
from sandbox.aws.sagemaker import node_agents
from sandbox.aws.sagemaker.common import HEALTH_LABEL, NODE_PREFIX
from sandbox.aws.sagemaker.models import HyperPodCluster, HyperPodNode, Phase
from sandbox.aws.sagemaker.nodes import operate_nodes
from sandbox.aws.state import STATE

NODE_HEALTH = "SageMaker HyperPod Cluster Node Health Event"
FAULT_TYPE_LABEL = "sagemaker.amazonaws.com/fault-type"
FAULT_REASON_LABEL = "sagemaker.amazonaws.com/fault-reason"


@dataclass(frozen=True)
class FaultSpec:
    fault_type: str
    reason: str  # a label value: the detail behind the type
    health: str  # the node-health-status label HMA sets
    repair: str  # what HyperPod does when node recovery is Automatic
    fixed_by: str
    recommendation: str
    ready: bool = True


KINDS: dict[str, FaultSpec] = {
    "gpu": FaultSpec(
        "NvidiaGPUUnhealthy",
        "XID79-GPUFallenOffBus",
        "UnschedulablePendingReplacement",
        "Replace",
        "replace",
        "Please Replace the Faulty Node.",
    ),
    "efa": FaultSpec(
        "EfaHealth", "EfaLinkDown", "UnschedulablePendingReboot", "Reboot", "reboot", "Please Reboot the Faulty Node."
    ),
    "unresponsive": FaultSpec(
        "KubeletUnresponsive",
        "NodeStatusNotPosted",
        "UnschedulablePendingReboot",
        "Reboot",
        "reboot",
        "Please Reboot the Faulty Node.",
        ready=False,
    ),
}
FIXED_BY = ("reboot", "replace", "nothing")


@dataclass
class ActiveFault:
    kind: str
    fixed_by: str
    boot: float  # the node's boot (HyperPodNode.started) the fault belongs to
    since: float  # simulated time it was injected (a replacement launched after it is its successor)
    group: str
    cluster_arn: str
    reported: bool = False  # the health-monitoring agent has seen it (``node_agents``)


@dataclass
class NodeFaultsState:
    """The node faults injected and still active."""

    faults: dict[str, ActiveFault] = field(default_factory=dict)  # instance id -> fault
    injected: list[dict[str, Any]] = field(default_factory=list)  # every fault injected, for describe


def fault_records() -> NodeFaultsState:
    """The node faults injected and still active (call under ``RECORDS_LOCK``)."""
    return STATE.of(NodeFaultsState)


RECORDS_LOCK = threading.Lock()


def _put(cluster: HyperPodCluster, node_id: str, status: str, spec: FaultSpec | None, times: int) -> None:
    summary = (
        {
            "HealthStatus": "Unhealthy",
            "HealthStatusReason": f"HyperPod Health Monitoring Agent (HMA) has detected fault type {spec.fault_type}"
            " on this node and is unhealthy.",
            "RepairAction": spec.repair if cluster.node_recovery == "Automatic" else "None",
            "Recommendation": spec.recommendation,
        }
        if spec
        else {
            "HealthStatus": "Healthy",
            "HealthStatusReason": "HyperPod Health Monitoring Agent (HMA) reports the node is healthy.",
            "RepairAction": "None",
            "Recommendation": "None",
        }
    )
    detail = {
        "ClusterName": cluster.cluster_name,
        "ClusterArn": cluster.arn,
        "InstanceId": node_id,
        "Tags": {},
        "HealthSummary": summary,
    }
    for _ in range(times):
        eventbridge.put_event(
            cluster.account_id, cluster.region_name, "aws.sagemaker", NODE_HEALTH, detail, [cluster.arn]
        )


def report(cluster: HyperPodCluster, node: HyperPodNode, spec: FaultSpec) -> str | None:
    """The agent reports ``spec`` on ``node``: a cluster event and the node-health events; returns the repair
    HyperPod then makes (``reboot`` or ``replace``, with ``NodeRecovery: Automatic``) or None."""
    repair = spec.repair if cluster.node_recovery == "Automatic" else "None"
    cluster.event(
        "Instance",
        f"Instance {node.instance_id} is unhealthy. HyperPod Health Monitoring Agent (HMA) has detected fault type "
        f"{spec.fault_type} on this node and is unhealthy. Repair action: {repair}.",
        level="Error",
        group=node.group,
        instance_id=node.instance_id,
    )
    _put(cluster, node.instance_id, "Unhealthy", spec, 2)  # AWS sends fault events in pairs
    if cluster.node_recovery != "Automatic":
        return None
    return "replace" if spec.repair == "Replace" else "reboot"


def _report_and_repair(cluster: HyperPodCluster, node: HyperPodNode, spec: FaultSpec) -> None:
    action = report(cluster, node, spec)
    if action:
        operate_nodes(cluster, [node.instance_id], action)


def agent_on(cluster: HyperPodCluster, node_id: str) -> bool:
    return node_agents.runs_on(cluster.eks_cluster_name, f"{NODE_PREFIX}{node_id}")


def _doom(cluster: HyperPodCluster, fault: ActiveFault) -> None:
    """The replacement of a node whose fault nothing fixes fails at the end of its launch."""
    fresh = [
        n for n in cluster.nodes.values() if n.kind == "replace" and n.group == fault.group and n.started >= fault.since
    ]
    for node in fresh[:1]:
        pending = node.phases[0].until
        node.phases = [
            Phase("Pending", pending, node.phases[0].message),
            Phase(
                "Failure",
                float("inf"),
                f"The replacement instance {node.instance_id} failed its health checks: {KINDS[fault.kind].fault_type}."
                " HyperPod does not retry a failed replacement; replace or delete it.",
            ),
        ]


def settle(cluster: HyperPodCluster) -> None:
    """Called by HyperPod's settle, under its lock: what reboots and replacements did to each fault."""
    with RECORDS_LOCK:
        mine = {iid: f for iid, f in fault_records().faults.items() if f.cluster_arn == cluster.arn}
    for node_id, fault in mine.items():
        node = cluster.nodes.get(node_id)
        if node is None:  # replaced or deleted: the fault left with the hardware
            if fault.fixed_by == "nothing":
                _doom(cluster, fault)
            with RECORDS_LOCK:
                fault_records().faults.pop(node_id, None)
            continue
        if node.state()[0] != "Running":
            continue
        if node.started == fault.boot:
            if not fault.reported and agent_on(cluster, node_id):  # the agent started and finds it
                fault.reported = True
                _report_and_repair(cluster, node, KINDS[fault.kind])
            continue
        # The node was restarted (a reboot) and is Running again.
        if fault.fixed_by == "reboot":
            with RECORDS_LOCK:
                fault_records().faults.pop(node_id, None)
            cluster.event("Instance", f"Instance {node_id} is healthy again.", group=node.group, instance_id=node_id)
            _put(cluster, node_id, "Healthy", None, 1)
        else:
            fault.boot = node.started
            fault.reported = agent_on(cluster, node_id)
            if fault.reported:
                _report_and_repair(cluster, node, KINDS[fault.kind])


def decorate(cluster: HyperPodCluster, node: HyperPodNode, obj: dict[str, Any]) -> None:
    with RECORDS_LOCK:
        fault = fault_records().faults.get(node.instance_id)
    if fault is None or fault.boot != node.started or node.state()[0] != "Running":
        return
    spec = KINDS[fault.kind]
    if not spec.ready:  # the kubelet stops posting status: Kubernetes' node lifecycle, agent or not
        for condition in obj["status"]["conditions"]:
            if condition["type"] == "Ready":
                condition.update(
                    status="Unknown", reason="NodeStatusUnknown", message="Kubelet stopped posting node status."
                )
    if not fault.reported:
        return
    labels = obj["metadata"]["labels"]
    labels[HEALTH_LABEL] = spec.health
    labels[FAULT_TYPE_LABEL] = spec.fault_type
    labels[FAULT_REASON_LABEL] = spec.reason
    taints = [t for t in obj["spec"].get("taints", []) if t.get("key") != HEALTH_LABEL]
    obj["spec"]["taints"] = [*taints, {"key": HEALTH_LABEL, "value": spec.health, "effect": "NoSchedule"}]
    obj["spec"]["unschedulable"] = True


# Which deep health check finds each fault (developer guide, "Deep health checks": InstanceStress runs
# DCGM diagnostics on the GPUs; InstanceConnectivity tests EFA between instances).
FOUND_BY = {
    "gpu": ("InstanceStress",),
    "efa": ("InstanceConnectivity",),
    "unresponsive": ("InstanceStress", "InstanceConnectivity"),
}


def failing_check(node_id: str, checks: list[str]) -> str | None:
    """The first of ``checks`` the node's active fault fails, with HyperPod's message; None when it passes."""
    with RECORDS_LOCK:
        fault = fault_records().faults.get(node_id)
    if fault is None:
        return None
    check = next((c for c in checks if c in FOUND_BY[fault.kind]), None)
    if check is None:
        return None
    spec = KINDS[fault.kind]
    return (
        f"Deep health check {check} failed on instance {node_id}: {spec.fault_type} ({spec.reason}). "
        "The node is marked UnschedulablePendingReplacement."
    )
