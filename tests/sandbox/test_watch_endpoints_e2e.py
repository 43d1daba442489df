"""An inference endpoint whose vLLM container crash-loops (its model folder in the bucket is empty) on the
shared inference cluster is told once at a chat webhook by the scheduled watcher, with the kubelet's words and
the link that opens the endpoint; while it keeps crash-looping the watcher tells nobody again."""

from __future__ import annotations

import re

import pytest

from tests.sandbox.aws.support import wait_until
from tests.sandbox.inference_support import NAME, WORKER, get, post, ready_cluster, settled
from tests.sandbox.watch_support import texts, watch, webhook

pytestmark = pytest.mark.e2e
ENDPOINT = "told-crash"
LOOPING = re.compile(r"^container server in CrashLoopBackOff \(restarted \d+ times")


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


def test_a_crash_looping_endpoint_is_told_once_at_the_webhook_with_the_link_to_it(sandbox, cluster):
    worker = {**WORKER, "args": ["/s3/models/nobody/downloaded-this", "--served-model-name", "qwen3"]}
    body = {"endpoint": ENDPOINT, "kind": "container", "instanceType": "ml.g5.12xlarge"}
    body["container"] = {"storage": "shared", "worker": worker}
    with webhook(sandbox, NAME, ["endpoint-unhealthy"]) as (receiver, path):
        settled(sandbox)
        response = post(sandbox, "/endpoints", body)
        assert response.status_code == 202, response.text
        wait_until(
            lambda: LOOPING.match(get(sandbox, ENDPOINT).get("message") or ""),
            reason="it never crash-looped",
            interval=0.2,
        )
        assert ENDPOINT in watch(sandbox)["told"][NAME]["endpoint-unhealthy"]
        subject = f"*Endpoint {ENDPOINT} on {NAME} is unhealthy*"
        [text] = wait_until(lambda: texts(receiver, path, subject), reason="no endpoint-unhealthy message")
        assert "CrashLoopBackOff" in text and "Invalid repository ID or local directory" in text
        assert text.endswith(f"{sandbox.url}/clusters/{NAME}?tab=inference&endpoint={ENDPOINT}")
        assert ENDPOINT not in watch(sandbox)["told"].get(NAME, {}).get("endpoint-unhealthy", [])  # same episode
        assert len(texts(receiver, path, subject)) == 1
    # the deploy gives up after 15 (simulated) minutes; then the endpoint can be deleted
    assert sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)["status"] == "FAILED"
    with sandbox.client("operator") as c:
        deleted = c.delete(f"/api/clusters/{NAME}/endpoints/{ENDPOINT}")
    assert deleted.status_code == 202, deleted.text
    assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
