"""A job's log: a container of one of its pods read from the Kubernetes API while the pod exists; after the
pod is gone, read from CloudWatch Logs when the observability feature ships the cluster's container logs
there (Container Insights), or answered as not retained when it does not."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from launchpod.contracts.jobs import JobLogsView
from launchpod.domain import observability
from launchpod.domain.errors import InvalidInput, NotFound
from launchpod.usecases import jobs
from launchpod.usecases.ports import AddonReader, ShippedLogs

# kubectl's pick among several containers (Kubernetes' well-known annotations and labels).
DEFAULT_CONTAINER = "kubectl.kubernetes.io/default-container"


@dataclass(frozen=True)
class LogRead:
    """What a log read asks for: ``container`` of ``pod`` (None: the job's first pod by name) of a job, its last
    ``tail`` lines of the last ``since`` seconds (None: all it has)."""

    cluster: str
    namespace: str
    job: str
    pod: str | None
    container: str | None
    tail: int
    since: int | None


def gone_pod_logs(ask: LogRead, *, eks: AddonReader, logs: ShippedLogs, others: list[str]) -> JobLogsView:
    """``pod`` (or, unnamed, the job's first pod by name) as Fluent Bit shipped it; ``others`` are the job's
    pods that still exist, named in the note when nothing was kept."""
    now = ", ".join(others) or "none"

    def not_kept(note: str) -> JobLogsView:
        return JobLogsView(
            jobName=ask.job, pod=ask.pod or "", container=ask.container or "", lines=[], retained=False, note=note
        )

    if not observability.enabled(eks.addons(ask.cluster)):
        return not_kept(
            "The pod is gone and its log was not retained (observability is off: turning it on in the cluster's"
            f" features keeps the logs of pods that run from then on); the job's pods now: {now}."
        )
    # Unnamed, the job's pods are the ones named after it (the operator names them <job>-<replica>-<i>).
    pattern = observability.pod_filter(ask.namespace, ask.pod or f"{ask.job}-*", ask.container)
    start = int((time.time() - ask.since) * 1000) if ask.since else None
    found = logs.container_lines(observability.log_group(ask.cluster), pattern, ask.tail, start)
    if found is None:
        return not_kept(
            f"The pod is gone and CloudWatch Logs ({observability.log_group(ask.cluster)}) has no lines of it"
            + (f" in the last {ask.since} s" if ask.since else "")
            + f": Container Insights ships only what containers write while it runs. The job's pods now: {now}."
        )
    return JobLogsView(
        jobName=ask.job,
        pod=found.pod,
        container=found.container,
        lines=found.lines,
        retained=True,
        source="cloudwatch",
        note=f"From CloudWatch Logs ({observability.log_group(ask.cluster)}): the pod is gone.",
    )


def deleted_job_logs(ask: LogRead, *, eks: AddonReader, logs: ShippedLogs) -> JobLogsView | None:
    """The log of a job that no longer exists (deleted, or removed by its TTL), when Container Insights kept
    it; None when nothing was kept, so the caller answers that the job is not found."""
    kept = gone_pod_logs(ask, eks=eks, logs=logs, others=[])
    if not kept.retained:
        return None
    return kept.model_copy(
        update={"note": f"From CloudWatch Logs ({observability.log_group(ask.cluster)}): the job is deleted."}
    )


def container_of(pod: dict[str, Any], asked: str | None) -> str:
    """The container to read: the one asked for, or the pod's only one (or the one its default-container
    annotation names). Like the API server, which answers a pod of several containers "a container name
    must be specified ... choose one of", a missing or ambiguous container is refused, naming them."""
    name = pod["metadata"]["name"]
    containers = [c["name"] for c in pod["spec"].get("containers") or []]
    listed = ", ".join(containers)
    if asked is not None:
        if asked not in containers:
            raise InvalidInput(
                f"Pod {name} has no container {asked}; its containers are {listed}. Name one of them as container.",
                field="query.container",
                rule="a container of the pod",
            )
        return asked
    default = ((pod["metadata"].get("annotations") or {}).get(DEFAULT_CONTAINER)) or None
    if len(containers) == 1 or default in containers:
        return str(default if default in containers else containers[0])
    raise InvalidInput(
        f"Pod {name} has {len(containers)} containers ({listed}); name the one to read as container,"
        f" e.g. container={containers[0]}.",
        field="query.container",
        rule="one container of several",
    )


def read(
    name: str,
    job: str,
    namespace: str,
    pod: str | None,
    container: str | None,
    tail: int,
    since: int | None,
    *,
    ports: jobs.JobPorts,
) -> JobLogsView:
    """``container`` of ``pod`` (unnamed: the job's first pod by name), its last ``tail`` lines of the last
    ``since`` seconds; a gone pod or deleted job is read from CloudWatch Logs when it was kept there."""
    jobs.require_active(name, ports=ports)
    ask = LogRead(name, namespace, job, pod, container, tail, since)
    try:
        found = jobs.find(name, job, namespace, ports=ports)
    except NotFound as gone:
        kept = deleted_job_logs(ask, eks=ports.eks, logs=ports.logs)
        if kept is None:
            raise NotFound(
                f"{gone} No log of it was kept: with the observability feature on, a deleted job's log stays"
                " readable here from CloudWatch Logs."
            ) from None
        return kept
    pods = sorted(jobs.pods(name, found, ports=ports), key=lambda p: p["metadata"]["name"])
    chosen = next((p for p in pods if p["metadata"]["name"] == pod), None) if pod else (pods[0] if pods else None)
    if chosen is None:
        return gone_pod_logs(ask, eks=ports.eks, logs=ports.logs, others=[p["metadata"]["name"] for p in pods])
    use = container_of(chosen, container)
    text = ports.jobs.log(name, namespace, chosen["metadata"]["name"], use, tail, since)
    return JobLogsView(
        jobName=job,
        pod=chosen["metadata"]["name"],
        container=use,
        lines=(text or "").splitlines(),
        retained=text is not None,
        source="kubernetes" if text is not None else None,
    )
