"""The scheduled watcher against in-memory fakes: a failed training job told once with the link to it, an
unhealthy endpoint once per episode, a training plan in use told once per threshold before its end, each with
its console link; clusters not ACTIVE and checks that cannot be made do not stop the rest."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from launchpod.domain.errors import RetryableError
from launchpod.domain.inference.endpoints import RealEndpoint
from launchpod.domain.jobs import manifests
from launchpod.usecases import notifications
from launchpod.usecases.events import watch

from tests.fakes.clusters import Clusters
from tests.fakes.eks import Eks
from tests.fakes.endpoints import Endpoints
from tests.fakes.jobs import JobApi
from tests.fakes.notifications import NotificationDocs
from tests.fakes.sagemaker import SageMaker
from tests.fakes.sns import NotificationTopic

CONSOLE = "https://d111111abcdef8.cloudfront.net"
NOW = datetime(2026, 12, 5, 17, 0, tzinfo=UTC)
PLAN = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5-week"


def _ports(
    jobs: list[dict[str, Any]] | None = None,
    endpoints: list[RealEndpoint] | None = None,
    groups: list[dict[str, Any]] | None = None,
    plans: dict[str, dict[str, Any]] | None = None,
    hours: tuple[int, ...] = (24,),
    eks_status: str = "ACTIVE",
) -> watch.WatchPorts:
    return watch.WatchPorts(
        clusters=Clusters({"c1": {"source": "created", "region": "us-east-1"}}),
        eks=Eks({"c1": {"name": "c1", "status": eks_status}}),
        sagemaker=SageMaker({"c1": {"ClusterName": "c1", "InstanceGroups": groups or []}}, plans=plans),
        jobs=JobApi(jobs=jobs or []),
        endpoints=Endpoints(endpoints or []),
        notifications=notifications.NotificationPorts(
            clusters=Clusters({"c1": {}}), docs=NotificationDocs(), topic=NotificationTopic(), console_url=CONSOLE
        ),
        plan_hours=hours,
        clock=lambda: NOW,
    )


def _published(ports: watch.WatchPorts) -> list[dict[str, Any]]:
    return ports.notifications.topic.published  # type: ignore[attr-defined, no-any-return]


def _pytorch(name: str, condition: str, at: datetime = NOW, uid: str = "u1") -> dict[str, Any]:
    return {
        "apiVersion": manifests.PYTORCH_API,
        "kind": manifests.PYTORCH_KIND,
        "metadata": {"name": name, "namespace": "default", "uid": uid},
        "status": {
            "conditions": [
                {"type": "Created", "status": "True"},
                {
                    "type": condition,
                    "status": "True",
                    "reason": "JobMaxRetryCountExceeded" if condition == "Failed" else None,
                    "message": "retries used: 1 of jobMaxRetryCount 1" if condition == "Failed" else None,
                    "lastTransitionTime": at.isoformat().replace("+00:00", "Z"),
                },
            ]
        },
    }


def test_a_failed_job_is_told_once_with_its_reason_and_the_link_to_it():
    ports = _ports(jobs=[_pytorch("train", "Failed"), _pytorch("ok", "Running", uid="u2")])
    assert watch.watch(ports=ports) == {"checked": 1, "told": {"c1": {"job-failed": ["train"]}}}
    assert watch.watch(ports=ports)["told"] == {}
    [sent] = _published(ports)
    assert sent["attributes"] == {"cluster": "c1", "kind": "job-failed"}
    assert sent["subject"] == "Training job train failed on c1"
    assert "JobMaxRetryCountExceeded: retries used: 1 of jobMaxRetryCount 1" in sent["body"]["text"]
    assert sent["body"]["link"] == f"{CONSOLE}/clusters/c1?tab=jobs&job=train"


def test_a_new_job_of_the_same_name_that_fails_again_is_told_again():
    ports = _ports(jobs=[_pytorch("train", "Failed")])
    watch.watch(ports=ports)
    ports.jobs._jobs[:] = [_pytorch("train", "Failed", uid="u2")]  # type: ignore[attr-defined]
    assert watch.watch(ports=ports)["told"] == {"c1": {"job-failed": ["train"]}}


def test_a_ray_job_that_failed_is_told_and_one_that_failed_days_ago_is_history():
    ray = {
        "apiVersion": manifests.RAY_API,
        "kind": manifests.RAY_KIND,
        "metadata": {"name": "rl", "namespace": "team-a", "uid": "r1"},
        "status": {"jobStatus": "FAILED", "message": "Job entrypoint command failed with exit code 1"},
    }
    old = _pytorch("last-week", "Failed", at=NOW - timedelta(days=3), uid="u9")
    ports = _ports(jobs=[ray, old])
    assert watch.watch(ports=ports)["told"] == {"c1": {"job-failed": ["rl"]}}
    [sent] = _published(ports)
    assert sent["body"]["text"] == "RayJob team-a/rl failed: Job entrypoint command failed with exit code 1"


def _endpoint(state: str, uid: str = "e1") -> RealEndpoint:
    """A one-replica vLLM Deployment whose container is crash-looping ("crash"), Ready ("ready") or starting."""
    container: dict[str, Any] = {"name": "server", "ready": state == "ready", "restartCount": 0, "state": {}}
    if state == "crash":
        container |= {
            "restartCount": 3,
            "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s restarting"}},
            "lastState": {"terminated": {"exitCode": 1, "message": "ValueError: no model at /s3/models/x"}},
        }
    elif state == "starting":
        container["state"] = {"waiting": {"reason": "ContainerCreating"}}
    else:
        container["state"] = {"running": {"startedAt": "2026-12-05T16:00:00Z"}}
    pod = {
        "metadata": {"name": "vllm-0", "namespace": "default"},
        "status": {"phase": "Running" if state != "starting" else "Pending", "containerStatuses": [container]},
    }
    primary = {
        "metadata": {"name": "vllm", "namespace": "default", "uid": uid},
        "spec": {"replicas": 1},
        "status": {"readyReplicas": 1 if state == "ready" else 0},
    }
    return RealEndpoint(kind="container", primary=primary, pods=[pod])


def test_an_unhealthy_endpoint_is_told_once_per_episode():
    ports = _ports(endpoints=[_endpoint("crash")])
    assert watch.watch(ports=ports)["told"] == {"c1": {"endpoint-unhealthy": ["vllm"]}}
    assert watch.watch(ports=ports)["told"] == {}  # still crash-looping: the same episode
    [sent] = _published(ports)
    assert sent["subject"] == "Endpoint vllm on c1 is unhealthy"
    assert "CrashLoopBackOff" in sent["body"]["text"] and "ValueError: no model at /s3/models/x" in sent["body"]["text"]
    assert sent["body"]["link"] == f"{CONSOLE}/clusters/c1?tab=inference&endpoint=vllm"

    ports.endpoints.found[:] = [_endpoint("ready")]  # type: ignore[attr-defined]
    assert watch.watch(ports=ports)["told"] == {}
    ports.endpoints.found[:] = [_endpoint("crash")]  # type: ignore[attr-defined]
    assert watch.watch(ports=ports)["told"] == {"c1": {"endpoint-unhealthy": ["vllm"]}}  # a new episode
    assert len(_published(ports)) == 2


def test_an_endpoint_still_starting_is_not_unhealthy_and_one_the_operator_failed_is():
    ports = _ports(endpoints=[_endpoint("starting")])
    assert watch.watch(ports=ports)["told"] == {}
    failed = _endpoint("starting", uid="e2")
    failed.kind = "managed"
    failed.primary["status"] = {"state": "DeploymentFailed", "deploymentStatus": {"message": "image not found"}}
    ports.endpoints.found[:] = [failed]  # type: ignore[attr-defined]
    assert watch.watch(ports=ports)["told"] == {"c1": {"endpoint-unhealthy": ["vllm"]}}
    assert _published(ports)[0]["body"]["text"].endswith(": image not found")


def _plan(ends_in: timedelta, status: str = "Active") -> dict[str, dict[str, Any]]:
    return {PLAN: {"TrainingPlanArn": PLAN, "TrainingPlanName": "p5-week", "Status": status, "EndTime": NOW + ends_in}}


GROUPS = [{"InstanceGroupName": "gpu", "TrainingPlanArn": PLAN}, {"InstanceGroupName": "system"}]


def test_a_plan_in_use_ending_within_the_threshold_is_told_once_with_the_capacity_page():
    ports = _ports(groups=GROUPS, plans=_plan(timedelta(hours=20)))
    assert watch.watch(ports=ports)["told"] == {"c1": {"plan-expiring": ["p5-week"]}}
    assert watch.watch(ports=ports)["told"] == {}
    [sent] = _published(ports)
    assert sent["subject"] == "Training plan p5-week ends in 20 hours"
    assert "instance group(s) gpu of c1, ends at 2026-12-06 13:00 UTC" in sent["body"]["text"]
    assert sent["body"]["link"] == f"{CONSOLE}/capacity"


def test_a_plan_is_told_at_each_threshold_it_crosses_and_again_after_an_extension():
    ports = _ports(groups=GROUPS, plans=_plan(timedelta(hours=100)), hours=(72, 24))
    assert watch.watch(ports=ports)["told"] == {}  # further off than any threshold
    ports.sagemaker.plans[PLAN]["EndTime"] = NOW + timedelta(hours=50)  # type: ignore[attr-defined]
    assert watch.watch(ports=ports)["told"] == {"c1": {"plan-expiring": ["p5-week"]}}
    assert watch.watch(ports=ports)["told"] == {}
    ports.sagemaker.plans[PLAN]["EndTime"] = NOW + timedelta(hours=3)  # type: ignore[attr-defined]
    assert watch.watch(ports=ports)["told"] == {"c1": {"plan-expiring": ["p5-week"]}}
    ports.sagemaker.plans[PLAN]["EndTime"] = NOW + timedelta(hours=23)  # extended: a new end
    assert watch.watch(ports=ports)["told"] == {"c1": {"plan-expiring": ["p5-week"]}}
    assert [s["subject"] for s in _published(ports)] == [
        "Training plan p5-week ends in 50 hours",
        "Training plan p5-week ends in 3 hours",
        "Training plan p5-week ends in 23 hours",
    ]


@pytest.mark.parametrize(
    ("groups", "plan"),
    [
        ([{"InstanceGroupName": "gpu"}], _plan(timedelta(hours=2))),  # no group uses it
        (GROUPS, _plan(timedelta(hours=-1), status="Expired")),  # already over
    ],
)
def test_a_plan_no_group_uses_or_that_is_over_is_not_told(groups, plan):
    assert watch.watch(ports=_ports(groups=groups, plans=plan))["told"] == {}


def test_a_cluster_not_active_is_skipped_and_a_check_that_fails_does_not_stop_the_others():
    assert watch.watch(ports=_ports(jobs=[_pytorch("train", "Failed")], eks_status="CREATING")) == {
        "checked": 0,
        "told": {},
    }
    ports = _ports(jobs=[_pytorch("train", "Failed")], endpoints=[_endpoint("crash")])

    def unreachable(*args: Any, **kwargs: Any) -> list[Any]:
        raise RetryableError("The cluster's API server did not answer; try again.")

    ports.jobs.list_kind = unreachable  # type: ignore[method-assign]
    assert watch.watch(ports=ports)["told"] == {"c1": {"endpoint-unhealthy": ["vllm"]}}
