"""The planner on the endpoint and model routes, on the shared inference cluster (see the route table in
test_planner_e2e.py): a create sent again is NOOP and a field other than what made the endpoint is a 409
naming it, and the endpoint reads as there from the create's 202 on; scale again is NOOP; a delete or a
download sent again while in flight answers its operation, and a delete after it finds nothing; an assign
already in place is NOOP; invoke answers again; dryRun plans without starting or changing anything, immediate
writes (invoke, assign) included. Every endpoint made here is deleted again, so the GPU node is free for the
other inference modules."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from tests.sandbox.inference_support import NAME, WORKER, deploy, get, post, ready_cluster, settled

pytestmark = pytest.mark.e2e

POOL = {
    "endpoint": "plan-a",
    "kind": "container",
    "instanceType": "ml.g5.12xlarge",
    "replicas": 1,
    "container": {"worker": {**WORKER, "args": ["--served-model-name", "plan-a-model"]}, "service": "modelPool"},
}
SPARE = {**POOL, "endpoint": "plan-b", "replicas": 0}
CHAT = {"messages": [{"role": "user", "content": "same again"}], "maxTokens": 16}


@pytest.fixture(scope="module")
def cluster(sandbox):
    ready_cluster(sandbox)
    yield NAME
    with sandbox.client("operator") as c:  # whatever a failed test left behind
        for endpoint in ("plan-a", "plan-b", "plan-c"):
            response = c.delete(f"/api/clusters/{NAME}/endpoints/{endpoint}")
            if response.status_code == 202:
                sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)
    settled(sandbox)


def _count(sandbox) -> int:
    """The cluster's operations, every page (a page holds 50 at most; the shared cluster can have more)."""
    count, params = 0, {"cluster": NAME, "limit": 200}
    with sandbox.client("viewer") as c:
        while True:
            page = c.get("/api/operations", params=params).json()
            count += len(page["items"])
            if not page.get("nextToken"):
                return count
            params["nextToken"] = page["nextToken"]


def _send(sandbox, method: str, path: str, body: dict | None = None, dry_run: bool = False):
    with sandbox.client("operator") as c:
        return c.request(
            method, f"/api/clusters/{NAME}{path}", json=body, params={"dryRun": "true"} if dry_run else None
        )


def _refused(sandbox, body: dict, field: str) -> str:
    before = _count(sandbox)
    response = _send(sandbox, "POST", "/endpoints", body)
    assert response.status_code == 409, response.text
    assert [(d["field"], d["rule"]) for d in response.json()["details"]] == [(field, "immutable")], response.text
    assert _count(sandbox) == before
    return str(response.json()["message"])


def test_an_endpoint_created_again_is_noop_and_a_changed_field_is_refused_naming_it(sandbox, cluster):
    before = _count(sandbox)
    planned = _send(sandbox, "POST", "/endpoints", POOL, dry_run=True)
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    assert [s["target"] for s in planned.json()["steps"]] == ["Deployment default/plan-a", "Service default/plan-a"]
    assert _count(sandbox) == before
    settled(sandbox)
    accepted = post(sandbox, "/endpoints", POOL)
    assert accepted.status_code == 202, accepted.text
    early = get(sandbox, "plan-a")  # right after the 202: the endpoint is there (Deploying), never a 404
    assert (early["endpoint"], early["kind"], early["desiredReplicas"]) == ("plan-a", "container", 1), early
    assert sandbox.wait_operation(accepted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"

    for same in (POOL, {k: v for k, v in POOL.items() if k != "replicas"}):
        again = _send(sandbox, "POST", "/endpoints", same)
        assert again.status_code == 200 and again.json()["status"] == "NOOP", again.text
    image = {**POOL["container"]["worker"], "image": "vllm/vllm-openai:v0.10.2"}
    assert "v0.10.2" in _refused(
        sandbox, {**POOL, "container": {**POOL["container"], "worker": image}}, "body.container"
    )
    _refused(sandbox, {**POOL, "namespace": "team-a"}, "body.namespace")
    assert "PATCH" in _refused(sandbox, {**POOL, "replicas": 2}, "body.replicas")
    assert _count(sandbox) == before + 1


def test_scaling_to_the_replicas_it_has_is_noop_and_a_dry_run_scales_nothing(sandbox, cluster):
    before = _count(sandbox)
    same = _send(sandbox, "PATCH", "/endpoints/plan-a", {"replicas": 1})
    assert same.status_code == 200 and same.json()["status"] == "NOOP", same.text
    planned = _send(sandbox, "PATCH", "/endpoints/plan-a", {"replicas": 2}, dry_run=True)
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    assert "replicas is 1; the request asks for 2" in planned.json()["steps"][0]["reason"]
    assert _count(sandbox) == before and get(sandbox, "plan-a")["desiredReplicas"] == 1


def _operation(sandbox, op: str) -> dict:
    with sandbox.client("viewer") as c:
        return dict(c.get(f"/api/operations/{op}").json())


def _audit(sandbox) -> list[dict]:
    with sandbox.client() as c:
        return list(c.get("/api/sandbox/kube-audit", params={"cluster": NAME}).json()["requests"])


def test_a_pod_assigned_again_is_noop_a_dry_run_relabels_nothing_and_invoke_answers_every_call(sandbox, cluster):
    assert deploy(sandbox, SPARE)["status"] == "SUCCEEDED"
    (pod,) = get(sandbox, "plan-a")["pods"]
    assign = {"pod": pod["name"], "endpoint": "plan-b"}
    planned = _send(sandbox, "POST", "/model-pools/plan-a/assign", assign, dry_run=True)
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    assert [(s["action"], s["target"]) for s in planned.json()["steps"]] == [
        ("update", f"Pod default/{pod['name']} label launchpod.io/serves")
    ]
    assert "is 'plan-a'; the request asks for 'plan-b'" in planned.json()["steps"][0]["reason"]
    assert [p["serves"] for p in get(sandbox, "plan-a")["pods"]] == ["plan-a"]  # read back: not relabelled
    first = post(sandbox, "/model-pools/plan-a/assign", assign)
    again = post(sandbox, "/model-pools/plan-a/assign", assign)
    assert first.status_code == 200 and first.json()["previous"] == "plan-a", first.text
    assert again.status_code == 200 and again.json() == {
        "status": "NOOP",
        "message": f"{pod['name']} already serves plan-b; no changes.",
    }, again.text
    assert [p["serves"] for p in get(sandbox, "plan-a")["pods"]] == ["plan-b"]

    seen = max(r["seq"] for r in _audit(sandbox))
    planned = _send(sandbox, "POST", "/endpoints/plan-b/invoke", CHAT, dry_run=True)
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    ((step,),) = [planned.json()["steps"]]
    assert step["action"] == "send" and "Service default/plan-b:" in step["target"], step
    assert "plan-b is Ready" in step["reason"]
    assert [r for r in _audit(sandbox) if r["seq"] > seen and "/proxy/" in r["path"]] == []  # nothing was sent
    answers = [post(sandbox, "/endpoints/plan-b/invoke", CHAT) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
    assert all("same again" in a.json()["content"] for a in answers)
    sent = [r for r in _audit(sandbox) if r["seq"] > seen and "/proxy/" in r["path"]]
    assert [r["method"] for r in sent] == ["POST", "POST"], sent  # what the dry run would have sent, twice


def test_a_delete_in_flight_answers_its_operation_a_dry_run_deletes_nothing_and_after_it_is_404(sandbox, cluster):
    before = _count(sandbox)
    planned = _send(sandbox, "DELETE", "/endpoints/plan-b", dry_run=True)
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    assert {s["action"] for s in planned.json()["steps"]} == {"delete"}
    assert _count(sandbox) == before and get(sandbox, "plan-b")["endpoint"] == "plan-b"
    for endpoint in ("plan-a", "plan-b"):
        deleted = _send(sandbox, "DELETE", f"/endpoints/{endpoint}")
        assert deleted.status_code == 202, deleted.text
        op = deleted.json()["operation"]["id"]
        # Sent again and again until it ends: while it runs (objects still there, or gone and their pods
        # awaited) each answers that operation; a 404 comes only once it has ended.
        answers, deadline = [], time.monotonic() + 60
        while time.monotonic() < deadline:
            again = _send(sandbox, "DELETE", f"/endpoints/{endpoint}")
            status = _operation(sandbox, op)["status"]  # read after the answer: ended then, ended before too
            answers.append(again.status_code)
            if again.status_code == 404:
                assert status in ("SUCCEEDED", "FAILED", "CANCELLED"), (answers, status, again.text)
                break
            assert again.status_code == 202 and again.json()["operation"]["id"] == op, again.text
        assert answers[0] == 202 and answers[-1] == 404, answers
        assert sandbox.wait_operation(op, timeout=60)["status"] == "SUCCEEDED"
        after = _send(sandbox, "DELETE", f"/endpoints/{endpoint}")
        assert after.status_code == 404 and f"no endpoint {endpoint}" in after.json()["message"], after.text
    assert _count(sandbox) == before + 2


def test_a_download_in_flight_answers_its_operation_and_a_dry_run_downloads_nothing(sandbox, cluster):
    body = {"repoId": "Qwen/Qwen3-0.6B", "revision": "main", "storageName": "shared"}
    before = _count(sandbox)
    with sandbox.client() as c:
        seen = max(r["seq"] for r in c.get("/api/sandbox/kube-audit", params={"cluster": NAME}).json()["requests"])
    planned = _send(sandbox, "POST", "/models/download", {**body, "hfToken": "hf_dryrun"}, dry_run=True)
    assert planned.status_code == 200 and planned.json()["status"] == "PLANNED", planned.text
    assert _count(sandbox) == before
    with sandbox.client() as c:
        since = c.get("/api/sandbox/kube-audit", params={"cluster": NAME}).json()["requests"]
    writes = [r for r in since if r["seq"] > seen and r["method"] != "GET" and "/secrets" in r["path"]]
    assert writes == [], writes  # the dry run wrote no Secret for the token, not even for a moment
    started: set[str] = set()
    for _ in range(3):  # a sandbox download can end within a second: asked again once it ended, a new one starts
        first = post(sandbox, "/models/download", body)
        asked_again = datetime.now(UTC)
        again = post(sandbox, "/models/download", body)
        assert first.status_code == again.status_code == 202, (first.text, again.text)
        first_id, again_id = first.json()["operation"]["id"], again.json()["operation"]["id"]
        started |= {first_id, again_id}
        if again_id == first_id:  # still in flight: the same operation answers
            break
        ended = sandbox.wait_operation(first_id, timeout=60)
        assert ended["status"] == "SUCCEEDED" and datetime.fromisoformat(ended["updatedAt"]) <= asked_again, ended
        sandbox.wait_operation(again_id, timeout=60)
    else:
        pytest.fail("in three tries no download was still in flight when asked again")
    assert _count(sandbox) == before + len(started)
    assert sandbox.wait_operation(first_id, timeout=60)["status"] == "SUCCEEDED"


def test_replicas_that_cannot_fit_the_free_gpus_are_said_to_wait_in_the_dry_run_and_the_answer(sandbox, cluster):
    """The cluster's one ml.g5.12xlarge has 4 GPUs; 9 replicas of 1 GPU cannot all fit whatever else runs there."""
    body = {**POOL, "endpoint": "plan-c", "replicas": 9}
    planned = _send(sandbox, "POST", "/endpoints", body, dry_run=True)
    assert planned.status_code == 200, planned.text
    (warning,) = planned.json()["warnings"]
    assert "of 9 replicas of plan-c fit now" in warning and "will wait Pending" in warning, warning
    assert "ml.g5.12xlarge node(s) have" in warning
    accepted = _send(sandbox, "POST", "/endpoints", body)
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["warnings"] == [warning]
    # the deploy gives up on the replicas that never fit (Degraded, naming the scheduler's reason); on a
    # loaded machine that has taken over a minute
    ended = sandbox.wait_operation(accepted.json()["operation"]["id"])
    assert ended["status"] == "FAILED" and "Insufficient nvidia.com/gpu" in ended["message"], ended
    deleted = _send(sandbox, "DELETE", "/endpoints/plan-c")
    assert deleted.status_code == 202, deleted.text
    assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
