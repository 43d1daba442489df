"""Kueue's pod integration, emulated for the sandbox: the pods of a Deployment labelled
``kueue.x-k8s.io/queue-name`` (a serving endpoint in a team's queue) each wait, gated, until Kueue admits the
pod's own Workload, and a preempted pod is stopped.

The rules, from Kueue's documentation (v1beta1):

* "Run A Deployment" (https://kueue.sigs.k8s.io/docs/tasks/run/deployment/) and "Run Plain Pods"
  (https://kueue.sigs.k8s.io/docs/tasks/run/plain_pods/): a Deployment with the queue-name label has its pods
  managed one by one; each pod is a Workload of one PodSet of count 1, with the priority of its
  ``kueue.x-k8s.io/priority-class``, and is created with the scheduling gate ``kueue.x-k8s.io/admission``,
  which Kueue removes once the Workload is admitted.
* A gated pod is not scheduled: it stays Pending with condition PodScheduled False, reason SchedulingGated
  (Kubernetes, "Pod Scheduling Readiness",
  https://kubernetes.io/docs/concepts/scheduling-eviction/pod-scheduling-readiness/).
* Kueue "decides when a job should be admitted to start (as in pods can be created) and when it should stop
  (as in active pods should be deleted)" (Kueue's README): a preempted pod is deleted, and the Deployment's
  replacement pod is a new Workload that waits in the queue again. The eviction is on the old Workload's
  Evicted condition and in a Normal event reason Preempted on that Workload, which outlives it.

Names: the Workload is ``pod-<pod>-<uid prefix>`` (Kueue's adds a hash).
"""

from __future__ import annotations

from typing import Any

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
GATE = "kueue.x-k8s.io/admission"
WORKLOAD_CRD = "workloads.kueue.x-k8s.io"
GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


def installed(emulator: Any) -> bool:
    """Kueue serves its Workloads on the cluster (the task governance add-on installed it)."""
    return emulator.get_object("apiextensions.k8s.io/v1/customresourcedefinitions", None, WORKLOAD_CRD) is not None


def queued(pod: dict[str, Any]) -> bool:
    """A live pod of a Deployment that names a queue."""
    meta = pod.get("metadata") or {}
    deployment = any(o.get("kind") == "Deployment" for o in meta.get("ownerReferences") or [])
    done = ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed")
    return deployment and bool((meta.get("labels") or {}).get(QUEUE_LABEL)) and not done


def workload_name(pod: dict[str, Any]) -> str:
    meta = pod["metadata"]
    return f"pod-{meta['name']}-{str(meta.get('uid', ''))[:5]}"[:63]


def pod_set(pod: dict[str, Any]) -> list[dict[str, Any]]:
    spec = {k: v for k, v in (pod.get("spec") or {}).items() if k not in ("nodeName", "schedulingGates")}
    return [{"name": "main", "count": 1, "template": {"spec": spec}}]


def held(emulator: Any, pod: dict[str, Any]) -> bool:
    """True while Kueue has not admitted the pod's Workload (none yet counts)."""
    workload = emulator.get_object("kueue.x-k8s.io/v1beta1/workloads", pod["metadata"]["namespace"], workload_name(pod))
    conditions = ((workload or {}).get("status") or {}).get("conditions") or []
    return not any(c.get("type") == "Admitted" and c.get("status") == "True" for c in conditions)


def gated_status() -> dict[str, Any]:
    condition = {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated", "message": GATED_MESSAGE}
    return {"phase": "Pending", "conditions": [condition]}
