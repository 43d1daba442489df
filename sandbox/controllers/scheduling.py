"""Where kube-scheduler would put a Pod, and how it says why it cannot.

The filters, in the default profile's order (NodeUnschedulable, TaintToleration, NodeAffinity,
NodeResourcesFit; https://kubernetes.io/docs/reference/scheduling/config/#scheduling-plugins), each with
the reason string kube-scheduler reports for the nodes it rejects:

* a cordoned node (``spec.unschedulable``): "node(s) were unschedulable", unless the Pod tolerates
  ``node.kubernetes.io/unschedulable``;
* a NoSchedule/NoExecute taint the Pod does not tolerate: "node(s) had untolerated taint {key: value}".
  A node whose Ready condition is False or Unknown carries ``node.kubernetes.io/not-ready`` or
  ``node.kubernetes.io/unreachable``, as the node lifecycle controller taints it
  (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/#taint-based-evictions);
  toleration matching follows the same page (``Exists`` with no key tolerates everything);
* ``nodeSelector`` or required node affinity not met: "node(s) didn't match Pod's node affinity/selector"
  (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/);
* required pod anti-affinity with ``topologyKey: kubernetes.io/hostname``: a node already running a Pod whose
  labels match a term's ``labelSelector.matchLabels`` is rejected with "node(s) didn't match pod anti-affinity
  rules" (InterPodAffinity, https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity;
  other topology keys and matchExpressions are not modelled);
* requests beyond what is left of ``status.allocatable`` after the Pods already bound there:
  "Insufficient <resource>" (cpu, memory and extended resources such as ``nvidia.com/gpu``,
  ``vpc.amazonaws.com/efa``, ``aws.amazon.com/neuron``; an extended resource with only a limit requests
  that limit, https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/).

The FailedScheduling message is kube-scheduler's FitError: "0/N nodes are available: " then each reason
with its node count, sorted, then the preemption post-filter's verdict (a node rejected by anything but
resources is "Preemption is not helpful for scheduling"; with no lower-priority Pods to evict, a node short
of resources has "No preemption victims found for incoming pod."). With no nodes at all it is "no nodes
available to schedule pods".
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

_SUFFIX = {
    "m": 0.001,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
}
_QUANTITY = re.compile(r"^([0-9.]+)([a-zA-Z]*)$")
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod."  # the period is kube-scheduler's: ".." ends it


def quantity(value: Any) -> float:
    """A Kubernetes resource quantity ("100m", "512Mi", "8") as a number."""
    m = _QUANTITY.match(str(value).strip())
    if not m:
        raise ValueError(f"quantities must match the regular expression: {value!r}")
    return float(m.group(1)) * _SUFFIX.get(m.group(2), 1.0)


def requests(pod_spec: dict[str, Any]) -> dict[str, float]:
    """What the Pod's containers request; a resource with only a limit requests its limit."""
    total: dict[str, float] = {}
    for container in pod_spec.get("containers") or []:
        resources = container.get("resources") or {}
        for name, value in {**(resources.get("limits") or {}), **(resources.get("requests") or {})}.items():
            total[name] = total.get(name, 0) + quantity(value)
    return total


def _tolerates(tolerations: list[dict[str, Any]], taint: dict[str, Any]) -> bool:
    for t in tolerations:
        if t.get("effect") and t["effect"] != taint.get("effect"):
            continue
        if t.get("operator") == "Exists":
            if not t.get("key") or t["key"] == taint.get("key"):
                return True
        elif t.get("key") == taint.get("key") and (t.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def _ready(node: dict[str, Any]) -> str:
    for c in (node.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return str(c.get("status"))
    return "Unknown"


def taints(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The node's taints, with the one the node lifecycle controller adds to a node that is not Ready."""
    found = list((node.get("spec") or {}).get("taints") or [])
    ready = _ready(node)
    if ready == "False":
        found.append({"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"})
    elif ready != "True":
        found.append({"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"})
    return found


def _matches_term(term: dict[str, Any], labels: dict[str, str]) -> bool:
    for expr in term.get("matchExpressions") or []:
        value, values = labels.get(expr["key"]), expr.get("values") or []
        ok = {
            "In": value in values,
            "NotIn": value not in values,
            "Exists": value is not None,
            "DoesNotExist": value is None,
            "Gt": value is not None and value.isdigit() and values and int(value) > int(values[0]),
            "Lt": value is not None and value.isdigit() and values and int(value) < int(values[0]),
        }.get(expr["operator"], False)
        if not ok:
            return False
    return bool(term.get("matchExpressions") or term.get("matchFields"))


def selects(pod_spec: dict[str, Any], node: dict[str, Any]) -> bool:
    """nodeSelector and required node affinity: every selector label, and at least one term (ORed)."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    if any(labels.get(k) != v for k, v in (pod_spec.get("nodeSelector") or {}).items()):
        return False
    required = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    terms = required.get("nodeSelectorTerms")
    return not terms or any(_matches_term(t, labels) for t in terms)


def untolerated(pod_spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any] | None:
    tolerations = pod_spec.get("tolerations") or []
    for taint in taints(node):
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not _tolerates(tolerations, taint):
            return taint
    return None


def _reasons(pod_spec: dict[str, Any], node: dict[str, Any], used: dict[str, float]) -> tuple[list[str], bool]:
    """Why the node is rejected (empty when it fits), and whether preemption could help."""
    tolerations = pod_spec.get("tolerations") or []
    if (node.get("spec") or {}).get("unschedulable") and not _tolerates(
        tolerations, {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    ):
        return ["node(s) were unschedulable"], False
    taint = untolerated(pod_spec, node)
    if taint is not None:
        return [f"node(s) had untolerated taint {{{taint.get('key')}: {taint.get('value') or ''}}}"], False
    if not selects(pod_spec, node):
        return ["node(s) didn't match Pod's node affinity/selector"], False
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    short = [
        f"Insufficient {name}"
        for name, amount in sorted(requests(pod_spec).items())
        if amount > 0 and amount > quantity(allocatable.get(name, 0)) - used.get(name, 0.0)
    ]
    return short, True


def _anti_affine_nodes(pod_spec: dict[str, Any], bound: list[dict[str, Any]]) -> set[str]:
    """The nodes running a Pod that the Pod's required hostname anti-affinity keeps it away from."""
    terms = ((pod_spec.get("affinity") or {}).get("podAntiAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or []
    out = set()
    for term in terms:
        wanted = (term.get("labelSelector") or {}).get("matchLabels") or {}
        if term.get("topologyKey") != "kubernetes.io/hostname" or not wanted:
            continue
        for pod in bound:
            labels = (pod.get("metadata") or {}).get("labels") or {}
            if (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed") and all(
                labels.get(k) == v for k, v in wanted.items()
            ):
                out.add(str((pod.get("spec") or {}).get("nodeName")))
    return out


def schedule(
    pod_spec: dict[str, Any], nodes: list[dict[str, Any]], bound: list[dict[str, Any]], pinned: str | None = None
) -> tuple[str | None, str]:
    """(the node the Pod goes to, "") or (None, the FailedScheduling message). ``bound`` are the Pods
    already placed (``spec.nodeName`` set), whose requests use up their nodes' allocatable. ``pinned``
    is the node a DaemonSet Pod's ``matchFields`` affinity names: every other node fails NodeAffinity."""
    if not nodes:
        return None, "no nodes available to schedule pods"
    used: dict[str, dict[str, float]] = {}
    for pod in bound:
        node_name = (pod.get("spec") or {}).get("nodeName")
        if node_name and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
            on_node = used.setdefault(node_name, {})
            for name, amount in requests(pod.get("spec") or {}).items():
                on_node[name] = on_node.get(name, 0) + amount
    histogram: Counter[str] = Counter()
    preemption: Counter[str] = Counter()
    avoided = _anti_affine_nodes(pod_spec, bound)
    for node in sorted(nodes, key=lambda n: n["metadata"]["name"]):
        if pinned is not None and node["metadata"]["name"] != pinned:
            reasons, resolvable = ["node(s) didn't match Pod's node affinity/selector"], False
        elif node["metadata"]["name"] in avoided:
            reasons, resolvable = ["node(s) didn't match pod anti-affinity rules"], False
        else:
            reasons, resolvable = _reasons(pod_spec, node, used.get(node["metadata"]["name"], {}))
        if not reasons:
            return node["metadata"]["name"], ""
        histogram.update(reasons)
        preemption[NO_VICTIMS if resolvable else NOT_HELPFUL] += 1
    n = len(nodes)
    fit = ", ".join(sorted(f"{count} {reason}" for reason, count in histogram.items()))
    post = ", ".join(sorted(f"{count} {reason}" for reason, count in preemption.items()))
    return None, f"0/{n} nodes are available: {fit}. preemption: 0/{n} nodes are available: {post}."
