"""Why a queued endpoint's replica waits: only a gated pod gets words, its earlier Workload's preemption first
(not its own Workload's), then the queue's words for its own Workload."""

from __future__ import annotations

from launchpod.domain.inference import queueing

QUEUE = "hyperpod-ns-research-localqueue"


def _pod(name: str, uid: str, gated: bool) -> dict:
    spec = {"schedulingGates": [{"name": queueing.GATE}]} if gated else {"nodeName": "n1"}
    return {"metadata": {"name": name, "uid": uid, "labels": {"kueue.x-k8s.io/queue-name": QUEUE}}, "spec": spec}


def _workload(name: str, pod_uid: str, message: str | None) -> dict:
    conditions = [{"type": "QuotaReserved", "status": "False", "message": message}] if message else []
    return {
        "metadata": {"name": name, "ownerReferences": [{"kind": "Pod", "uid": pod_uid}]},
        "spec": {"queueName": QUEUE},
        "status": {"conditions": conditions},
    }


def _preempted(workload: str, when: str, message: str) -> dict:
    return {"reason": "Preempted", "involvedObject": {"name": workload}, "lastTimestamp": when, "message": message}


def test_a_gated_replica_says_its_last_preemption_then_why_it_waits_and_a_running_one_says_nothing() -> None:
    pods = [_pod("chat-0", "bbbbb-2", gated=True), _pod("chat-1", "ccccc-3", gated=False)]
    workloads = [_workload("pod-chat-0-bbbbb", "bbbbb-2", "insufficient unused quota for nvidia.com/gpu")]
    events = [
        _preempted("pod-chat-0-aaaaa", "2026-12-05T20:00:00Z", "old reason"),
        _preempted("pod-chat-0-aaaab", "2026-12-05T20:05:00Z", "due to prioritization in the ClusterQueue"),
        _preempted("pod-chat-1-ddddd", "2026-12-05T20:06:00Z", "another replica's"),
    ]
    assert queueing.notes(pods, workloads, events) == {
        "chat-0": "Preempted: due to prioritization in the ClusterQueue; waiting in queue "
        f"{QUEUE}: insufficient unused quota for nvidia.com/gpu"
    }
    fresh = queueing.notes([_pod("new-0", "eeeee-5", gated=True)], [], [])
    assert fresh == {"new-0": f"waiting in queue {QUEUE} for Kueue to admit it"}
