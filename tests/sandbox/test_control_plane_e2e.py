"""create-control-plane end to end through the sandbox's REST API, as a user drives it."""

from __future__ import annotations

import json
import threading

import pytest

from tests.sandbox.clusters import ZONES, their_vpc

pytestmark = pytest.mark.e2e


def _create(sandbox, name: str, role: str = "admin", **extra):
    with sandbox.client(role) as c:
        return c.post("/api/clusters", json={"name": name, "availabilityZones": ZONES, **extra})


def test_create_cluster_reaches_succeeded_with_every_phase_and_an_active_cluster(sandbox):
    response = _create(sandbox, "e2e-happy")
    assert response.status_code == 202
    accepted = response.json()
    assert accepted["statusUrl"] == f"/api/operations/{accepted['operation']['id']}"
    assert accepted["statusTool"] == "get_operation"

    final = sandbox.wait_operation(accepted["operation"]["id"])

    assert final["status"] == "SUCCEEDED", final
    names = [p["name"] for p in final["phases"]]
    assert names == [
        "Network",
        "ClusterRole",
        "CreateCluster",
        "WaitActive",
        "OidcProvider",
        "AccessEntry",
        "CoreAddons",
        "VerifyAccess",
    ]
    for phase in final["phases"]:
        assert phase["status"] == "SUCCEEDED", phase
        assert phase["startedAt"] and phase["endedAt"] and phase["attempts"] >= 1 and phase["message"]
    # create-control-plane makes no nodes: coredns (a Deployment) waits for them, and that is no failure
    core = next(p for p in final["phases"] if p["name"] == "CoreAddons")
    assert "coredns" in core["message"] and "waits for nodes" in core["message"], core
    eks = sandbox.aws("eks")
    cluster = eks.describe_cluster(name="e2e-happy")["cluster"]
    assert cluster["status"] == "ACTIVE"
    assert cluster["version"] == "1.34"  # the newest HyperPod supports in EKS standard support
    assert cluster["accessConfig"]["authenticationMode"] == "API_AND_CONFIG_MAP"
    assert sorted(eks.list_addons(clusterName="e2e-happy")["addons"]) == [
        "coredns",
        "eks-pod-identity-agent",
        "kube-proxy",
        "vpc-cni",
    ]
    for addon in ("vpc-cni", "kube-proxy", "eks-pod-identity-agent"):  # DaemonSets: ACTIVE with no nodes
        assert eks.describe_addon(clusterName="e2e-happy", addonName=addon)["addon"]["status"] == "ACTIVE"
    coredns = eks.describe_addon(clusterName="e2e-happy", addonName="coredns")["addon"]
    assert coredns["status"] == "DEGRADED"
    assert [i["code"] for i in coredns["health"]["issues"]] == ["InsufficientNumberOfReplicas"]
    entries = eks.list_access_entries(clusterName="e2e-happy")["accessEntries"]
    kube_role = next(e for e in entries if e.endswith("role/launchpod-kube-access"))
    policies = eks.list_associated_access_policies(clusterName="e2e-happy", principalArn=kube_role)
    assert [p["policyArn"].rsplit("/", 1)[-1] for p in policies["associatedAccessPolicies"]] == [
        "AmazonEKSClusterAdminPolicy"
    ]
    with sandbox.client("viewer") as c:
        view = c.get("/api/clusters/e2e-happy").json()
    assert view["eks"]["status"] == "ACTIVE" and view["eks"]["addons"]["vpc-cni"] == "ACTIVE"
    assert view["activeOperationId"] is None


def test_same_post_twice_gives_one_operation_and_another_mutation_gets_409(sandbox):
    first = _create(sandbox, "e2e-twice")
    second = _create(sandbox, "e2e-twice")
    assert first.status_code == second.status_code == 202
    op_id = first.json()["operation"]["id"]
    assert second.json()["operation"]["id"] == op_id

    different = _create(sandbox, "e2e-twice", logging=["api"])
    assert different.status_code == 409
    assert op_id in different.json()["message"]

    assert sandbox.wait_operation(op_id)["status"] == "SUCCEEDED"
    with sandbox.client("viewer") as c:
        ops = c.get("/api/operations", params={"cluster": "e2e-twice"}).json()["items"]
    assert [o["id"] for o in ops] == [op_id]
    again = _create(sandbox, "e2e-twice")
    assert again.status_code == 200 and again.json()["status"] == "NOOP"


def test_idempotency_key_returns_the_first_operation(sandbox):
    with sandbox.client() as c:
        body = {"name": "e2e-idem", "availabilityZones": ZONES}
        first = c.post("/api/clusters", json=body, headers={"Idempotency-Key": "k-1"})
        replay = c.post("/api/clusters", json=body, headers={"Idempotency-Key": "k-1"})
        reused = c.post("/api/clusters", json={**body, "logging": ["api"]}, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == replay.status_code == 202
    assert replay.json()["operation"]["id"] == first.json()["operation"]["id"]
    assert reused.status_code == 422 and reused.json()["details"][0]["field"] == "header.Idempotency-Key"
    sandbox.wait_operation(first.json()["operation"]["id"])


def test_injected_eks_failure_fails_with_its_message_and_retry_succeeds_with_one_create(sandbox):
    before = sandbox.faults()["completedCalls"].get("eks:CreateCluster", 0)
    sandbox.faults(failNextEksCreate=True)
    op_id = _create(sandbox, "e2e-retry").json()["operation"]["id"]

    failed = sandbox.wait_operation(op_id)
    assert failed["status"] == "FAILED"
    assert failed["error"] == "UnsupportedAvailabilityZoneException"
    assert "does not currently have sufficient capacity" in failed["message"]
    phase = next(p for p in failed["phases"] if p["name"] == "CreateCluster")
    assert phase["status"] == "FAILED" and "sufficient capacity" in phase["message"]
    assert [p["status"] for p in failed["phases"][:2]] == ["SUCCEEDED", "SUCCEEDED"]

    with sandbox.client("viewer") as c:
        assert c.post(f"/api/operations/{op_id}/retry").status_code == 403
    with sandbox.client() as c:
        assert c.post(f"/api/operations/{op_id}/retry").status_code == 202
    done = sandbox.wait_operation(op_id)

    assert done["status"] == "SUCCEEDED" and done["attempt"] == 2
    assert sandbox.faults()["completedCalls"].get("eks:CreateCluster", 0) - before == 1
    network = next(p for p in done["phases"] if p["name"] == "Network")
    assert network["attempts"] == 1  # resumed: the network was not built twice


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"cluster": "bad_name", "availabilityZones": ZONES}, "body.cluster", "no underscores"),
        (
            {"cluster": "good-name", "availabilityZones": ["us-east-1a", "us-east-1q"]},
            "body.availabilityZones.1",
            "not an availability zone",
        ),
        ({"cluster": "good-name", "availabilityZones": ["us-east-1a"]}, "body.availabilityZones", "at least 2"),
        ({"cluster": "good-name", "availabilityZones": ZONES, "color": "red"}, "body.color", "not a field"),
        (
            {"cluster": "good-name", "availabilityZones": ZONES, "kubernetesVersion": "1.32"},
            "body.kubernetesVersion",
            "supported versions: 1.34",
        ),
    ],
)
def test_bad_input_is_422_naming_the_field(sandbox, body, field, words):
    with sandbox.client() as c:
        response = c.post("/api/clusters", json=body)
    assert response.status_code == 422
    error = response.json()
    assert error["code"] == "VALIDATION_FAILED"
    assert error["details"][0]["field"] == field
    assert words in error["details"][0]["message"]
    assert "Traceback" not in response.text


def test_roles_and_tokens_are_enforced(sandbox):
    with sandbox.client(None) as c:
        assert c.get("/api/clusters").status_code == 401
        assert c.get("/api/clusters", headers={"Authorization": "Bearer nope"}).status_code == 401
        assert c.get("/api/health").status_code == 200
    assert _create(sandbox, "e2e-roles", role="viewer").status_code == 403
    assert _create(sandbox, "e2e-roles", role="operator").status_code == 403
    with sandbox.client("viewer") as c:
        missing = c.get("/api/clusters/no-such-cluster")
    assert missing.status_code == 404 and "no-such-cluster" in missing.json()["message"]


def test_websocket_subscriber_receives_every_phase_transition(sandbox):
    from websockets.sync.client import connect

    op_id = _create(sandbox, "e2e-stream").json()["operation"]["id"]
    seen: list[dict] = []
    ws_url = sandbox.url.replace("http://", "ws://") + f"/ws?token={sandbox.tokens['viewer']}"
    with connect(ws_url) as ws:
        ws.send(json.dumps({"action": "subscribe", "topics": [f"operation:{op_id}"]}))
        done = threading.Event()
        while not done.is_set():
            message = json.loads(ws.recv(timeout=60))
            if message.get("type") == "operation":
                seen.append(message["data"])
                done.set() if message["data"]["status"] in ("SUCCEEDED", "FAILED") else None
    assert seen[-1]["status"] == "SUCCEEDED"
    # The operation starts before the subscription: the first message (the snapshot a new subscriber
    # gets) may already show early phases finished. Every phase still to finish then must be pushed
    # both RUNNING and SUCCEEDED; a push lost later would fail here.
    finished_before = {p["name"] for p in seen[0]["phases"] if p["status"] in ("SUCCEEDED", "SKIPPED")}
    transitions = {(p["name"], p["status"]) for view in seen for p in view["phases"]}
    for name in [p["name"] for p in seen[-1]["phases"]]:
        assert (name, "SUCCEEDED") in transitions
        assert (name, "RUNNING") in transitions or name in finished_before, name
    assert len(finished_before) < len(seen[-1]["phases"]), "subscribed too late to see any transition"


def test_websocket_refuses_a_connection_without_token(sandbox):
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    base = sandbox.url.replace("http://", "ws://") + "/ws"
    for url in (base, base + "?token=not-a-token"):
        with pytest.raises(InvalidStatus) as refused:
            connect(url).close()
        assert refused.value.response.status_code == 403


def test_throttling_a_fifth_of_aws_calls_still_ends_every_operation_correctly(sandbox):
    sandbox.faults(throttle=0.2)
    try:
        ids = [_create(sandbox, f"e2e-throttle-{i}").json()["operation"]["id"] for i in range(3)]
        finals = [sandbox.wait_operation(i, timeout=180) for i in ids]
        throttled = sandbox.faults()["throttledCalls"]
    finally:
        sandbox.faults(throttle=0.0)
    assert throttled > 0
    assert [f["status"] for f in finals] == ["SUCCEEDED"] * 3, [f.get("message") for f in finals]
    eks = sandbox.aws("eks")
    for i in range(3):
        assert eks.describe_cluster(name=f"e2e-throttle-{i}")["cluster"]["status"] == "ACTIVE"


def test_an_existing_vpc_is_checked_and_reused(sandbox):
    ec2 = sandbox.aws("ec2")
    vpc, subnets = their_vpc(sandbox, "10.50")
    with sandbox.client() as c:
        one_zone = c.post(
            "/api/clusters",
            json={
                "name": "e2e-reuse-bad",
                "availabilityZones": ZONES,
                "network": {"vpcId": vpc, "subnetIds": [subnets[0]]},
            },
        )
        op = c.post(
            "/api/clusters",
            json={"name": "e2e-reuse", "availabilityZones": ZONES, "network": {"vpcId": vpc, "subnetIds": subnets}},
        ).json()["operation"]["id"]
    assert one_zone.status_code == 422 and "two distinct" in one_zone.json()["message"]
    done = sandbox.wait_operation(op)
    assert done["status"] == "SUCCEEDED", done
    network = done["phases"][0]
    assert network["status"] == "SUCCEEDED" and f"Reusing {vpc}" in network["message"]
    vpc_config = sandbox.aws("eks").describe_cluster(name="e2e-reuse")["cluster"]["resourcesVpcConfig"]
    assert sorted(vpc_config["subnetIds"]) == sorted(subnets)
    # The reused VPC gets the security group the control plane shares with HyperPod's nodes.
    (group,) = ec2.describe_security_groups(GroupIds=vpc_config["securityGroupIds"])["SecurityGroups"]
    assert group["VpcId"] == vpc
    assert any(p["IpProtocol"] == "-1" and p["UserIdGroupPairs"] for p in group["IpPermissions"])


def test_cancel_stops_the_workflow_and_a_retry_finishes_it(sandbox):
    op_id = _create(sandbox, "e2e-cancel").json()["operation"]["id"]
    with sandbox.client("viewer") as c:
        assert c.post(f"/api/operations/{op_id}/cancel", json={}).status_code == 403
    with sandbox.client() as c:
        cancelled = c.post(f"/api/operations/{op_id}/cancel", json={"reason": "wrong zones"})
    assert cancelled.status_code == 200
    view = cancelled.json()
    assert view["status"] == "CANCELLED" and "wrong zones" in view["message"]
    assert any(p["status"] == "CANCELLED" for p in view["phases"])
    with sandbox.client() as c:
        assert c.post(f"/api/operations/{op_id}/cancel", json={}).status_code == 409
        assert c.post(f"/api/operations/{op_id}/retry").status_code == 202
    assert sandbox.wait_operation(op_id)["status"] == "SUCCEEDED"
    # The cancelled attempt's invocation may have gone on beside the retry: nothing is made twice.
    ours = [{"Name": "tag:launchpod:cluster", "Values": ["e2e-cancel"]}]
    ec2 = sandbox.aws("ec2")
    assert len(ec2.describe_vpcs(Filters=ours)["Vpcs"]) == 1
    assert len(ec2.describe_nat_gateways(Filters=ours)["NatGateways"]) == 1


def test_the_active_cluster_is_a_per_user_preference(sandbox):
    assert sandbox.wait_operation(_create(sandbox, "e2e-pref").json()["operation"]["id"])["status"] == "SUCCEEDED"
    with sandbox.client("viewer") as viewer, sandbox.client("operator") as operator:
        assert viewer.get("/api/preferences").json()["activeCluster"] is None
        assert viewer.put("/api/preferences", json={"activeCluster": "no-such"}).status_code == 404
        assert viewer.put("/api/preferences", json={"activeCluster": "e2e-pref"}).json()["activeCluster"] == "e2e-pref"
        assert viewer.get("/api/preferences").json()["activeCluster"] == "e2e-pref"
        assert operator.get("/api/preferences").json()["activeCluster"] is None
