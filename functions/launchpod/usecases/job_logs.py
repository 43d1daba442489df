"""A job's log after its pod is gone: read from CloudWatch Logs when the observability feature ships the
cluster's container logs there (Container Insights), or answered as not retained when it does not."""

from __future__ import annotations

import time

from launchpod.contracts.jobs import JobLogsView
from launchpod.domain import observability
from launchpod.usecases.ports import AddonReader, ShippedLogs


def gone_pod_logs(
    cluster: str,
    namespace: str,
    job: str,
    pod: str | None,
    container: str | None,
    tail: int,
    since: int | None,
    *,
    eks: AddonReader,
    logs: ShippedLogs,
    others: list[str],
) -> JobLogsView:
    """``pod`` (or, unnamed, the job's first pod by name) as Fluent Bit shipped it; ``others`` are the job's
    pods that still exist, named in the note when nothing was kept."""
    now = ", ".join(others) or "none"

    def not_kept(note: str) -> JobLogsView:
        return JobLogsView(jobName=job, pod=pod or "", container=container or "", lines=[], retained=False, note=note)

    if not observability.enabled(eks.addons(cluster)):
        return not_kept(
            f"The pod is gone and its log was not retained (observability is off: PATCH "
            f'/api/clusters/{cluster}/features {{"observability": {{"enabled": true}}}} keeps the logs of pods that '
            f"run from then on); the job's pods now: {now}."
        )
    # Unnamed, the job's pods are the ones named after it (the operator names them <job>-<replica>-<i>).
    pattern = observability.pod_filter(namespace, pod or f"{job}-*", container)
    start = int((time.time() - since) * 1000) if since else None
    found = logs.container_lines(observability.log_group(cluster), pattern, tail, start)
    if found is None:
        return not_kept(
            f"The pod is gone and CloudWatch Logs ({observability.log_group(cluster)}) has no lines of it"
            + (f" in the last {since} s" if since else "")
            + f": Container Insights ships only what containers write while it runs. The job's pods now: {now}."
        )
    return JobLogsView(
        jobName=job,
        pod=found.pod,
        container=found.container,
        lines=found.lines,
        retained=True,
        source="cloudwatch",
        note=f"From CloudWatch Logs ({observability.log_group(cluster)}): the pod is gone.",
    )


def deleted_job_logs(
    cluster: str,
    namespace: str,
    job: str,
    pod: str | None,
    container: str | None,
    tail: int,
    since: int | None,
    *,
    eks: AddonReader,
    logs: ShippedLogs,
) -> JobLogsView | None:
    """The log of a job that no longer exists (deleted, or removed by its TTL), when Container Insights kept
    it; None when nothing was kept, so the caller answers that the job is not found."""
    kept = gone_pod_logs(cluster, namespace, job, pod, container, tail, since, eks=eks, logs=logs, others=[])
    if not kept.retained:
        return None
    return kept.model_copy(
        update={"note": f"From CloudWatch Logs ({observability.log_group(cluster)}): the job is deleted."}
    )
