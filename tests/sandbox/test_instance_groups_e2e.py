"""Instance groups on a running cluster, through REST and the sandbox's HyperPod: add a Spot, EFA-only
group in its own /20, scale it, refuse a fixed field by name, keep the other group's every field across
updates, delete it with its subnet."""

from __future__ import annotations

import ipaddress
import re
from datetime import UTC, datetime, timedelta

import pytest
from launchpod.adapters.aws.instance_groups import spec_from_details

from tests.sandbox.clusters import cluster_body

pytestmark = pytest.mark.e2e
NAME = "e2e-groups"
BODY = cluster_body(
    NAME, {"name": "system", "instanceType": "ml.m5.2xlarge", "instanceCount": 1}, nodeProvisioningMode="Continuous"
)
SPOT = {
    "group": "spot-p5",
    "instanceType": "ml.p5.48xlarge",
    "instanceCount": 1,
    "capacityType": "spot",
    "efaOnly": True,
    "dedicatedSubnet": True,
    "labels": {"team": "nlp"},
    "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
}
GROUPS = f"/api/clusters/{NAME}/instance-groups"


@pytest.fixture(scope="module")
def cluster(sandbox):
    sandbox.provision(BODY)
    return NAME


def _system_spec(sandbox) -> dict:
    described = sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)
    return spec_from_details(next(g for g in described["InstanceGroups"] if g["InstanceGroupName"] == "system"))


def _groups(sandbox) -> dict[str, dict]:
    with sandbox.client("viewer") as c:
        return {g["instanceGroup"]: g for g in c.get(GROUPS).json()["items"]}


def test_add_scale_refuse_and_delete_a_spot_efa_only_group_in_its_own_subnet(sandbox, cluster):
    # continuous provisioning, asked for at create time, is kept by every later UpdateCluster
    assert sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)["NodeProvisioningMode"] == "Continuous"
    system_before = _system_spec(sandbox)
    with sandbox.client() as c:
        wrong = c.post(GROUPS, json={**SPOT, "instanceType": "ml.g5.8xlarge", "deepHealthChecks": []})
        assert wrong.status_code == 422 and wrong.json()["details"][0]["field"] == "body.efaOnly"
        assert "ml.p5.48xlarge" in wrong.json()["message"]
        op = c.post(GROUPS, json=SPOT).json()["operation"]["id"]
    added = sandbox.wait_operation(op)
    assert added["status"] == "SUCCEEDED", added
    group = _groups(sandbox)["spot-p5"]
    assert (group["capacityType"], group["nicMode"], group["status"]) == ("spot", "efa-only", "InService")
    assert group["dedicatedSubnet"] and group["availabilityZones"] == ["us-east-1a"] and group["currentCount"] == 1
    assert group["threadsPerCore"] == 1 and group["labels"] == {"team": "nlp"}
    ec2 = sandbox.aws("ec2")
    subnet = ec2.describe_subnets(SubnetIds=group["subnetIds"])["Subnets"][0]
    assert subnet["CidrBlock"].endswith("/20")
    others = [
        s["CidrBlock"]
        for s in ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [subnet["VpcId"]]}])["Subnets"]
    ]
    mine = ipaddress.ip_network(subnet["CidrBlock"])
    assert not any(mine.overlaps(ipaddress.ip_network(o)) for o in others if o != subnet["CidrBlock"])
    nodes = sandbox.aws("sagemaker").list_cluster_nodes(ClusterName=NAME, InstanceGroupNameContains="spot-p5")
    assert len(nodes["ClusterNodeSummaries"]) == 1

    with sandbox.client() as c:
        fixed = c.patch(f"{GROUPS}/spot-p5", json={"instanceCount": 2, "capacityType": "onDemand"})
        assert fixed.status_code == 422 and fixed.json()["details"][0]["field"] == "body.capacityType"
        assert "add a new instance group" in fixed.json()["message"]
        same = c.patch(f"{GROUPS}/spot-p5", json={"instanceCount": 1, "capacityType": "spot", "efaOnly": True})
        assert same.status_code == 200 and same.json()["status"] == "NOOP"
        op = c.patch(f"{GROUPS}/spot-p5", json={"instanceCount": 2}).json()["operation"]["id"]
    scaled = sandbox.wait_operation(op)
    assert scaled["status"] == "SUCCEEDED", scaled
    group = _groups(sandbox)["spot-p5"]
    assert (group["currentCount"], group["targetCount"], group["capacityType"]) == (2, 2, "spot")
    assert group["labels"] == {"team": "nlp"} and group["nicMode"] == "efa-only"
    assert _system_spec(sandbox) == system_before

    with sandbox.client() as c:
        unconfirmed = c.delete(f"{GROUPS}/spot-p5")
        assert unconfirmed.status_code == 422 and unconfirmed.json()["details"][0]["field"] == "query.confirm"
        op = c.delete(f"{GROUPS}/spot-p5", params={"confirm": "spot-p5"}).json()["operation"]["id"]
    deleted = sandbox.wait_operation(op)
    assert deleted["status"] == "SUCCEEDED", deleted
    assert sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)["NodeProvisioningMode"] == "Continuous"
    assert set(_groups(sandbox)) == {"system"}
    assert not ec2.describe_subnets(Filters=[{"Name": "subnet-id", "Values": [subnet["SubnetId"]]}])["Subnets"]
    assert _system_spec(sandbox) == system_before


def test_a_group_cannot_be_changed_that_does_not_exist_or_while_the_cluster_is_busy(sandbox, cluster):
    with sandbox.client() as c:
        missing = c.patch(f"{GROUPS}/nope", json={"instanceCount": 1})
        assert missing.status_code == 404 and "system" in missing.json()["message"]
        taken = c.post(GROUPS, json={**SPOT, "group": "system"})
        assert taken.status_code == 409 and "PATCH" in taken.json()["message"]
        elsewhere = c.post(
            GROUPS, json={**SPOT, "group": "b", "availabilityZone": "us-east-1b", "dedicatedSubnet": False}
        )
        assert elsewhere.status_code == 422 and "dedicatedSubnet" in elsewhere.json()["message"]
        op = c.patch(f"{GROUPS}/system", json={"instanceCount": 2}).json()["operation"]["id"]
        busy = c.patch(f"{GROUPS}/system", json={"labels": {"tier": "system"}})
        assert busy.status_code == 409, busy.json()
    assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"


def _capacity(sandbox, **body) -> dict:
    with sandbox.client() as c:
        response = c.post("/api/sandbox/capacity", json=body)
    response.raise_for_status()
    return response.json()


def test_training_plan_zone_wins_quota_shortfall_is_named_and_spot_can_run_short(sandbox, cluster):
    sm = sandbox.aws("sagemaker")
    offerings = sm.search_training_plan_offerings(
        InstanceType="ml.p5.48xlarge", InstanceCount=1, DurationHours=24, TargetResources=["hyperpod-cluster"]
    )["TrainingPlanOfferings"]
    offering = next(o for o in offerings if o["ReservedCapacityOfferings"][0]["AvailabilityZone"] == "us-east-1b")
    arn = sm.create_training_plan(
        TrainingPlanName="e2e-plan", TrainingPlanOfferingId=offering["TrainingPlanOfferingId"]
    )["TrainingPlanArn"]
    planned = {
        "group": "planned",
        "instanceType": "ml.p5.48xlarge",
        "instanceCount": 1,
        "capacityType": "trainingPlan",
        "trainingPlanArn": arn,
        "availabilityZone": "us-east-1a",
    }
    try:
        with sandbox.client() as c:
            accepted = c.post(GROUPS, json=planned)
            assert accepted.status_code == 202, accepted.json()
            notes = " ".join(accepted.json()["notes"])
            assert "us-east-1b wins over the us-east-1a" in notes and "dedicated /20 in us-east-1b" in notes
        assert sandbox.wait_operation(accepted.json()["operation"]["id"])["status"] == "SUCCEEDED"
        group = _groups(sandbox)["planned"]
        assert (group["capacityType"], group["availabilityZones"], group["trainingPlanStatus"]) == (
            "trainingPlan",
            ["us-east-1b"],
            "Active",
        )
        assert sm.describe_training_plan(TrainingPlanName="e2e-plan")["AvailableInstanceCount"] == 0
        with sandbox.client() as c:
            full = c.post(GROUPS, json={**planned, "group": "planned-2"})
            assert full.status_code == 422 and full.json()["details"][0]["field"] == "body.instanceCount"

            _capacity(sandbox, quotas={"ml.p5.48xlarge": 1})
            short = c.post(GROUPS, json={**SPOT, "group": "more", "instanceCount": 2})
            assert short.status_code == 409, short.json()
            message = short.json()["message"]
            assert "'ml.p5.48xlarge for cluster usage'" in message
            # the account's other clusters count too: the numbers follow from what they ask for
            found = re.search(r"ask for (\d+) and this needs 2 more\. Raise it by (\d+) \(to (\d+)\)", message)
            assert found, message
            used, by, to = map(int, found.groups())
            assert used >= 1 and to == used + 2 and by == to - 1

            _capacity(
                sandbox,
                clear=True,
                spotCapacity=[{"zone": "us-east-1a", "instanceType": "ml.p5.48xlarge", "available": 0}],
            )
            op = c.post(GROUPS, json={**SPOT, "group": "no-spot"}).json()["operation"]["id"]
        failed = sandbox.wait_operation(op)
        assert failed["status"] == "FAILED"
        # followed to HyperPod's terminal state through the request's cluster operation (Done, short of
        # its target), with the reason from the group's events since the call
        assert "Instance group no-spot stopped at 0/1 instances (Failed)." in failed["message"], failed["message"]
        assert "not enough Spot capacity" in failed["message"] and "Likely cause: capacity" in failed["message"]
        assert _groups(sandbox)["no-spot"]["status"] == "Failed"
        # the cluster's events, filtered by group, level and time, carry DescribeClusterEvent's failure message
        started = failed["createdAt"]
        with sandbox.client("viewer") as c:
            events = f"/api/clusters/{NAME}/events"
            errors = c.get(events, params={"instanceGroup": "no-spot", "level": "Error", "after": started}).json()
            earlier = c.get(events, params={"instanceGroup": "no-spot", "before": started}).json()["items"]
        assert errors["items"], errors
        assert {(e["instanceGroup"], e["level"]) for e in errors["items"]} == {("no-spot", "Error")}
        assert "not enough Spot capacity for ml.p5.48xlarge in us-east-1a" in errors["items"][0]["failureMessage"]
        assert earlier == []  # the group did not exist before the request
        [latest] = sm.list_cluster_operations(ClusterName=NAME, Type="Scaling", MaxResults=1)[
            "ClusterOperationSummaries"
        ]
        described = sm.describe_cluster_operation(ClusterName=NAME, OperationId=latest["OperationId"])
        [detail] = described["ScalingDetails"]
        assert (described["Status"], detail["InstanceGroupName"], detail["Desired"]["TargetCount"]) == (
            "Done",
            "no-spot",
            1,
        )
    finally:
        _capacity(sandbox, clear=True)
    for group in ("no-spot", "planned"):
        with sandbox.client() as c:
            op = c.delete(f"{GROUPS}/{group}", params={"confirm": group}).json()["operation"]["id"]
        assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"


def test_a_training_plan_searched_bought_once_at_its_price_used_by_a_group_and_extended(sandbox, cluster):
    """REST end to end: search, a dry run that shows the price, a purchase that needs it, the same purchase
    again (one plan), the plan Scheduled with a group waiting on it whose instance comes when the plan turns
    Active on the sandbox clock, and an extension bought once."""
    start = (datetime.now(UTC) + timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    search = {"instanceType": "ml.p5.48xlarge", "instanceCount": 1, "durationHours": 168, "startTimeAfter": start}
    with sandbox.client("viewer") as c:
        found = c.get("/api/training-plans/offerings", params=search)
    assert found.status_code == 200, found.text
    offering = next(o for o in found.json()["items"] if o["availabilityZone"] == "us-east-1a")
    begins = datetime.fromisoformat(offering["startTime"].replace("Z", "+00:00"))
    asked = datetime.fromisoformat(start.replace("Z", "+00:00"))
    assert asked <= begins < asked + timedelta(minutes=1) and offering["durationHours"] == 168
    fee = offering["upfrontFee"]
    assert float(fee) > 0 and offering["currencyCode"] == "USD"
    buy = {**search, "name": "e2e-rest-plan", "offeringId": offering["offeringId"], "confirmPrice": fee}
    with sandbox.client() as c:
        dry = c.post("/api/training-plans", params={"dryRun": "true"}, json=buy)
        assert dry.status_code == 200 and f"{fee} USD" in dry.json()["steps"][0]["reason"], dry.text
        assert c.get("/api/training-plans/e2e-rest-plan").status_code == 404  # the dry run bought nothing
        cheap = c.post("/api/training-plans", json={**buy, "confirmPrice": "1"})
        assert cheap.status_code == 422 and fee in cheap.json()["message"]
        bought = c.post("/api/training-plans", json=buy)
        assert bought.status_code == 200, bought.text
        assert (bought.json()["status"], bought.json()["upfrontFee"]) == ("Scheduled", fee)
        again = c.post("/api/training-plans", json=buy)
        assert again.status_code == 200 and again.json()["status"] == "NOOP"
        plans = [p for p in c.get("/api/training-plans").json()["items"] if p["name"] == "e2e-rest-plan"]
        assert len(plans) == 1

        group = {
            "group": "on-plan",
            "instanceType": "ml.p5.48xlarge",
            "instanceCount": 1,
            "capacityType": "trainingPlan",
            "trainingPlanArn": bought.json()["arn"],
        }
        accepted = c.post(GROUPS, json=group)
        assert accepted.status_code == 202, accepted.text
        assert any("is Scheduled" in w and start[:10] in w for w in accepted.json()["warnings"]), accepted.json()
    assert sandbox.wait_operation(accepted.json()["operation"]["id"])["status"] == "SUCCEEDED"

    def plan() -> dict:
        with sandbox.client("viewer") as c:
            return c.get("/api/training-plans/e2e-rest-plan").json()

    # the group's instance came when the plan started: the add finished only once the plan was Active
    used = plan()
    assert used["status"] == "Active"
    assert [(u["cluster"], u["instanceGroup"], u["targetCount"], u["currentCount"]) for u in used["usage"]] == [
        (NAME, "on-plan", 1, 1)
    ]
    assert (used["inUseInstanceCount"], used["availableInstanceCount"]) == (1, 0)

    with sandbox.client() as c:
        offers = c.get("/api/training-plans/e2e-rest-plan/extension-offerings").json()["items"]
        day = next(o for o in offers if o["durationHours"] == 24)
        extend = {"offeringId": day["offeringId"], "confirmPrice": day["upfrontFee"]}
        extended = c.post("/api/training-plans/e2e-rest-plan/extensions", json=extend)
        assert extended.status_code == 200 and extended.json()["endTime"] == day["endDate"], extended.text
        twice = c.post("/api/training-plans/e2e-rest-plan/extensions", json=extend)
        assert twice.json()["status"] == "NOOP"
        op = c.delete(f"{GROUPS}/on-plan", params={"confirm": "on-plan"}).json()["operation"]["id"]
    assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"


def test_creating_hyperpod_over_the_quota_is_refused_before_anything_is_made(sandbox):
    """The preflight holds at create time too: CreateCluster would fail on the same quota, minutes later."""
    instance_type = "ml.g6.12xlarge"
    group = {"name": "gpu", "instanceType": instance_type, "instanceCount": 3}
    with sandbox.client() as c:
        assert c.post("/api/sandbox/capacity", json={"quotas": {instance_type: 2}}).status_code == 200
        try:
            hyperpod = {"availabilityZone": "us-east-1a", "instanceGroups": [group]}
            direct = c.post("/api/clusters/quota-short/hyperpod", json=hyperpod)
            provision = c.post(
                "/api/clusters/provision",
                json={
                    "name": "quota-short",
                    "availabilityZones": ["us-east-1a", "us-east-1b"],
                    "hyperpod": hyperpod,
                },
            )
        finally:
            c.post("/api/sandbox/capacity", json={"quotas": {instance_type: None}})
    for answer in (direct, provision):
        assert answer.status_code == 409, answer.text
        message = answer.json()["message"]
        assert f"'{instance_type} for cluster usage'" in message and "Raise it by 1 (to 3)" in message
    with sandbox.client("viewer") as c:
        assert c.get("/api/clusters/quota-short").status_code == 404  # nothing was created


def test_every_changeable_field_changes_by_patch_and_a_type_the_zone_lacks_is_refused(sandbox, cluster):
    """Labels, taints, deep health checks and the scheduled update change in one PATCH that leaves the
    rest of the group and the other group as they were; scaling past the quota and a type the zone does
    not offer are refused before anything starts."""
    with sandbox.client("viewer") as c:
        catalog = c.get("/api/catalog/instance-types").json()["items"]
    elsewhere = next(
        t["instanceType"] for t in catalog if t["availabilityZones"] and "us-east-1a" not in t["availabilityZones"]
    )
    tuned = {
        "group": "tuned",
        "instanceType": "ml.g5.8xlarge",
        "instanceCount": 0,
        "ebsVolumeGb": 200,
        "deepHealthChecks": ["InstanceStress"],
        "labels": {"team": "cv"},
    }
    system_before = _system_spec(sandbox)
    with sandbox.client() as c:
        lacking = c.post(GROUPS, json={**tuned, "instanceType": elsewhere})
        assert lacking.status_code == 422 and lacking.json()["details"][0]["field"] == "body.instanceType"
        assert f"{elsewhere} is not offered in us-east-1a; offered in" in lacking.json()["message"]
        added = c.post(GROUPS, json=tuned)
        assert added.status_code == 202, added.json()
        assert "threadsPerCore 2, the default for ml.g5.8xlarge." in added.json()["notes"]
    assert sandbox.wait_operation(added.json()["operation"]["id"])["status"] == "SUCCEEDED"
    group = _groups(sandbox)["tuned"]
    assert (group["ebsVolumeGb"], group["threadsPerCore"], group["deepHealthChecks"]) == (200, 2, ["InstanceStress"])
    assert (group["capacityType"], group["nicMode"], group["dedicatedSubnet"]) == ("onDemand", "efa", False)
    assert group["targetCount"] == 0 and group["scheduledUpdate"] is None and group["taints"] == []

    change = {
        "labels": {"team": "cv", "tier": "batch"},
        "taints": [{"key": "dedicated", "value": "cv", "effect": "NoSchedule"}],
        "deepHealthChecks": ["InstanceStress", "InstanceConnectivity"],
        "scheduledUpdate": "cron(0 3 ? * SUN *)",
    }
    with sandbox.client() as c:
        op = c.patch(f"{GROUPS}/tuned", json=change)
        assert op.status_code == 202, op.json()
        assert sandbox.wait_operation(op.json()["operation"]["id"])["status"] == "SUCCEEDED"
        assert c.patch(f"{GROUPS}/tuned", json=change).json()["status"] == "NOOP"
    group = _groups(sandbox)["tuned"]
    assert group["labels"] == change["labels"] and group["taints"] == change["taints"]
    assert group["deepHealthChecks"] == change["deepHealthChecks"]
    assert group["scheduledUpdate"] == change["scheduledUpdate"]
    assert (group["ebsVolumeGb"], group["threadsPerCore"], group["targetCount"]) == (200, 2, 0)
    assert _system_spec(sandbox) == system_before

    try:
        _capacity(sandbox, quotas={"ml.g5.8xlarge": 1})
        with sandbox.client() as c:
            over = c.patch(f"{GROUPS}/tuned", json={"instanceCount": 2})
        assert over.status_code == 409, over.json()
        assert "'ml.g5.8xlarge for cluster usage'" in over.json()["message"]
        assert re.search(r"this needs 2 more\. Raise it by \d+", over.json()["message"]), over.json()["message"]
    finally:
        _capacity(sandbox, clear=True)
    assert _groups(sandbox)["tuned"]["targetCount"] == 0  # nothing was started
    with sandbox.client() as c:
        op = c.delete(f"{GROUPS}/tuned", params={"confirm": "tuned"}).json()["operation"]["id"]
    assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"


def test_a_flexible_group_falls_back_to_its_second_type_and_shows_its_minimum_and_patch_schedule(sandbox, cluster):
    """Issue 33's done-when: a flexible group whose first type has no capacity in the zone (the sandbox's
    instanceCapacity fault) gets its instances of the second type; each node says the type it got, and the
    group shows its minimum, its patching with HyperPod's next patch date, and its release version."""
    first, second = "ml.g5.8xlarge", "ml.g5.12xlarge"
    flexible = {
        "group": "flex",
        "instanceTypes": [first, second],
        "instanceCount": 2,
        "minInstanceCount": 1,
        "autoPatch": {"strategy": "WhenIdle", "idleWaitWindowSeconds": 7200},
        "imageReleaseVersion": "1.2.3",
    }
    try:
        _capacity(sandbox, instanceCapacity=[{"zone": "us-east-1a", "instanceType": first, "available": 0}])
        with sandbox.client() as c:
            planned = c.post(GROUPS, json=flexible, params={"dryRun": "true"})
            assert planned.status_code == 200, planned.json()
            assert f"2 x {first} or else {second} in us-east-1a" in planned.json()["steps"][0]["reason"]
            accepted = c.post(GROUPS, json=flexible)
            assert accepted.status_code == 202, accepted.json()
        assert sandbox.wait_operation(accepted.json()["operation"]["id"])["status"] == "SUCCEEDED"
    finally:
        _capacity(sandbox, clear=True)
    group = _groups(sandbox)["flex"]
    assert (group["instanceType"], group["instanceTypes"]) == (None, [first, second])
    assert group["typeCounts"] == {first: 0, second: 2} and group["status"] == "InService"
    assert (group["minInstanceCount"], group["imageReleaseVersion"]) == (1, "1.2.3")
    patch = group["autoPatch"]
    assert (patch["strategy"], patch["idleWaitWindowSeconds"]) == ("WhenIdle", 7200)
    assert datetime.fromisoformat(patch["nextPatchDate"]) > datetime.now(UTC)
    with sandbox.client("viewer") as c:
        nodes = [n for n in c.get(f"/api/clusters/{NAME}/nodes").json()["items"] if n["instanceGroup"] == "flex"]
        events = c.get(f"/api/clusters/{NAME}/events", params={"instanceGroup": "flex"}).json()["items"]
    assert [n["instanceType"] for n in nodes] == [second, second]
    assert any(f"Insufficient capacity for {first} in us-east-1a" in e["description"] for e in events), events
    with sandbox.client() as c:
        assert c.post(GROUPS, json=flexible).json()["status"] == "NOOP"
        op = c.delete(f"{GROUPS}/flex", params={"confirm": "flex"}).json()["operation"]["id"]
    assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"
