"""The remediation ladder through the sandbox: an injected GPU fault reaches Launchpod as HyperPod's
node-health events (in pairs), becomes one incident, and the ladder suggests (default) or runs (auto)
reboot, then replace once the fault survives the reboot, until the node is healthy."""

from __future__ import annotations

import json

import pytest

from tests.sandbox.aws.support import wait_until, wait_until_async

pytestmark = pytest.mark.e2e
NAME = "e2e-ladder"
# seven nodes: a fault in the first test, one the auto test replaces, one for the diagnoses (which the agent
# then follows), and five healthy for the last test
GROUP = {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 7}


@pytest.fixture(scope="module")
def cluster(sandbox):
    sandbox.create_control_plane(NAME)
    sandbox.install_dependencies(NAME)
    with sandbox.client() as c:
        body = {"availabilityZone": "us-east-1a", "instanceGroups": [GROUP], "nodeRecovery": "None"}
        op = c.post(f"/api/clusters/{NAME}/hyperpod", json=body)
        done = sandbox.wait_operation(op.json()["operation"]["id"])
    assert done["status"] == "SUCCEEDED", done
    return NAME


def _incidents(sandbox, name: str) -> dict:
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{name}/incidents")
    assert response.status_code == 200, response.text
    return dict(response.json())


def _wait_for(sandbox, name: str, node_id: str, done, timeout: float = 90) -> dict:
    found: list[dict] = []

    def there() -> dict | None:
        found[:] = [i for i in _incidents(sandbox, name)["items"] if node_id in i["nodes"]]
        return found[0] if found and done(found[0]) else None

    return dict(wait_until(there, timeout, reason=lambda: f"incident of {node_id} did not get there: {found}"))


def _node_ids(sandbox, name: str) -> list[str]:
    with sandbox.client("viewer") as c:
        return sorted(n["nodeId"] for n in c.get(f"/api/clusters/{name}/nodes").json()["items"])


def test_a_gpu_fault_becomes_one_incident_with_the_suggested_reboot(sandbox, cluster):
    node_id = _node_ids(sandbox, cluster)[0]
    assert _incidents(sandbox, cluster)["policy"] == "suggest"
    sandbox.faults(nodeFault={"cluster": cluster, "nodeId": node_id, "kind": "gpu"})
    incident = _wait_for(sandbox, cluster, node_id, lambda i: i["events"] >= 2)
    # AWS sends fault events in pairs: one incident, the second event counted as a duplicate
    assert [i["nodeId"] for i in _incidents(sandbox, cluster)["items"]] == [node_id]
    assert incident["duplicates"] >= 1 and incident["state"] == "open"
    assert incident["faultType"] == "NvidiaGPUUnhealthy"
    step = incident["nextStep"]
    assert step["tool"] == "reboot_nodes" and step["arguments"] == {"name": cluster, "nodeIds": [node_id]}
    assert [s["action"] for s in incident["steps"]] == ["investigate", "reboot"]
    assert incident["steps"][-1]["mode"] == "suggested"
    with sandbox.client("viewer") as c:
        ops = c.get("/api/operations", params={"cluster": cluster}).json()["items"]
        node = next(n for n in c.get(f"/api/clusters/{cluster}/nodes").json()["items"] if n["nodeId"] == node_id)
    assert not [o for o in ops if o["kind"] == "reboot-nodes"], "suggest runs nothing"
    # the health agent's verdict is on the Kubernetes Node
    assert node["healthStatus"] == "UnschedulablePendingReplacement" and node["faultTypes"] == ["NvidiaGPUUnhealthy"]
    assert {"key": "sagemaker.amazonaws.com/node-health-status", "value": "UnschedulablePendingReplacement"} in [
        {k: t[k] for k in ("key", "value")} for t in node["taints"]
    ]


def test_auto_reboots_then_replaces_when_the_fault_survives_and_the_node_ends_healthy(sandbox, cluster):
    from websockets.sync.client import connect

    with sandbox.client() as c:
        assert c.put(f"/api/clusters/{cluster}/ladder-policy", json={"policy": "operator"}).status_code == 422
        assert (
            c.put(
                f"/api/clusters/{cluster}/ladder-policy", json={"policy": "auto"}, headers=sandbox.headers("operator")
            ).status_code
            == 403
        )
        assert c.put(f"/api/clusters/{cluster}/ladder-policy", json={"policy": "auto"}).json()["policy"] == "auto"
    node_id = _node_ids(sandbox, cluster)[1]
    ws_url = sandbox.url.replace("http://", "ws://") + f"/ws?token={sandbox.tokens['viewer']}"
    with connect(ws_url) as ws:
        ws.send(json.dumps({"action": "subscribe", "topics": [f"cluster:{cluster}"]}))
        sandbox.faults(nodeFault={"cluster": cluster, "nodeId": node_id, "kind": "gpu", "fixedBy": "replace"})
        incident = _wait_for(sandbox, cluster, node_id, lambda i: i["state"] in ("resolved", "replacement-failed"), 90)
        pushed = []
        while True:
            try:
                message = json.loads(ws.recv(timeout=1))
            except TimeoutError:
                break
            if message.get("type") == "incident":
                pushed.append(message["data"])
    assert incident["state"] == "resolved", incident
    assert incident["reboots"] == 1 and incident["replacements"] == 1
    old, new = incident["nodes"]
    assert old == node_id and incident["nodeId"] == new != node_id
    acted = [(s["action"], s["mode"]) for s in incident["steps"] if s["action"] in ("reboot", "replace")]
    assert ("reboot", "ran") in acted and ("reboot", "done") in acted
    assert ("replace", "ran") in acted and ("replace", "done") in acted
    assert acted.index(("reboot", "done")) < acted.index(("replace", "ran"))
    ran = [s["operationId"] for s in incident["steps"] if s["mode"] == "ran"]
    assert len(ran) == len(set(ran)) == 2, incident["steps"]  # one step per operation
    with sandbox.client("viewer") as c:
        ops = c.get("/api/operations", params={"cluster": cluster}).json()["items"]
        nodes = {n["nodeId"]: n for n in c.get(f"/api/clusters/{cluster}/nodes").json()["items"]}
    ladder_ops = [o for o in ops if o["createdBy"] == "launchpod-ladder"]
    assert sorted(o["kind"] for o in ladder_ops) == ["reboot-nodes", "replace-nodes"]
    assert all(o["status"] == "SUCCEEDED" for o in ladder_ops), ladder_ops
    assert nodes[new]["instanceStatus"] == "Running" and nodes[new]["healthStatus"] == "Schedulable"
    # consoles watching the cluster were told as the incident moved
    assert pushed and pushed[-1]["state"] == "resolved" and pushed[-1]["id"] == incident["id"]


READS = ("Describe", "List", "Get", "Query", "Scan")


def _calls(sandbox, cluster: str) -> tuple[dict[tuple[str, str], int], list[dict]]:
    with sandbox.client() as c:
        aws = c.get("/api/sandbox/iam").json()["calls"]
        kube = c.get("/api/sandbox/kube-audit", params={"cluster": cluster}).json()["requests"]
    return {(x["function"], x["action"]): x["count"] for x in aws}, kube


def _opened(incident: dict) -> str:
    return str(incident["openedAt"])


def _open_incident_on_a_healthy_node(sandbox, cluster: str) -> str:
    """A GPU fault on a healthy node under the suggest policy: an open incident this test owns, whatever
    the tests before it left behind."""
    with sandbox.client() as c:
        assert c.put(f"/api/clusters/{cluster}/ladder-policy", json={"policy": "suggest"}).status_code == 200
        nodes = c.get(f"/api/clusters/{cluster}/nodes").json()["items"]
    faulted = {i["nodeId"] for i in _incidents(sandbox, cluster)["items"]}
    node_id = next(
        n["nodeId"]
        for n in sorted(nodes, key=lambda n: n["nodeId"])
        if n["healthStatus"] == "Schedulable" and n["instanceStatus"] == "Running" and n["nodeId"] not in faulted
    )
    sandbox.faults(nodeFault={"cluster": cluster, "nodeId": node_id, "kind": "gpu"})
    _wait_for(sandbox, cluster, node_id, lambda i: i["state"] == "open" and i["events"] >= 2)
    return node_id


def test_diagnostics_name_the_cause_and_only_read(sandbox, cluster):
    faulty = _open_incident_on_a_healthy_node(sandbox, cluster)
    with sandbox.client() as c:
        op = c.post("/api/clusters", json={"name": "e2e-diag", "availabilityZones": ["us-east-1a", "us-east-1b"]})
        assert sandbox.wait_operation(op.json()["operation"]["id"])["status"] == "SUCCEEDED"
    sandbox.install_dependencies("e2e-diag")
    sandbox.faults(failNextHyperPodCreate="capacity")
    with sandbox.client() as c:
        body = {"availabilityZone": "us-east-1a", "instanceGroups": [{**GROUP, "instanceCount": 1}]}
        failed = sandbox.wait_operation(c.post("/api/clusters/e2e-diag/hyperpod", json=body).json()["operation"]["id"])
    assert failed["status"] == "FAILED"

    aws_before, kube_before = _calls(sandbox, cluster)
    with sandbox.client("viewer") as c:
        node = c.get(f"/api/clusters/{cluster}/nodes/{faulty}/diagnosis").json()
        creation = c.get("/api/clusters/e2e-diag/diagnosis/creation").json()
        nccl = c.get(f"/api/clusters/{cluster}/diagnosis/nccl", params={"job": "llama-pretrain"}).json()
    aws_after, kube_after = _calls(sandbox, cluster)

    assert "NvidiaGPUUnhealthy" in node["cause"] and "XID79" in node["cause"], node
    assert [s["tool"] for s in node["suggestions"]] == ["reboot_nodes"] and node["suggestions"][0]["mutates"]
    assert any(f["title"].startswith("The health agent marks the node") for f in node["findings"])
    assert "capacity" in creation["cause"].lower(), creation
    assert any("sufficient capacity" in " ".join(f["evidence"]) for f in creation["findings"]), creation
    assert any(f["title"] == "Lifecycle scripts log to CloudWatch" for f in creation["findings"])
    # capacity: asked again in a zone that offers the type, or the failed HyperPod cluster given up; retry last
    assert [s["tool"] for s in creation["suggestions"]] == ["create_hyperpod", "delete_hyperpod", "retry_operation"]
    assert "pods' environment" in nccl["limitations"][0]
    assert any(f["title"] == "No pods of job llama-pretrain were found" for f in nccl["findings"])
    assert any(faulty in f["title"] and "incident" in f["title"] for f in nccl["findings"]), nccl

    # what the three diagnoses did, from the AWS and Kubernetes call logs: reads only
    api = ("api", "launchpod-api")
    api_calls = {a for (f, a), n in aws_after.items() if f in api and n > aws_before.get((f, a), 0)}
    assert api_calls, "the diagnoses read AWS"
    credentials = {"sts:AssumeRole"}  # the EKS token is minted as the kube-access role
    writes = {a for a in api_calls - credentials if not a.split(":")[1].startswith(READS)}
    assert writes == set(), writes
    seen = {r["seq"] for r in kube_before}
    new_requests = [r for r in kube_after if r["seq"] not in seen]
    assert new_requests and {r["method"] for r in new_requests} == {"GET"}, new_requests


async def test_an_agent_diagnoses_the_node_and_follows_the_suggestion(sandbox, cluster):
    from mcp_gateway.tools import WAIT_TOOL
    from tests.mcp_gateway.support import mcp_session

    with sandbox.client() as c:  # a person or an agent acts; the ladder only suggests
        assert c.put(f"/api/clusters/{cluster}/ladder-policy", json={"policy": "suggest"}).status_code == 200

    def data(result) -> dict:
        assert result.isError is False, result.content
        return dict(result.structuredContent)

    async with mcp_session(sandbox.url, sandbox.tokens["operator"]) as session:
        playbook = await session.get_prompt("diagnose-node", {"cluster": cluster})
        assert "Not offered by this Launchpod server yet" not in playbook.messages[0].content.text  # type: ignore[union-attr]
        nodes = data(await session.call_tool("list_nodes", {"name": cluster}))["items"]
        # the node the diagnoses test faulted (the newest open incident, never acted on under suggest)
        incidents = _incidents(sandbox, cluster)["items"]
        opened = [i for i in incidents if i["state"] == "open"]
        assert opened, f"no open incident: {json.dumps(incidents)[-3000:]}"
        newest = max(opened, key=_opened)
        suspect = next(n for n in nodes if n["nodeId"] == newest["nodeId"])
        assert suspect["healthStatus"] != "Schedulable", suspect
        diagnosis = data(await session.call_tool("diagnose_node", {"name": cluster, "nodeId": suspect["nodeId"]}))
        assert "NvidiaGPUUnhealthy" in diagnosis["cause"]
        [suggestion] = diagnosis["suggestions"]
        assert suggestion["tool"] == "reboot_nodes"
        # the user said yes: run the suggested tool and follow its operation to a terminal state
        accepted = data(await session.call_tool(suggestion["tool"], suggestion["arguments"]))
        for _ in range(10):
            waited = data(
                await session.call_tool(WAIT_TOOL, {"operationId": accepted["operation"]["id"], "timeoutSeconds": 30})
            )
            if waited["terminal"]:
                break
        assert waited["status"] == "SUCCEEDED", waited["summary"]
        # the GPU fault survives a reboot: the ladder now suggests the next rung
        last: dict = {}

        async def replace_suggested() -> bool:
            last.update(data(await session.call_tool("diagnose_node", {"name": cluster, "nodeId": suspect["nodeId"]})))
            return bool(last["suggestions"]) and last["suggestions"][0]["tool"] == "replace_nodes"

        await wait_until_async(replace_suggested, 90, reason=lambda: f"the ladder did not suggest replacing: {last}")
        again = last
    assert again["suggestions"][0]["tool"] == "replace_nodes", again
    assert again["suggestions"][0]["arguments"]["acknowledgeDataLoss"] is True


def test_five_replacements_in_a_day_is_fleet_instability_and_the_ladder_takes_no_sixth_action(sandbox, cluster):
    with sandbox.client() as c:
        assert c.put(f"/api/clusters/{cluster}/ladder-policy", json={"policy": "auto"}).status_code == 200
        nodes = c.get(f"/api/clusters/{cluster}/nodes").json()["items"]
    healthy = sorted(
        n["nodeId"] for n in nodes if n["healthStatus"] == "Schedulable" and n["instanceStatus"] == "Running"
    )
    # the ladder replaced one node already today; four more by hand make five
    with sandbox.client() as c:
        body = {"nodeIds": healthy[:4], "acknowledgeDataLoss": True}
        op = c.post(f"/api/clusters/{cluster}/nodes/replace", json=body).json()["operation"]["id"]
    assert sandbox.wait_operation(op)["status"] == "SUCCEEDED"
    node_id = healthy[4]
    sandbox.faults(nodeFault={"cluster": cluster, "nodeId": node_id, "kind": "gpu"})
    incident = _wait_for(sandbox, cluster, node_id, lambda i: i["state"] == "fleet-instability", 90)
    assert incident["nextStep"]["action"] == "alert" and "Fleet instability" in incident["nextStep"]["why"]
    # Rebooted once, never replaced. Whether the reboot's "done" is recorded before the node reports the
    # fault again is a race HyperPod has too (the follow-up runs once the operation releases the cluster).
    actions = [(s["action"], s["mode"]) for s in incident["steps"] if s["action"] in ("reboot", "replace")]
    assert actions[0] == ("reboot", "ran") and set(actions) <= {("reboot", "ran"), ("reboot", "done")}, actions
    assert actions.count(("reboot", "ran")) == 1, actions
    with sandbox.client("viewer") as c:
        ops = c.get("/api/operations", params={"cluster": cluster}).json()["items"]
    ladder_replacements = [
        o
        for o in ops
        if o["createdBy"] == "launchpod-ladder" and o["kind"] == "replace-nodes" and node_id in o["request"]["nodeIds"]
    ]
    assert ladder_replacements == []  # no sixth replacement
