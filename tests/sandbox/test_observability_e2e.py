"""The observability feature through the sandbox: Container Insights' add-on installed with its pod identity
role (a second PATCH is NOOP), a finished job's logs read back from CloudWatch Logs once its pod is gone,
nothing shipped for lines written before it ran or when its role may not PutLogEvents, and with it off the
API says the log was not retained; turned off, its add-on and role go and the log group (the user's data)
stays. A deleted job's log stays readable from CloudWatch; one never shipped is not found."""

from __future__ import annotations

import json
import re

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.jobs_support import NAME, custom_job, ready_cluster, submit

pytestmark = pytest.mark.e2e

ADDON = "amazon-cloudwatch-observability"
ROLE = f"launchpod-{NAME}-observability"
GROUP = f"/aws/containerinsights/{NAME}/application"
AGENT_POLICY = "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy"


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


def _patch(sandbox, enabled: bool):
    with sandbox.client() as c:
        return c.patch(f"/api/clusters/{NAME}/features", json={"observability": {"enabled": enabled}})


def _set(sandbox, enabled: bool) -> None:
    response = _patch(sandbox, enabled)
    if response.status_code == 200:
        assert response.json()["status"] == "NOOP", response.text
        return
    assert response.status_code == 202, response.text
    assert sandbox.wait_operation(response.json()["operation"]["id"], timeout=120)["status"] == "SUCCEEDED"


def _finished_job(sandbox, job: str) -> str:
    """Runs ``job`` to its end and answers its first pod's name."""
    assert submit(sandbox, custom_job(job)).status_code == 200
    with sandbox.client("viewer") as c:
        view = wait_until(
            lambda: (v := c.get(f"/api/clusters/{NAME}/jobs/{job}").json())["status"] in ("Succeeded", "Failed") and v,
            90,
            reason=f"{job} did not end",
        )
    assert view["status"] == "Succeeded", view
    return f"{job}-pods-0"


def _logs(sandbox, job: str, pod: str, **params) -> dict:
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{NAME}/jobs/{job}/logs", params={"pod": pod, **params})
    assert response.status_code == 200, response.text
    return dict(response.json())


def _delete_pod(sandbox, pod: str) -> None:
    core = k8s.CoreV1Api(sandbox.kube(NAME))
    core.delete_namespaced_pod(pod, "default", _preload_content=False)

    def names() -> list[str]:
        listed = json.loads(core.list_namespaced_pod("default", _preload_content=False).data)
        return [p["metadata"]["name"] for p in listed["items"]]

    wait_until(lambda: pod not in names(), 90, reason=f"{pod} was not deleted")


def test_with_observability_off_a_gone_pods_log_is_not_retained(sandbox, cluster):
    _set(sandbox, False)
    pod = _finished_job(sandbox, "obs-off")
    _delete_pod(sandbox, pod)

    body = _logs(sandbox, "obs-off", pod)

    assert (body["retained"], body["lines"], body.get("source")) == (False, [], None), body
    assert "observability is off" in body["note"] and "turning it on in the cluster's features" in body["note"]


def test_observability_installs_with_its_pod_identity_role_and_a_second_patch_is_noop(sandbox, cluster):
    response = _patch(sandbox, True)
    assert response.status_code == 202, response.text
    plan = response.json()["operation"]["plan"]
    assert [(s["action"], s["target"].split(" ")[0], s["phase"]) for s in plan] == [
        ("create", "IAM", "Observability"),
        ("create", "EKS", "Observability"),
    ]
    assert sandbox.wait_operation(response.json()["operation"]["id"], timeout=120)["status"] == "SUCCEEDED"

    eks, iam = sandbox.aws("eks"), sandbox.aws("iam")
    addon = eks.describe_addon(clusterName=NAME, addonName=ADDON)["addon"]
    assert (addon["status"], addon["addonVersion"]) == ("ACTIVE", "v6.2.0-eksbuild.1")
    association = eks.list_pod_identity_associations(clusterName=NAME, namespace="amazon-cloudwatch")
    assert [
        (a["serviceAccount"], a["associationArn"] in addon["podIdentityAssociations"])
        for a in association["associations"]
    ] == [("cloudwatch-agent", True)]
    attached = {p["PolicyArn"] for p in iam.list_attached_role_policies(RoleName=ROLE)["AttachedPolicies"]}
    assert attached == {AGENT_POLICY, "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess"}
    assert iam.get_role(RoleName=ROLE)["Role"]["PermissionsBoundary"]["PermissionsBoundaryArn"].endswith(
        "launchpod-created-role-boundary"
    )
    with sandbox.client("viewer") as c:
        feature = next(
            f for f in c.get(f"/api/clusters/{NAME}/features").json()["items"] if f["name"] == "observability"
        )
    assert (feature["enabled"], feature["status"], feature["settings"]["applicationLogGroup"]) == (
        True,
        "ACTIVE",
        GROUP,
    )

    again = _patch(sandbox, True)
    assert again.status_code == 200 and again.json()["status"] == "NOOP", again.text


def test_a_finished_jobs_logs_come_from_cloudwatch_once_its_pod_is_gone(sandbox, cluster):
    _set(sandbox, True)
    pod = _finished_job(sandbox, "obs-on")
    live = _logs(sandbox, "obs-on", pod, tail=5)
    assert live["source"] == "kubernetes" and len(live["lines"]) == 5, live
    _delete_pod(sandbox, pod)

    gone = _logs(sandbox, "obs-on", pod, tail=5)

    assert (gone["retained"], gone["source"], gone["pod"], gone["container"]) == (True, "cloudwatch", pod, "pytorch")
    assert gone["lines"] == live["lines"]
    # Without ?pod, the job's first pod (its pods are named after it) is the one read back.
    with sandbox.client("viewer") as c:
        unnamed = c.get(f"/api/clusters/{NAME}/jobs/obs-on/logs", params={"tail": 5}).json()
    assert (unnamed["pod"], unnamed["lines"], unnamed["source"]) == (pod, live["lines"], "cloudwatch"), unnamed
    streams = [s["logStreamName"] for s in sandbox.aws("logs").describe_log_streams(logGroupName=GROUP)["logStreams"]]
    mine = [s for s in streams if f".containers.{pod}_default_pytorch-" in s]
    assert len(mine) == 1 and re.fullmatch(
        rf"[^ ]+-application\.var\.log\.containers\.{pod}_default_pytorch-[0-9a-f]{{64}}\.log", mine[0]
    ), streams
    # Lines written before observability ran were never shipped, so nothing came back for that pod.
    earlier = _logs(sandbox, "obs-off", "obs-off-pods-0")
    assert earlier["retained"] is False and "has no lines" in earlier["note"], earlier


def test_a_deleted_jobs_log_stays_readable_from_cloudwatch_and_an_unkept_one_is_not_found(sandbox, cluster):
    _set(sandbox, True)
    pod = _finished_job(sandbox, "obs-deleted")
    live = _logs(sandbox, "obs-deleted", pod, tail=3)
    with sandbox.client() as c:
        assert c.delete(f"/api/clusters/{NAME}/jobs/obs-deleted", params={"confirm": "obs-deleted"}).status_code == 200
        # obs-off ran before observability did: nothing of it was shipped.
        assert c.delete(f"/api/clusters/{NAME}/jobs/obs-off", params={"confirm": "obs-off"}).status_code == 200
    with sandbox.client("viewer") as c:
        assert c.get(f"/api/clusters/{NAME}/jobs/obs-deleted").status_code == 404
        # the job's object goes first, then its pods
        kept = wait_until(
            lambda: (
                (r := c.get(f"/api/clusters/{NAME}/jobs/obs-deleted/logs", params={"tail": 3})).status_code == 200 and r
            ),
            90,
            reason="the deleted job's logs were never read back",
        )
        unkept = c.get(f"/api/clusters/{NAME}/jobs/obs-off/logs")

    body = kept.json()
    assert (body["retained"], body["source"], body["pod"], body["lines"]) == (True, "cloudwatch", pod, live["lines"])
    assert "the job is deleted" in body["note"], body
    assert unkept.status_code == 404 and "observability" in unkept.json()["message"], unkept.text


def test_a_role_that_may_not_put_log_events_ships_nothing(sandbox, cluster):
    _set(sandbox, True)
    iam = sandbox.aws("iam")
    attached = [p["PolicyArn"] for p in iam.list_attached_role_policies(RoleName=ROLE)["AttachedPolicies"]]
    for arn in attached:
        iam.detach_role_policy(RoleName=ROLE, PolicyArn=arn)
    try:
        pod = _finished_job(sandbox, "obs-denied")
        _delete_pod(sandbox, pod)
        body = _logs(sandbox, "obs-denied", pod)
    finally:
        for arn in attached:
            iam.attach_role_policy(RoleName=ROLE, PolicyArn=arn)
    assert (body["retained"], body["lines"]) == (False, []), body
    streams = sandbox.aws("logs").describe_log_streams(logGroupName=GROUP)["logStreams"]
    assert not [s for s in streams if f".containers.{pod}_" in s["logStreamName"]]


def test_turning_observability_off_removes_its_add_on_and_role_and_keeps_the_log_group(sandbox, cluster):
    _set(sandbox, True)
    off = _patch(sandbox, False)
    assert off.status_code == 202, off.text
    assert [s["action"] for s in off.json()["operation"]["plan"]] == ["delete", "delete"]
    assert sandbox.wait_operation(off.json()["operation"]["id"], timeout=120)["status"] == "SUCCEEDED"

    assert ADDON not in sandbox.aws("eks").list_addons(clusterName=NAME)["addons"]
    assert ROLE not in sandbox.role_names()
    groups = sandbox.aws("logs").describe_log_groups(logGroupNamePrefix=GROUP)["logGroups"]
    assert [g["logGroupName"] for g in groups] == [GROUP]
    assert _patch(sandbox, False).json()["status"] == "NOOP"
