"""Cluster lifecycle through the sandbox: dependencies from the pinned manifest, then HyperPod on
the control plane, with a capacity failure resumed by retry."""

from __future__ import annotations

import json
import time

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until

pytestmark = pytest.mark.e2e
NAME = "e2e-life"
STATE_RULE = "launchpod-hyper-pod-cluster-state"
GPU_GROUP = {
    "name": "gpu",
    "instanceType": "ml.p5en.48xlarge",
    "instanceCount": 2,
    "deepHealthChecks": ["InstanceStress"],
}


@pytest.fixture(scope="module")
def control_plane(sandbox):
    sandbox.create_control_plane(NAME)
    return NAME


@pytest.fixture
def with_nodes(sandbox, control_plane):
    """The control plane with HyperPod nodes to run its controllers on. The module's tests give it two
    (the capacity test); run alone, a test that needs them makes a one-node cluster here."""
    sagemaker = sandbox.aws("sagemaker")
    try:
        sagemaker.describe_cluster(ClusterName=control_plane)
    except sagemaker.exceptions.ResourceNotFound:
        sandbox.install_dependencies(control_plane)
        body = {"availabilityZone": "us-east-1a", "instanceGroups": [{**GPU_GROUP, "instanceCount": 1}]}
        with sandbox.client() as c:
            op = c.post(f"/api/clusters/{control_plane}/hyperpod", json=body).json()["operation"]["id"]
        assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"
    return control_plane


def _kube(sandbox, cluster: str) -> k8s.ApiClient:
    return sandbox.kube(cluster)


def test_hyperpod_needs_an_active_control_plane(sandbox):
    with sandbox.client() as c:
        response = c.post(
            "/api/clusters/no-control-plane/hyperpod",
            json={"availabilityZone": "us-east-1a", "instanceGroups": [GPU_GROUP]},
        )
    assert response.status_code == 409 and "create it first" in response.json()["message"]
    assert {"field": None, "rule": "next_step", "message": "POST /api/clusters"} in response.json()["details"]


def test_dependencies_reconcile_to_the_pinned_versions(sandbox, control_plane):
    with sandbox.client() as c:
        before = {d["name"]: d for d in c.get(f"/api/clusters/{control_plane}/dependencies").json()["items"]}
        op = c.post(f"/api/clusters/{control_plane}/dependencies", json={}).json()["operation"]["id"]
    assert before["cert-manager"]["state"] == "NOT_INSTALLED"
    done = sandbox.wait_operation(op)
    assert done["status"] == "SUCCEEDED", done
    assert [p["status"] for p in done["phases"]] == ["SUCCEEDED", "SUCCEEDED"]
    with sandbox.client("viewer") as c:
        after = {d["name"]: d for d in c.get(f"/api/clusters/{control_plane}/dependencies").json()["items"]}
    for row in after.values():
        if row["required"]:
            assert row["installed"] == row["pinned"] and not row["drift"], row
        else:
            assert row["state"] == "NOT_INSTALLED", row
    # the cluster has no nodes yet: the Deployment add-ons wait for them, which is no failure
    addons_phase = done["phases"][0]
    for name in ("cert-manager", "metrics-server", "aws-mountpoint-s3-csi-driver"):
        assert after[name]["state"] == "DEGRADED" and "waits for nodes" in after[name]["note"], after[name]
        assert f"{name} {after[name]['pinned']} waits for nodes" in addons_phase["message"], addons_phase
    apps = k8s.AppsV1Api(_kube(sandbox, control_plane))
    plugin = apps.read_namespaced_daemon_set("nvidia-device-plugin", "kube-system")
    assert plugin.metadata.labels["app.kubernetes.io/version"] == after["nvidia-device-plugin"]["pinned"]


def _wake_ups(sandbox, execution_name: str) -> list[str]:
    """What woke create-hyperpod's AwaitInService in one execution: "event" (HyperPod's state-change
    event) or "check" (AwaitInService found HyperPod settled itself); its fallback timeout leaves none."""
    sfn = sandbox.aws("stepfunctions")
    arn = f"arn:aws:states:us-east-1:123456789012:execution:launchpod-create-hyperpod:{execution_name}"
    events = sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]
    outputs = [e["taskSucceededEventDetails"].get("output", "") for e in events if "taskSucceededEventDetails" in e]
    return [json.loads(o)["wokenBy"] for o in outputs if '"wokenBy"' in o]


def _cluster_pushes(sandbox, cluster: str, until) -> list[dict]:
    """What a console subscribed to the cluster's topic is pushed while ``until()`` runs."""
    from websockets.sync.client import connect

    pushes: list[dict] = []
    ws_url = sandbox.url.replace("http://", "ws://") + f"/ws?token={sandbox.tokens['viewer']}"
    with connect(ws_url) as ws:
        ws.send(json.dumps({"action": "subscribe", "topics": [f"cluster:{cluster}"]}))
        result = until()
        deadline = time.monotonic() + 60
        while not any(p.get("hyperpodStatus") == "InService" for p in pushes) and time.monotonic() < deadline:
            try:
                message = json.loads(ws.recv(timeout=1))
            except TimeoutError:
                continue
            if message.get("type") == "cluster":
                pushes.append(message["data"])
    return [result, *pushes]


def test_hyperpod_capacity_failure_then_retry_reaches_in_service_with_nodes(sandbox, control_plane):
    sandbox.faults(failNextHyperPodCreate="capacity")
    # HyperPod's state-change events are lost (the rule is disabled): the workflow still learns of
    # the failure, from its fallback poll.
    sandbox.aws("events").disable_rule(Name=STATE_RULE)
    sandbox.install_dependencies(control_plane)  # AWS asks for them before CreateCluster
    body = {"availabilityZone": "us-east-1a", "instanceGroups": [GPU_GROUP]}
    with sandbox.client() as c:
        op = c.post(f"/api/clusters/{control_plane}/hyperpod", json=body).json()["operation"]["id"]
    failed = sandbox.wait_operation(op)
    assert failed["status"] == "FAILED"
    assert "sufficient capacity" in failed["message"] and "Likely cause: capacity" in failed["message"]
    assert "event" not in _wake_ups(sandbox, op)

    sandbox.aws("events").enable_rule(Name=STATE_RULE)

    def retry() -> dict:
        with sandbox.client() as c:
            assert c.post(f"/api/operations/{op}/retry").status_code == 202
        return sandbox.wait_operation(op)

    done, *pushes = _cluster_pushes(sandbox, control_plane, retry)
    assert done["status"] == "SUCCEEDED", done
    assert next(p for p in done["phases"] if p["name"] == "ComputeSubnet")["attempts"] == 1
    # HyperPod's events reached Launchpod and every console watching the cluster.
    assert [p["hyperpodStatus"] for p in pushes][-1] == "InService", pushes

    sagemaker = sandbox.aws("sagemaker")
    cluster = sagemaker.describe_cluster(ClusterName=control_plane)
    assert cluster["ClusterStatus"] == "InService" and cluster["NodeRecovery"] == "Automatic"
    assert cluster["Orchestrator"]["Eks"]["ClusterArn"].endswith(f":cluster/{control_plane}")
    group = cluster["InstanceGroups"][0]
    assert group["OnStartDeepHealthChecks"] == ["InstanceStress"] and group["CurrentCount"] == 2
    subnet = cluster["VpcConfig"]["Subnets"][0]
    ec2 = sandbox.aws("ec2")
    assert ec2.describe_subnets(SubnetIds=[subnet])["Subnets"][0]["CidrBlock"].endswith("/20")

    nodes = (
        k8s.CoreV1Api(_kube(sandbox, control_plane))
        .list_node(label_selector="sagemaker.amazonaws.com/compute-type=hyperpod")
        .items
    )
    assert len(nodes) == 2
    assert {n.metadata.labels["node.kubernetes.io/instance-type"] for n in nodes} == {"ml.p5en.48xlarge"}
    with sandbox.client("viewer") as c:
        view = c.get(f"/api/clusters/{control_plane}").json()
        dependencies = {d["name"]: d for d in c.get(f"/api/clusters/{control_plane}/dependencies").json()["items"]}
    assert view["hyperpod"]["status"] == "InService" and view["hyperpod"]["nodeRecovery"] == "Automatic"
    # with nodes to run on, the Deployment add-ons are ACTIVE
    assert view["eks"]["addons"]["coredns"] == "ACTIVE"
    assert dependencies["cert-manager"]["state"] == "ACTIVE" and dependencies["cert-manager"]["note"] is None


def test_software_update_rolls_in_batches_to_in_service(sandbox, control_plane):
    body = {"maxBatchSize": {"type": "INSTANCE_COUNT", "value": 1}, "waitIntervalSeconds": 0}
    with sandbox.client() as c:
        unknown = c.post("/api/clusters/no-such/software-update", json=body)
        op = c.post(f"/api/clusters/{control_plane}/software-update", json=body).json()["operation"]["id"]
        again = c.post(f"/api/clusters/{control_plane}/software-update", json=body)  # in flight: that operation
    assert unknown.status_code == 404
    assert again.status_code == 202 and again.json()["operation"]["id"] == op, again.text
    done = sandbox.wait_operation(op, timeout=120)
    assert done["status"] == "SUCCEEDED", done
    assert "1 nodes at a time" in done["phases"][0]["message"]
    sagemaker = sandbox.aws("sagemaker")
    cluster = sagemaker.describe_cluster(ClusterName=control_plane)
    assert cluster["ClusterStatus"] == "InService"
    assert cluster["InstanceGroups"][0].get("SoftwareUpdateStatus") in (None, "Succeeded")


def test_every_role_launchpod_made_carries_the_boundary_and_trusts_only_documented_principals(sandbox, control_plane):
    # No IAM condition key constrains a trust policy's content, so what every function made is read back:
    # a role under Launchpod's prefix (other than its own deployed roles) has the boundary and trusts only
    # the services AWS documents for it, or this account's OIDC providers (launchpod.domain.ownership).
    from launchpod.domain import ownership

    iam = sandbox.aws("iam")
    made = [r for r in sandbox.role_names() if r.startswith(f"launchpod-{control_plane}-")]
    assert made, "the control plane made no role"
    for name in made:
        role = iam.get_role(RoleName=name)["Role"]
        assert role["PermissionsBoundary"]["PermissionsBoundaryArn"].endswith("launchpod-created-role-boundary"), name
        trust = role["AssumeRolePolicyDocument"]
        trust = json.loads(trust) if isinstance(trust, str) else trust
        assert ownership.untrusted_principals(trust, "123456789012") == [], name


def _load_balancer_interfaces(ec2, vpc_id: str) -> list[str]:
    """The load balancers' interfaces in the cluster's VPC (other tests' clusters have their own)."""
    found = ec2.describe_network_interfaces(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])["NetworkInterfaces"]
    return [n["NetworkInterfaceId"] for n in found if n.get("Description", "").startswith("ELB net/k8s-")]


def test_delete_needs_the_name_and_removes_only_what_launchpod_created(sandbox, with_nodes):
    control_plane = with_nodes
    ec2 = sandbox.aws("ec2")
    vpc_id = sandbox.aws("eks").describe_cluster(name=control_plane)["cluster"]["resourcesVpcConfig"]["vpcId"]
    theirs = ec2.create_vpc(CidrBlock="172.31.0.0/16")["Vpc"]["VpcId"]
    # A Service behind an NLB: the AWS Load Balancer Controller puts its interfaces in the cluster's subnets,
    # which EC2 will not delete while they are there.
    sandbox.install_dependencies(control_plane, include_optional=True)
    core = k8s.CoreV1Api(_kube(sandbox, control_plane))
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "chat", "namespace": "default"},
        "spec": {
            "type": "LoadBalancer",
            "loadBalancerClass": "service.k8s.aws/nlb",
            "selector": {"app": "chat"},
            "ports": [{"port": 80, "targetPort": 8080}],
        },
    }
    core.create_namespaced_service("default", service)

    def served():
        status = core.read_namespaced_service("chat", "default").status
        return status is not None and status.load_balancer is not None and status.load_balancer.ingress

    wait_until(served, interval=0.2, reason="the controller gave the Service no load balancer")
    assert _load_balancer_interfaces(ec2, vpc_id)
    with sandbox.client() as c:
        # An MLflow tracking server Launchpod made for the cluster goes with it, before the role it runs with.
        made = c.put(f"/api/clusters/{control_plane}/mlflow", json={})
        assert made.status_code == 202, made.text
        assert sandbox.wait_operation(made.json()["operation"]["id"], timeout=120)["status"] == "SUCCEEDED"
        server = c.get(f"/api/clusters/{control_plane}/mlflow").json()["trackingServerName"]
        refused = c.delete(f"/api/clusters/{control_plane}", params={"confirm": "something-else"})
        assert refused.status_code == 422 and refused.json()["details"][0]["field"] == "query.confirm"
        assert (
            c.delete(
                f"/api/clusters/{control_plane}", params={"confirm": control_plane}, headers=sandbox.headers("operator")
            ).status_code
            == 403
        )
        op = c.delete(f"/api/clusters/{control_plane}", params={"confirm": control_plane}).json()["operation"]["id"]
        again = c.delete(f"/api/clusters/{control_plane}", params={"confirm": control_plane})
    assert again.status_code == 202 and again.json()["operation"]["id"] == op, again.text  # in flight: that one
    done = sandbox.wait_operation(op, timeout=120)
    assert done["status"] == "SUCCEEDED", done
    [balancers] = [p for p in done["phases"] if p["name"] == "DeleteLoadBalancers"]
    assert (balancers["status"], balancers["message"]) == ("SUCCEEDED", "The load balancers are gone."), balancers
    assert _load_balancer_interfaces(ec2, vpc_id) == []
    [deleted] = [p for p in done["phases"] if p["name"] == "DeleteTrackingServer"]
    assert (deleted["status"], deleted["message"]) == ("SUCCEEDED", "Tracking server deleted."), deleted
    servers = sandbox.aws("sagemaker").list_mlflow_tracking_servers()["TrackingServerSummaries"]
    assert server not in [s["TrackingServerName"] for s in servers]
    assert not [r for r in sandbox.role_names() if r.startswith(f"launchpod-{control_plane}-")]
    eks = sandbox.aws("eks")
    assert control_plane not in eks.list_clusters()["clusters"]
    remaining = ec2.describe_vpcs(Filters=[{"Name": "tag:launchpod:cluster", "Values": [control_plane]}])["Vpcs"]
    assert remaining == []
    # The NAT gateway took its simulated minutes to be deleted; the teardown waited for it rather than
    # meeting DependencyViolation on its subnet and internet gateway.
    nats = ec2.describe_nat_gateways(Filter=[{"Name": "tag:launchpod:cluster", "Values": [control_plane]}])
    assert [n["State"] for n in nats["NatGateways"]] == ["deleted"]
    arn = f"arn:aws:states:us-east-1:123456789012:execution:launchpod-delete-cluster:{op}"
    history = sandbox.aws("stepfunctions").get_execution_history(executionArn=arn, maxResults=1000)["events"]
    entered = [e["stateEnteredEventDetails"]["name"] for e in history if "stateEnteredEventDetails" in e]
    assert "WaitForDeleteNetwork" in entered
    assert ec2.describe_vpcs(VpcIds=[theirs])["Vpcs"][0]["VpcId"] == theirs
    with sandbox.client("viewer") as c:
        assert control_plane not in [x["name"] for x in c.get("/api/clusters").json()["items"]]
        assert c.get(f"/api/clusters/{control_plane}").status_code == 404
