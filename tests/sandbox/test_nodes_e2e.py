"""Nodes through the sandbox: the joined node list and detail, the cluster's events, and reboot,
replace, delete and deep health checks as operations followed to every node's terminal state; and two nodes
of a group on a training plan moved to the gpu group and back (MoveClusterNodes), the plan's usage unchanged;
and a node moved to another cluster's group and back, the same instance."""

from __future__ import annotations

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.http_support import next_step

pytestmark = pytest.mark.e2e
NAME = "e2e-nodes"
GROUP = {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 3}
UNKNOWN = "i-0fffffffffffffff0"


@pytest.fixture(scope="module")
def cluster(sandbox):
    sandbox.create_control_plane(NAME)
    sandbox.install_dependencies(NAME)
    with sandbox.client() as c:
        op = c.post(
            f"/api/clusters/{NAME}/hyperpod",
            # continuous provisioning: HyperPod keeps cluster events only then, and the reboot test reads them
            json={"availabilityZone": "us-east-1a", "instanceGroups": [GROUP], "nodeProvisioningMode": "Continuous"},
        )
        done = sandbox.wait_operation(op.json()["operation"]["id"])
    assert done["status"] == "SUCCEEDED", done
    return NAME


def _nodes(sandbox, name: str) -> list[dict]:
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{name}/nodes")
    assert response.status_code == 200, response.text
    return list(response.json()["items"])


def _settled(sandbox, name: str) -> list[dict]:
    """The node list once every node is Running and Ready again (after an operation ended)."""
    nodes: list[dict] = []

    def settled() -> list[dict] | None:
        nodes[:] = _nodes(sandbox, name)
        return list(nodes) if all(n["instanceStatus"] == "Running" and n["ready"] for n in nodes) else None

    return list(wait_until(settled, 90, reason=lambda: f"nodes not all Running and Ready: {nodes}"))


def test_nodes_are_listed_with_their_kubernetes_health_and_gpus(sandbox, cluster):
    nodes = _nodes(sandbox, cluster)
    assert len(nodes) == 3
    for node in nodes:
        assert node["instanceGroup"] == "gpu" and node["instanceType"] == "ml.p5.48xlarge"
        assert node["availabilityZone"] == "us-east-1a" and node["capacityType"] == "OnDemand"
        assert node["instanceStatus"] == "Running" and node["ready"] is True
        assert node["kubernetesNode"] == f"hyperpod-{node['nodeId']}"
        assert node["healthStatus"] == "Schedulable" and node["taints"] == []
        assert node["gpusAllocatable"] == 8 and node["gpusAllocated"] == 0
    with sandbox.client("viewer") as c:
        assert c.get("/api/clusters/no-such-cluster/nodes").status_code == 404


def test_one_node_has_its_conditions_and_hyperpod_details(sandbox, cluster):
    node_id = _nodes(sandbox, cluster)[0]["nodeId"]
    with sandbox.client("viewer") as c:
        detail = c.get(f"/api/clusters/{cluster}/nodes/{node_id}").json()
        missing = c.get(f"/api/clusters/{cluster}/nodes/{UNKNOWN}")
    assert detail["nodeId"] == node_id and detail["privateIp"]
    assert [(x["type"], x["status"]) for x in detail["conditions"]] == [("Ready", "True")]
    assert detail["hyperpod"]["InstanceStatus"]["Status"] == "Running"
    assert missing.status_code == 404 and "choose one of its nodes" in missing.json()["message"]
    assert next_step(missing) == f"GET /api/clusters/{cluster}/nodes"


def test_a_gpu_pod_shows_on_its_node_with_the_gpus_it_holds(sandbox, cluster):
    api = sandbox.kube(cluster)
    apps, core = k8s.AppsV1Api(api), k8s.CoreV1Api(api)
    labels = {"app": "gpu-probe"}
    container = {
        "name": "main",
        "image": "public.ecr.aws/docker/library/python:3.12",
        "resources": {"limits": {"nvidia.com/gpu": "2"}},
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "gpu-probe", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }
    apps.create_namespaced_deployment("default", deployment)
    try:
        pods = wait_until(
            lambda: [
                p for p in core.list_namespaced_pod("default", label_selector="app=gpu-probe").items if p.spec.node_name
            ],
            60,
            reason="the GPU pod was never scheduled",
        )
        [placed] = pods
        node = next(n for n in _nodes(sandbox, cluster) if n["kubernetesNode"] == placed.spec.node_name)
        assert node["gpusAllocated"] == 2 and node["gpusAllocatable"] == 8
        [mine] = [p for p in node["pods"] if p["name"] == placed.metadata.name]
        assert (mine["namespace"], mine["gpus"]) == ("default", 2)
        with sandbox.client("viewer") as c:
            detail = c.get(f"/api/clusters/{cluster}/nodes/{node['nodeId']}").json()
        assert placed.metadata.name in [p["name"] for p in detail["pods"]] and detail["gpusAllocated"] == 2
    finally:
        apps.delete_namespaced_deployment("gpu-probe", "default")


def test_reboot_needs_operator_and_follows_the_node_until_it_runs_again(sandbox, cluster):
    node_id = _nodes(sandbox, cluster)[0]["nodeId"]
    body = {"nodeIds": [node_id]}
    with sandbox.client("viewer") as c:
        assert c.post(f"/api/clusters/{cluster}/nodes/reboot", json=body).status_code == 403
    with sandbox.client("operator") as c:
        op = c.post(f"/api/clusters/{cluster}/nodes/reboot", json=body)
    assert op.status_code == 202, op.text
    done = sandbox.wait_operation(op.json()["operation"]["id"])
    assert done["status"] == "SUCCEEDED", done
    assert f"{node_id}: rebooted; Running" in done["phases"][-1]["message"]
    with sandbox.client("viewer") as c:
        events = c.get(f"/api/clusters/{cluster}/events", params={"nodeId": node_id}).json()["items"]
    assert any("is rebooting" in e["description"] for e in events), events
    assert {e["nodeId"] for e in events} == {node_id}
    # the node's own detail shows kubelet's word for it once the Node is back with another boot id
    with sandbox.client("viewer") as c:
        detail = c.get(f"/api/clusters/{cluster}/nodes/{node_id}").json()
    rebooted = [e for e in detail["events"] if e["reason"] == "Rebooted"]
    assert rebooted and rebooted[0]["type"] == "Warning", detail["events"]
    assert f"Node hyperpod-{node_id} has been rebooted, boot id:" in rebooted[0]["message"]


def test_node_ids_the_cluster_never_had_are_refused_before_anything_starts(sandbox, cluster):
    """26 ids no cluster has, beside one it has: a 422 naming them from the same ListClusterNodes read the
    node views use, and no operation (they were once accepted and left to fail at AWS batch by batch)."""
    node_id = _settled(sandbox, cluster)[1]["nodeId"]
    unknown = [f"i-0{n:016x}" for n in range(1, 27)]
    with sandbox.client("operator") as c:
        before = c.get("/api/operations", params={"cluster": cluster}).json()["items"]
        refused = c.post(f"/api/clusters/{cluster}/nodes/reboot", json={"nodeIds": [node_id, *unknown]})
        planned = c.post(f"/api/clusters/{cluster}/nodes/reboot?dryRun=true", json={"nodeIds": unknown[:1]})
        after = c.get("/api/operations", params={"cluster": cluster}).json()["items"]
    assert refused.status_code == 422, refused.text
    body = refused.json()
    assert body["message"].startswith(f"The cluster has no node {unknown[0]}, ") and "and 16 more" in body["message"]
    assert body["details"][0]["field"] == "body.nodeIds" and node_id not in body["message"]
    assert planned.status_code == 422
    assert [o["id"] for o in after] == [o["id"] for o in before]


def test_replace_says_local_volumes_are_lost_and_needs_admin(sandbox, cluster):
    node_id = _settled(sandbox, cluster)[0]["nodeId"]
    with sandbox.client() as c:
        unacknowledged = c.post(f"/api/clusters/{cluster}/nodes/replace", json={"nodeIds": [node_id]})
        operator = c.post(
            f"/api/clusters/{cluster}/nodes/replace",
            json={"nodeIds": [node_id], "acknowledgeDataLoss": True},
            headers=sandbox.headers("operator"),
        )
    assert unacknowledged.status_code == 422
    assert "lost for good" in unacknowledged.json()["message"]
    assert unacknowledged.json()["details"][0]["field"] == "body.acknowledgeDataLoss"
    assert operator.status_code == 403


def test_replace_follows_the_new_instance_until_it_runs(sandbox, cluster):
    before = {n["nodeId"] for n in _settled(sandbox, cluster)}
    old = sorted(before)[0]
    with sandbox.client() as c:
        op = c.post(f"/api/clusters/{cluster}/nodes/replace", json={"nodeIds": [old], "acknowledgeDataLoss": True})
    done = sandbox.wait_operation(op.json()["operation"]["id"])
    assert done["status"] == "SUCCEEDED", done
    after = {n["nodeId"] for n in _settled(sandbox, cluster)}
    [new] = after - before
    assert old not in after and len(after) == 3
    assert f"{old}: replaced by {new}; Running" in done["phases"][-1]["message"]


def test_replace_on_a_cluster_never_patched_says_to_patch_it_first_and_works_after(sandbox, cluster):
    old = sorted(n["nodeId"] for n in _settled(sandbox, cluster))[0]
    sandbox.faults(hyperpodUnpatched=cluster)  # the cluster predates BatchReplaceClusterNodes
    body = {"nodeIds": [old], "acknowledgeDataLoss": True}
    with sandbox.client() as c:
        op = c.post(f"/api/clusters/{cluster}/nodes/replace", json=body)
    refused = sandbox.wait_operation(op.json()["operation"]["id"])
    assert refused["status"] == "FAILED", refused
    message = next(p["message"] for p in refused["phases"] if p["status"] == "FAILED")
    assert "ValidationException" in message and "UpdateClusterSoftware" in message
    assert f"update the software of {cluster}'s instance groups" in message
    with sandbox.client() as c:
        patch = c.post(f"/api/clusters/{cluster}/software-update", json={})
        assert sandbox.wait_operation(patch.json()["operation"]["id"], timeout=180)["status"] == "SUCCEEDED"
        op = c.post(f"/api/clusters/{cluster}/nodes/replace", json=body)
    assert sandbox.wait_operation(op.json()["operation"]["id"])["status"] == "SUCCEEDED"


def test_deep_health_checks_on_a_group_follow_each_node_to_passed(sandbox, cluster):
    nodes = _settled(sandbox, cluster)
    with sandbox.client() as c:
        unknown = c.post(f"/api/clusters/{cluster}/health-checks", json={"targets": [{"instanceGroup": "cpu"}]})
        op = c.post(f"/api/clusters/{cluster}/health-checks", json={"targets": [{"instanceGroup": "gpu"}]})
    assert unknown.status_code == 422 and "it has gpu" in unknown.json()["message"]
    done = sandbox.wait_operation(op.json()["operation"]["id"])
    assert done["status"] == "SUCCEEDED", done
    for node in nodes:
        assert f"{node['nodeId']}: passed its deep health checks; Running" in done["phases"][-1]["message"]


def test_deep_health_checks_on_one_node_leave_the_others_alone(sandbox, cluster):
    nodes = _settled(sandbox, cluster)
    one = nodes[0]["nodeId"]
    with sandbox.client() as c:
        op = c.post(
            f"/api/clusters/{cluster}/health-checks",
            json={"targets": [{"instanceGroup": "gpu", "nodeIds": [one]}], "checks": ["InstanceStress"]},
        )
    assert op.status_code == 202, op.text
    done = sandbox.wait_operation(op.json()["operation"]["id"])
    assert done["status"] == "SUCCEEDED", done
    message = done["phases"][-1]["message"]
    assert f"{one}: passed its deep health checks; Running" in message
    assert not any(n["nodeId"] in message for n in nodes[1:]), message


def test_delete_shrinks_the_group_and_follows_the_node_until_it_is_gone(sandbox, cluster):
    node_id = _settled(sandbox, cluster)[0]["nodeId"]
    body = {"nodeIds": [node_id], "acknowledgeDataLoss": True}
    with sandbox.client("operator") as c:
        assert c.post(f"/api/clusters/{cluster}/nodes/delete", json=body).status_code == 403
    with sandbox.client() as c:
        op = c.post(f"/api/clusters/{cluster}/nodes/delete", json={"nodeIds": [node_id], "acknowledgeDataLoss": True})
    done = sandbox.wait_operation(op.json()["operation"]["id"])
    assert done["status"] == "SUCCEEDED", done
    assert node_id not in {n["nodeId"] for n in _nodes(sandbox, cluster)}
    group = sandbox.aws("sagemaker").describe_cluster(ClusterName=cluster)["InstanceGroups"][0]
    assert group["TargetCount"] == 2


def _buy_plan(sandbox, name: str) -> str:
    """A training plan for two ml.p5.48xlarge in the cluster's zone, Active now: its ARN."""
    search = {"instanceType": "ml.p5.48xlarge", "instanceCount": 2, "durationHours": 168}
    with sandbox.client() as c:
        offers = c.get("/api/training-plans/offerings", params=search).json()["items"]
        offering = next(o for o in offers if o["availabilityZone"] == "us-east-1a")
        body = {**search, "name": name, "offeringId": offering["offeringId"], "confirmPrice": offering["upfrontFee"]}
        bought = c.post("/api/training-plans", json=body)
    assert bought.status_code == 200, bought.text
    return str(bought.json()["arn"])


def _move(sandbox, cluster: str, body: dict) -> dict:
    with sandbox.client() as c:
        started = c.post(f"/api/clusters/{cluster}/nodes/move", json={**body, "acknowledgeDataLoss": True})
    assert started.status_code == 202, started.text
    return sandbox.wait_operation(started.json()["operation"]["id"])


def test_two_nodes_move_from_a_training_group_to_the_gpu_group_and_back_on_the_same_plan(sandbox, cluster):
    plan = _buy_plan(sandbox, "e2e-move-plan")
    train = {"group": "train", "instanceType": "ml.p5.48xlarge", "instanceCount": 2}
    with sandbox.client() as c:
        op = c.post(
            f"/api/clusters/{cluster}/instance-groups",
            json={**train, "capacityType": "trainingPlan", "trainingPlanArn": plan},
        )
    assert op.status_code == 202, op.text
    assert sandbox.wait_operation(op.json()["operation"]["id"])["status"] == "SUCCEEDED"

    def where() -> dict[str, str]:
        return {n["nodeId"]: n["instanceGroup"] for n in _settled(sandbox, cluster)}

    def in_use() -> int:
        with sandbox.client("viewer") as c:
            return int(c.get("/api/training-plans/e2e-move-plan").json()["inUseInstanceCount"])

    moving = sorted(n for n, group in where().items() if group == "train")
    assert len(moving) == 2 and in_use() == 2
    # a training pod on one of them: the move drains it first
    core = k8s.CoreV1Api(sandbox.kube(cluster))
    pod = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="trainer-0", namespace="default"),
        spec=k8s.V1PodSpec(node_name=f"hyperpod-{moving[0]}", containers=[k8s.V1Container(name="t", image="busybox")]),
    )
    core.create_namespaced_pod("default", pod)
    body = {"sourceGroup": "train", "targetGroup": "gpu", "count": 2, "acknowledgeDataLoss": True}
    with sandbox.client() as c:
        planned = c.post(f"/api/clusters/{cluster}/nodes/move", params={"dryRun": "true"}, json=body)
        same = c.post(f"/api/clusters/{cluster}/nodes/move", json={**body, "targetGroup": "train"})
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    reasons = [s["reason"] for s in planned.json()["steps"]]
    assert "cordon, then evict 1 pod(s): default/trainer-0" in reasons, reasons
    moves = [r for r in reasons if r.startswith("into group gpu, keeping the same instance")]
    assert len(moves) == 2 and all("training plan e2e-move-plan" in r for r in moves), reasons
    assert same.status_code == 422 and same.json()["details"][0]["field"] == "body.targetGroup"

    moved = _move(sandbox, cluster, {"sourceGroup": "train", "targetGroup": "gpu", "count": 2})
    assert moved["status"] == "SUCCEEDED", (moved.get("message"), moved.get("phases"))
    after = where()
    assert {after[n] for n in moving} == {"gpu"}  # the same instances, in the other group
    assert in_use() == 2  # their training plan's capacity went with them
    assert "trainer-0" not in {p.metadata.name for p in core.list_namespaced_pod("default").items}

    back = _move(sandbox, cluster, {"sourceGroup": "gpu", "targetGroup": "train", "nodeIds": moving})
    assert back["status"] == "SUCCEEDED", (back.get("message"), back.get("phases"))
    assert sorted(n for n, group in where().items() if group == "train") == moving
    assert in_use() == 2


def test_a_node_moves_to_another_cluster_and_back_keeping_its_instance(sandbox, cluster):
    """MoveClusterNodes between clusters: "the target instance group can be in the same HyperPod cluster or in
    a different HyperPod cluster in the same account and Region" (API reference, MoveClusterNodes). Both need
    continuous provisioning; the second is made with an empty serve group of the same type in the same zone."""
    other = f"{NAME}-serve"
    # made as the module's cluster is (its dependencies before HyperPod), with no node until one moves in
    sandbox.create_control_plane(other)
    sandbox.install_dependencies(other)
    serve = {"name": "serve", "instanceType": "ml.p5.48xlarge", "instanceCount": 0}
    with sandbox.client() as c:
        op = c.post(
            f"/api/clusters/{other}/hyperpod",
            json={"availabilityZone": "us-east-1a", "instanceGroups": [serve], "nodeProvisioningMode": "Continuous"},
        )
    assert sandbox.wait_operation(op.json()["operation"]["id"])["status"] == "SUCCEEDED"
    gpu_before = {n["nodeId"] for n in _settled(sandbox, cluster) if n["instanceGroup"] == "gpu"}
    body = {"sourceGroup": "gpu", "targetGroup": "serve", "targetCluster": other, "count": 1}
    with sandbox.client() as c:
        planned = c.post(
            f"/api/clusters/{cluster}/nodes/move", params={"dryRun": "true"}, json={**body, "acknowledgeDataLoss": True}
        )
    assert planned.status_code == 200, planned.text
    assert any(f"group serve of cluster {other}" in s["reason"] for s in planned.json()["steps"]), planned.json()

    moved = _move(sandbox, cluster, body)
    assert moved["status"] == "SUCCEEDED", (moved.get("message"), moved.get("phases"))
    [node] = [n for n in _settled(sandbox, other) if n["instanceGroup"] == "serve"]
    assert node["nodeId"] in gpu_before  # the same instance, now a node of the other cluster
    assert node["nodeId"] not in {n["nodeId"] for n in _nodes(sandbox, cluster)}

    back = _move(sandbox, other, {"sourceGroup": "serve", "targetGroup": "gpu", "targetCluster": cluster, "count": 1})
    assert back["status"] == "SUCCEEDED", (back.get("message"), back.get("phases"))
    assert {n["nodeId"] for n in _settled(sandbox, cluster) if n["instanceGroup"] == "gpu"} == gpu_before
    counts = {
        c["ClusterName"]: [
            g["TargetCount"]
            for g in sandbox.aws("sagemaker").describe_cluster(ClusterName=c["ClusterName"])["InstanceGroups"]
        ]
        for c in ({"ClusterName": cluster}, {"ClusterName": other})
    }
    assert counts[other] == [0] and sum(counts[cluster]) >= len(gpu_before)
