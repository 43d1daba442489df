"""The scheduled watcher: what no AWS event tells. A training job reaching Failed and an inference endpoint
turning unhealthy happen in a cluster's API server, which EventBridge does not see; a training plan nearing
its end is a date in DescribeTrainingPlan (SageMaker emits no event for it). So every few minutes this reads
each registered cluster whose EKS control plane is ACTIVE and tells its subscribers (usecases.notifications):
a failed job once per job, an unhealthy endpoint once per episode (until it is Ready again), a plan in use by
one of its instance groups once per plan and threshold of hours before its end."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from launchpod.domain import notifications as rules
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.cluster_record import ClusterRecord
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import LaunchpodError
from launchpod.domain.inference import endpoints as serving
from launchpod.domain.jobs import views
from launchpod.domain.operations import now
from launchpod.domain.training_plans import TrainingPlan
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.runtime.wiring import KubeJobs
from launchpod.usecases import jobs, notifications
from launchpod.usecases.inference import ClusterEndpoints
from launchpod.usecases.notifications import NotificationPorts
from launchpod.usecases.ports import ControlPlanes

log = logging.getLogger(__name__)  # a child of powertools' "launchpod" logger (entrypoints.observability)


class RegisteredClusters(Protocol):
    """Every registered cluster (adapters.store.clusters)."""

    def list(self) -> Iterator[ClusterRecord]: ...


class PlanReader(Protocol):
    """HyperPod's clusters and training plans (adapters.aws.sagemaker)."""

    def hyperpod_cluster(self, name: str) -> HyperPodCluster | None: ...
    def training_plan(self, arn: str) -> TrainingPlan | None: ...


@dataclass(frozen=True)
class WatchPorts:
    clusters: RegisteredClusters
    eks: ControlPlanes
    sagemaker: PlanReader
    jobs: KubeJobs
    endpoints: ClusterEndpoints
    notifications: NotificationPorts
    plan_hours: tuple[int, ...] = (24,)
    clock: Callable[[], datetime] = field(default=now)


def real(plan_hours: tuple[int, ...] | None = None) -> WatchPorts:
    """The deployed adapters (runtime.wiring); ``plan_hours`` overrides the configured thresholds."""
    return WatchPorts(
        clusters=wiring.clusters(),
        eks=wiring.eks(),
        sagemaker=wiring.sagemaker(),
        jobs=wiring.kube_jobs(),
        endpoints=wiring.kube_endpoints(),
        notifications=notifications.real(),
        plan_hours=plan_hours or tuple(settings().plan_expiring_hours),
    )


def _jobs(cluster: str, at: datetime, ports: WatchPorts) -> list[str]:
    told = []
    for api_version, kind in jobs.KINDS:
        for job in ports.jobs.list_kind(cluster, api_version, kind, None):
            status, reason, message = views.status_of(job)
            if not rules.job_news(job, status, at):
                continue
            name, namespace = job["metadata"]["name"], job["metadata"].get("namespace", "default")
            why = ": ".join(part for part in (reason, message) if part) or "no reason given"
            if notifications.tell(
                cluster,
                rules.JOB_FAILED,
                rules.job_key(cluster, job),
                f"Training job {name} failed on {cluster}",
                f"{kind} {namespace}/{name} failed: {why}",
                rules.job_path(cluster, name, namespace),
                ports=ports.notifications,
            ):
                told.append(name)
    return told


def _endpoints(cluster: str, at: datetime, ports: WatchPorts) -> list[str]:
    told = []
    for real in ports.endpoints.endpoints(cluster, with_pods=True):
        uid = str(real.primary["metadata"].get("uid") or "")
        key = rules.endpoint_key(cluster, real.namespace, real.name, uid)
        why = serving.unhealthy(real)
        if why is None:
            if serving.status_of(real)[0] == "Ready":
                # the episode is over: the next time it turns unhealthy is told again
                ports.notifications.docs.release(f"{rules.ENDPOINT_UNHEALTHY}#{key}")
            continue
        if notifications.tell(
            cluster,
            rules.ENDPOINT_UNHEALTHY,
            key,
            f"Endpoint {real.name} on {cluster} is unhealthy",
            f"Endpoint {real.namespace}/{real.name} ({real.ready} of {real.desired} replicas ready): {why}",
            rules.endpoint_path(cluster, real.name),
            ports=ports.notifications,
        ):
            told.append(real.name)
    return told


def _plans(cluster: str, at: datetime, ports: WatchPorts) -> list[str]:
    found = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(cluster))
    groups: dict[str, list[str]] = {}
    for group in found.instance_groups if found is not None else ():
        if group.training_plan_arn:
            groups.setdefault(group.training_plan_arn, []).append(group.name)
    told = []
    for arn, names in sorted(groups.items()):
        plan = ports.sagemaker.training_plan(arn)
        end = rules.when_of(plan.end_time) if plan is not None else None
        if plan is None or end is None or plan.status not in ("Active", "Scheduled"):
            continue
        hours = rules.expiring_threshold(end, at, ports.plan_hours)
        if hours is None:
            continue
        plan_name = plan.name or arn.rsplit("/", 1)[-1]
        used = ", ".join(sorted(names))
        if notifications.tell(
            cluster,
            rules.PLAN_EXPIRING,
            rules.plan_key(arn, end, hours),
            f"Training plan {plan_name} ends in {rules.hours_left(end, at)}",
            f"Training plan {plan_name}, used by instance group(s) {used} of {cluster}, ends at"
            f" {end.strftime('%Y-%m-%d %H:%M UTC')} (less than {hours} hours from now); its instances go with it."
            " Extend it on the Capacity page, or move the groups to another plan.",
            rules.CAPACITY_PATH,
            ports=ports.notifications,
        ):
            told.append(plan_name)
    return told


_CHECKS = ((rules.JOB_FAILED, _jobs), (rules.ENDPOINT_UNHEALTHY, _endpoints), (rules.PLAN_EXPIRING, _plans))


def watch(*, ports: WatchPorts) -> dict[str, Any]:
    """Tell what is news on every ACTIVE cluster: what was told, by cluster and kind."""
    at = ports.clock()
    told: dict[str, dict[str, list[str]]] = {}
    checked = 0
    for record in ports.clusters.list():
        with wiring.in_region(record.region):  # each cluster is read in its own Region
            news = _watch_cluster(record.name, at, ports)
        if news is not None:
            checked += 1
            if news:
                told[record.name] = news
    return {"checked": checked, "told": told}


def _watch_cluster(name: str, at: datetime, ports: WatchPorts) -> dict[str, list[str]] | None:
    """What is news on one cluster, by kind; None when it is not ACTIVE (or cannot be read)."""
    try:
        eks = ports.eks.cluster(name)
    except LaunchpodError as exc:
        log.warning("watcher skipped a cluster", extra={"cluster": name, "error": exc.message})
        return None
    if eks is None or eks.status != "ACTIVE":
        return None
    news: dict[str, list[str]] = {}
    for kind, look in (
        (rules.JOB_FAILED, _jobs),
        (rules.ENDPOINT_UNHEALTHY, _endpoints),
        (rules.PLAN_EXPIRING, _plans),
    ):
        try:
            found = look(name, at, ports)
        except LaunchpodError as exc:  # one unreachable API server or missing CRD must not stop the rest
            log.warning("watcher skipped a check", extra={"cluster": name, "kind": kind, "error": exc.message})
            continue
        if found:
            news[kind] = found
    return news
