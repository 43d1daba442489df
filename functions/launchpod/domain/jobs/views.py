"""A job as the user sees it, read from its custom resource, its pods, their nodes and the events.

HyperPodPyTorchJob status (the operator's, fields per the sagemaker-hyperpod SDK model): ``conditions``
of type Created, PodsRunning, Running, Restarting, Completed and Failed, and ``restartStatus``
{``restartCount``, ``fullJobRestartCount``, ``currentEvalPeriod``}. A hanging verdict of a log
monitoring rule is an event with reason ``LogStateHanging_<rule>``. RayJob status is KubeRay's
``jobStatus`` (PENDING, RUNNING, SUCCEEDED, FAILED, STOPPED) with ``message``.
"""

from __future__ import annotations

from typing import Any

from launchpod.contracts.jobs import (
    JobEventView,
    JobPodView,
    JobSummaryView,
    JobView,
    RestartBudgetView,
)
from launchpod.domain.jobs.manifests import PYTORCH_KIND, RECIPE_LABEL

_CONDITION_STATUS = {
    "Completed": "Succeeded",
    "Failed": "Failed",
    "Restarting": "Restarting",
    "Running": "Running",
    "PodsRunning": "Running",
    "Created": "Created",
    "Suspended": "Queued",  # Kueue evicted (preempted) the job's workload: it waits in its queue again
}
_RAY_STATUS = {
    "SUCCEEDED": "Succeeded",
    "FAILED": "Failed",
    "STOPPED": "Failed",
    "RUNNING": "Running",
    "PENDING": "Created",
}
HANG_PREFIX = "LogStateHanging_"


def _latest_condition(job: dict[str, Any]) -> dict[str, Any] | None:
    conditions = [c for c in (job.get("status") or {}).get("conditions") or [] if c.get("status") == "True"]
    return conditions[-1] if conditions else None


def status_of(job: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """(status, reason, message)."""
    status = job.get("status") or {}
    if job.get("kind") == PYTORCH_KIND:
        latest = _latest_condition(job)
        if latest is None:
            return "Pending", None, None
        return _CONDITION_STATUS.get(str(latest.get("type")), "Pending"), latest.get("reason"), latest.get("message")
    ray = str(status.get("jobStatus") or "")
    if not ray:
        return "Pending", None, None
    return _RAY_STATUS.get(ray, "Pending"), status.get("reason"), status.get("message")


def queue_state(workload: dict[str, Any] | None) -> tuple[str, str | None] | None:
    """(reason, message) of a Kueue Workload that is not admitted (its QuotaReserved condition: why it waits,
    in Kueue's words, such as "insufficient unused quota for nvidia.com/gpu in flavor ..., 8 more needed");
    None when it is admitted or there is none ("Workload", https://kueue.sigs.k8s.io/docs/concepts/workload/)."""
    conditions = {c.get("type"): c for c in ((workload or {}).get("status") or {}).get("conditions") or []}
    if workload is None or (conditions.get("Admitted") or {}).get("status") == "True":
        return None
    evicted = conditions.get("Evicted") or {}
    if evicted.get("status") == "True":
        return "Preempted", evicted.get("message")
    reserved = conditions.get("QuotaReserved") or {}
    return "Queued", reserved.get("message") or "waiting for Kueue to admit it"


def summary(job: dict[str, Any]) -> JobSummaryView:
    meta = job["metadata"]
    status, reason, _ = status_of(job)
    return JobSummaryView(
        jobName=meta["name"],
        namespace=meta.get("namespace", "default"),
        kind="pytorch" if job.get("kind") == PYTORCH_KIND else "ray",
        recipe=(meta.get("labels") or {}).get(RECIPE_LABEL),
        status=status,
        reason=reason,
        createdAt=meta.get("creationTimestamp"),
    )


def budget(job: dict[str, Any]) -> RestartBudgetView:
    run = (job.get("spec") or {}).get("runPolicy") or {}
    policy = run.get("restartPolicy") or {}
    restart = (job.get("status") or {}).get("restartStatus") or {}
    process = int(restart.get("restartCount") or 0)
    full = int(restart.get("fullJobRestartCount") or 0)
    limit = run.get("jobMaxRetryCount")
    used = process + full
    return RestartBudgetView(
        processRestarts=process,
        fullJobRestarts=full,
        retriesUsed=used,
        retriesLeft=max(int(limit) - used, 0) if limit is not None else None,
        jobMaxRetryCount=limit,
        numRestartBeforeFullJobRestart=policy.get("numRestartBeforeFullJobRestart"),
        maxFullJobRestarts=policy.get("maxFullJobRestarts"),
    )


def _pod_view(pod: dict[str, Any], zones: dict[str, str]) -> JobPodView:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    node = spec.get("nodeName")
    return JobPodView(
        name=pod["metadata"]["name"],
        phase=str(status.get("phase") or "Pending"),
        kubernetesNode=node,
        availabilityZone=zones.get(node) if node else None,
        restarts=sum(int(c.get("restartCount") or 0) for c in status.get("containerStatuses") or []),
        containers=[c["name"] for c in spec.get("containers") or []],
    )


def _event_view(event: dict[str, Any]) -> JobEventView:
    involved = event.get("involvedObject") or {}
    return JobEventView(
        time=event.get("lastTimestamp") or event.get("eventTime") or event.get("firstTimestamp"),
        type=str(event.get("type") or "Normal"),
        reason=str(event.get("reason") or ""),
        message=str(event.get("message") or ""),
        object=f"{involved.get('kind', '')}/{involved.get('name', '')}",
    )


def view(
    cluster: str,
    job: dict[str, Any],
    pods: list[dict[str, Any]],
    nodes: list[dict[str, Any]],
    events: list[dict[str, Any]],
    instance_type: str | None,
    workload: dict[str, Any] | None = None,
) -> JobView:
    meta, spec = job["metadata"], job.get("spec") or {}
    pytorch = job.get("kind") == PYTORCH_KIND
    status, reason, message = status_of(job)
    waiting = queue_state(workload) if status in ("Pending", "Created", "Queued") else None
    if waiting is not None:
        status, (reason, message) = "Queued", waiting
    zones = {
        n["metadata"]["name"]: (n["metadata"].get("labels") or {}).get("topology.kubernetes.io/zone", "") for n in nodes
    }
    names = {meta["name"], *(p["metadata"]["name"] for p in pods)}
    mine = [e for e in events if (e.get("involvedObject") or {}).get("name") in names]
    mine.sort(key=lambda e: str(e.get("lastTimestamp") or e.get("firstTimestamp") or ""))
    if pytorch:
        template = spec["replicaSpecs"][0]["template"]["spec"]
        replicas = int(spec["replicaSpecs"][0].get("replicas") or 0)
    else:
        template = spec["rayClusterSpec"]["workerGroupSpecs"][0]["template"]["spec"]
        replicas = int(spec["rayClusterSpec"]["workerGroupSpecs"][0].get("replicas") or 0)
    return JobView(
        cluster=cluster,
        jobName=meta["name"],
        namespace=meta.get("namespace", "default"),
        kind="pytorch" if pytorch else "ray",
        recipe=(meta.get("labels") or {}).get(RECIPE_LABEL),
        image=template["containers"][0]["image"],
        instanceType=instance_type,
        replicas=replicas,
        status=status,
        reason=reason,
        message=message,
        createdAt=meta.get("creationTimestamp"),
        budget=budget(job) if pytorch else None,
        hangDetections=sum(1 for e in mine if str(e.get("reason", "")).startswith(HANG_PREFIX)),
        pods=sorted((_pod_view(p, zones) for p in pods), key=lambda p: p.name),
        events=[_event_view(e) for e in mine[-20:]],
    )
