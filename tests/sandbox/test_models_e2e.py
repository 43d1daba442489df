"""Models in the shared bucket through the sandbox: downloaded with Launchpod's model download and listed,
the Hugging Face token appearing nowhere; a gated model without a token fails naming the cause; only a
repository id is accepted; a vLLM container whose model folder in the bucket is empty crash-loops with
vLLM's error, shown in the endpoint's view and its operation and told once at a chat webhook by the scheduled
watcher (endpoint-unhealthy, docs/notifications.md), until the model is downloaded."""

from __future__ import annotations

import re

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.inference_support import NAME, WORKER, cancelled_on_failure, post, ready_cluster, settled, view_until
from tests.sandbox.watch_support import texts, watch, webhook

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


TOKEN = "hf_sandboxSecretToken0123456789abcd"


def test_a_model_is_downloaded_listed_and_its_token_appears_nowhere(sandbox, cluster):
    body = {"repoId": "meta-llama/Llama-3.2-1B", "revision": "main", "storageName": "shared", "hfToken": TOKEN}
    response = post(sandbox, "/models/download", body)
    assert response.status_code == 202, response.text
    done = sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    waited = next(p for p in done["phases"] if p["name"] == "WaitDownload")
    assert waited["message"].endswith("/models/meta-llama/Llama-3.2-1B/"), waited  # the resulting path

    with sandbox.client("viewer") as c:
        listed = c.get(f"/api/clusters/{NAME}/models")
        operations = c.get("/api/operations", params={"cluster": NAME})
        operation = c.get(f"/api/operations/{done['id']}")
    assert listed.status_code == 200, listed.text
    (model,) = [m for m in listed.json()["items"] if m["repoId"] == "meta-llama/Llama-3.2-1B"]
    assert (
        model["storageName"] == "shared"
        and model["files"] == 5
        and model["path"].endswith("models/meta-llama/Llama-3.2-1B/")
    )
    secrets = k8s.CoreV1Api(sandbox.kube(NAME)).list_namespaced_secret("default").items
    assert [s.metadata.name for s in secrets if "token" in s.metadata.name] == [], "the token's Secret outlived its Job"
    with sandbox.client() as c:
        iam = c.get("/api/sandbox/iam").text
        calls = c.get("/api/sandbox/calls").text
        audit = c.get("/api/sandbox/kube-audit", params={"cluster": NAME}).text
    for text in (
        response.text,
        listed.text,
        operations.text,
        operation.text,
        iam,
        calls,
        audit,
        sandbox.log.read_text(),
    ):
        assert TOKEN not in text


def test_a_vllm_container_whose_model_path_is_empty_crash_loops_with_vllms_error_until_the_model_is_there(
    sandbox, cluster
):
    repo = "Qwen/Qwen3-1.7B"  # downloaded by no other test: its folder in the bucket is empty
    worker = {**WORKER, "args": [f"/s3/models/{repo}", "--served-model-name", "qwen3"]}
    body = {"endpoint": "no-model", "kind": "container", "instanceType": "ml.g5.12xlarge"}
    body["container"] = {"storageClaim": "shared", "worker": worker}
    settled(sandbox)
    with webhook(sandbox, NAME, ["endpoint-unhealthy"]) as (receiver, path):
        response = post(sandbox, "/endpoints", body)
        assert response.status_code == 202, response.text
        with cancelled_on_failure(sandbox, response.json()["operation"]["id"], endpoint="no-model"):
            vllm = f"ValueError: Invalid repository ID or local directory specified: '/s3/models/{repo}'."
            looping = re.compile(r"^container server in CrashLoopBackOff \(restarted (\d+) times, last exit code 1\): ")

            def restarted_twice(v: dict) -> bool:
                found = looping.match(v.get("message") or "")
                return found is not None and int(found.group(1)) >= 2

            view = view_until(sandbox, "no-model", restarted_twice)
            assert view["status"] == "Deploying" and view["readyReplicas"] == 0, view
            assert restarted_twice(view), view["message"]
            assert vllm in view["message"], view["message"]
            (pod,) = view["pods"]
            assert pod["phase"] == "Running" and pod["ready"] is False and vllm in (pod["message"] or ""), pod

            # the scheduled watcher tells the crash loop once at the webhook, with the link that opens the endpoint
            assert watch(sandbox)["told"][NAME]["endpoint-unhealthy"] == ["no-model"]
            subject = f"*Endpoint no-model on {NAME} is unhealthy*"
            [text] = wait_until(lambda: texts(receiver, path, subject), reason="no endpoint-unhealthy message")
            # told once, whenever in the loop the watcher looked: in its back-off or running again between two
            assert re.search(r"container server (in CrashLoopBackOff \(restarted|restarted) \d+ times", text), text
            assert vllm in text, text
            assert text.endswith(f"{sandbox.url}/clusters/{NAME}?tab=inference&endpoint=no-model")
            assert "endpoint-unhealthy" not in watch(sandbox)["told"].get(NAME, {})  # the same episode

            # The workflow gives up after 15 minutes of looks (every 10 s, growing to 30 s): phase invocations a loaded
            # machine takes a while to run whatever the time scale.
            done = sandbox.wait_operation(response.json()["operation"]["id"], timeout=240)
            assert done["status"] == "FAILED" and "still Deploying after 15 minutes" in done["message"], done["message"]
            assert vllm in done["message"]

            # the model downloaded through Launchpod: the next restart finds its config.json and the server runs
            downloaded = post(sandbox, "/models/download", {"repoId": repo, "storageName": "shared"})
            assert downloaded.status_code == 202, downloaded.text
            assert sandbox.wait_operation(downloaded.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
            view = view_until(sandbox, "no-model", lambda v: v["status"] == "Ready")
            assert view["status"] == "Ready" and view["message"] is None, view
            assert "endpoint-unhealthy" not in watch(sandbox)["told"].get(NAME, {})  # Ready: the episode is over
            assert len(texts(receiver, path, subject)) == 1
    with sandbox.client("operator") as c:
        deleted = c.delete(f"/api/clusters/{NAME}/endpoints/no-model")
    assert deleted.status_code == 202, deleted.text
    assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"


def test_a_gated_model_without_a_token_fails_naming_the_cause(sandbox, cluster):
    response = post(sandbox, "/models/download", {"repoId": "meta-llama/Llama-3.1-8B", "storageName": "shared"})
    assert response.status_code == 202, response.text
    done = sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)
    assert done["status"] == "FAILED" and "Cannot access gated repo" in done["message"], done["message"]


@pytest.mark.parametrize(
    "repo",
    [
        "https://huggingface.co/Qwen/Qwen3-0.6B",
        "http://169.254.169.254/latest",
        "169.254.169.254:80/x",
        "Qwen/../../etc",
        "org/name/extra",
    ],
)
def test_a_download_refuses_anything_but_a_repo_id(sandbox, cluster, repo):
    response = post(sandbox, "/models/download", {"repoId": repo, "storageName": "shared"})
    assert response.status_code == 422 and response.json()["details"][0]["field"] == "body.repoId", response.text
    extra = post(sandbox, "/models/download", {"repoId": "Qwen/Qwen3-0.6B", "storageName": "shared", "url": repo})
    assert extra.status_code == 422, extra.text
