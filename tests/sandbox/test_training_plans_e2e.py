"""A cluster created on a training plan, through REST: a plan bought to start in half an hour, a cluster
provisioned with its GPU group on the plan, the group's instance there once the plan is Active; and a plan
in another zone refused by name before anything is made; the plan in use told once at a chat webhook as it
nears its end (plan-expiring)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.sandbox.aws.support import wait_until
from tests.sandbox.clusters import cluster_body
from tests.sandbox.watch_support import texts, watch, webhook

pytestmark = pytest.mark.e2e
NAME = "e2e-on-plan"


def _buy(sandbox, name: str, zone: str) -> dict:
    start = (datetime.now(UTC) + timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    search = {"instanceType": "ml.p5.48xlarge", "instanceCount": 1, "durationHours": 168, "startTimeAfter": start}
    with sandbox.client() as c:
        offers = c.get("/api/training-plans/offerings", params=search).json()["items"]
        offering = next(o for o in offers if o["availabilityZone"] == zone)
        body = {**search, "name": name, "offeringId": offering["offeringId"], "confirmPrice": offering["upfrontFee"]}
        bought = c.post("/api/training-plans", json=body)
    assert bought.status_code == 200 and bought.json()["status"] == "Scheduled", bought.text
    return dict(bought.json())


def test_a_cluster_created_on_a_plan_gets_its_instances_when_the_plan_starts(sandbox):
    plan = _buy(sandbox, "e2e-create-plan", "us-east-1a")
    elsewhere = _buy(sandbox, "e2e-create-plan-b", "us-east-1b")
    groups = [
        {"name": "system", "instanceType": "ml.m5.2xlarge", "instanceCount": 1},
        {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1, "trainingPlanArn": plan["arn"]},
    ]
    body = cluster_body(NAME, *groups)
    with sandbox.client() as c:
        wrong = [groups[0], {**groups[1], "trainingPlanArn": elsewhere["arn"]}]
        refused = c.post(
            "/api/clusters/provision", json={**body, "hyperpod": {**body["hyperpod"], "instanceGroups": wrong}}
        )
        assert refused.status_code == 422, refused.text
        assert refused.json()["details"][0]["field"] == "body.hyperpod.instanceGroups.1.trainingPlanArn"
        assert "us-east-1b" in refused.json()["message"]
        op = c.post("/api/clusters/provision", json=body).json()["operation"]["id"]
    assert sandbox.wait_operation(op, timeout=180)["status"] == "SUCCEEDED"
    with sandbox.client("viewer") as c:
        seen = c.get("/api/training-plans/e2e-create-plan").json()
        groups = {g["instanceGroup"]: g for g in c.get(f"/api/clusters/{NAME}/instance-groups").json()["items"]}
    assert (groups["gpu"]["status"], groups["gpu"]["currentCount"]) == ("InService", 1)
    assert groups["gpu"]["trainingPlanArn"] == plan["arn"]
    # the cluster became InService with its GPU node, which came when the plan started
    assert seen["status"] == "Active"
    assert [(u["instanceGroup"], u["currentCount"]) for u in seen["usage"]] == [("gpu", 1)]
    assert seen["usage"][0]["cluster"] and seen["inUseInstanceCount"] == 1

    # plan-expiring: the watcher tells a plan in use once per threshold, linking to the Capacity page. The plan
    # ends in about 168 hours; a run that asks for 200 hours before the end is within it, one for 24 is not.
    with webhook(sandbox, NAME, ["plan-expiring"]) as (receiver, path):
        assert NAME not in watch(sandbox, planExpiringHours=[24])["told"]
        assert watch(sandbox, planExpiringHours=[200])["told"][NAME] == {"plan-expiring": ["e2e-create-plan"]}
        subject = "*Training plan e2e-create-plan ends in "
        [text] = wait_until(lambda: texts(receiver, path, subject), reason="no plan-expiring message")
        assert "used by instance group(s) gpu of e2e-on-plan" in text and text.endswith(f"{sandbox.url}/capacity")
        assert NAME not in watch(sandbox, planExpiringHours=[200])["told"]  # told once for this threshold
        assert len(texts(receiver, path, subject)) == 1
