"""Why an endpoint's replica waits in its team's queue: Kueue's pod integration gates each pod of a queued
Deployment (scheduling gate ``kueue.x-k8s.io/admission``) until the pod's Workload is admitted, and stops a
preempted pod, whose replacement waits again ("Run A Deployment", https://kueue.sigs.k8s.io/docs/tasks/run/deployment/;
"Preemption", https://kueue.sigs.k8s.io/docs/concepts/preemption/). The words are Kueue's: the Workload's
QuotaReserved message for the wait, and the Preempted event of the pod's earlier Workload for the eviction."""

from __future__ import annotations

from typing import Any

GATE = "kueue.x-k8s.io/admission"


def gated(pod: dict[str, Any]) -> bool:
    return any(g.get("name") == GATE for g in (pod.get("spec") or {}).get("schedulingGates") or [])


def _owner(workload: dict[str, Any]) -> dict[str, Any]:
    return next(iter((workload.get("metadata") or {}).get("ownerReferences") or []), {})


def _message(workload: dict[str, Any], kind: str) -> str | None:
    for c in (workload.get("status") or {}).get("conditions") or []:
        if c.get("type") == kind and c.get("status") == "False" and c.get("message"):
            return str(c["message"])
    return None


def notes(pods: list[dict[str, Any]], workloads: list[dict[str, Any]], events: list[dict[str, Any]]) -> dict[str, str]:
    """Pod name -> why the gated pod waits: the preemption that stopped the pod before it (the newest Preempted
    event of a Workload of a pod of that name), then the queue's own words for its wait."""
    out: dict[str, str] = {}
    for pod in pods:
        if not gated(pod):
            continue
        meta = pod["metadata"]
        mine = next(
            (w for w in workloads if _owner(w).get("kind") == "Pod" and _owner(w).get("uid") == meta.get("uid")), None
        )
        earlier = sorted(
            (
                e
                for e in events
                if e.get("reason") == "Preempted"
                and str((e.get("involvedObject") or {}).get("name", "")).startswith(f"pod-{meta['name']}-")
                and (mine is None or (e.get("involvedObject") or {}).get("name") != mine["metadata"]["name"])
            ),
            key=lambda e: str(e.get("lastTimestamp") or ""),
        )
        parts = []
        if earlier:
            parts.append(f"Preempted: {earlier[-1].get('message')}")
        waiting = _message(mine, "QuotaReserved") if mine is not None else None
        queue = (mine or {}).get("spec", {}).get("queueName") or (meta.get("labels") or {}).get(
            "kueue.x-k8s.io/queue-name"
        )
        parts.append(f"waiting in queue {queue}" + (f": {waiting}" if waiting else " for Kueue to admit it"))
        out[meta["name"]] = "; ".join(parts)
    return out
