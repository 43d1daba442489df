"""Notifications through the sandbox: a chat webhook on a local receiver and an e-mail address subscribed
to a cluster; a test message, a failed operation and an opened incident each reach the webhook exactly
once, as {"text": ...} with the console link; the e-mail waits for its confirmation, as SNS's does."""

from __future__ import annotations

import pytest

from sandbox.webhooks import WebhookReceiver
from tests.sandbox.aws.support import wait_until

pytestmark = pytest.mark.e2e
NAME = "e2e-notify"
GROUP = {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}


@pytest.fixture(scope="module")
def receiver():
    found = WebhookReceiver().start()
    yield found
    found.stop()


@pytest.fixture(scope="module")
def cluster(sandbox, receiver):
    sandbox.create_control_plane(NAME)
    with sandbox.client() as c:
        hook = {"protocol": "webhook", "endpoint": receiver.url(f"/{NAME}")}
        added = c.post(f"/api/clusters/{NAME}/notifications/subscribers", json=hook)
        assert added.status_code == 200, added.text
    return NAME


def _texts(receiver, path: str, words: str) -> list[str]:
    return [r.body["text"] for r in receiver.posts(path) if words in r.body.get("text", "")]


def _deliveries(sandbox, kind: str) -> list[dict]:
    with sandbox.client() as c:
        items = c.get("/api/sandbox/sns").json()["items"]
    return [d for d in items if d["attributes"].get("cluster") == NAME and d["attributes"].get("kind") == kind]


def test_a_test_message_reaches_the_webhook_with_the_cluster_console_link(sandbox, cluster, receiver):
    with sandbox.client() as c:
        sent = c.post(f"/api/clusters/{cluster}/notifications/test", json={"message": "hello from e2e"})
    assert sent.status_code == 200, sent.text
    assert sent.json()["link"] == f"{sandbox.url}/clusters/{cluster}"
    [text] = wait_until(lambda: _texts(receiver, f"/{cluster}", "hello from e2e"), reason="no test message")
    assert f"{sandbox.url}/clusters/{cluster}" in text
    [post] = [r for r in receiver.posts(f"/{cluster}") if "hello from e2e" in r.body["text"]]
    assert set(post.body) == {"text"}  # what Slack's and Teams' incoming webhooks take


def test_an_email_subscriber_waits_for_its_confirmation_then_gets_messages(sandbox, cluster):
    with sandbox.client() as c:
        body = {"protocol": "email", "endpoint": "oncall@example.com", "kinds": ["operation-failed"]}
        listed = c.post(f"/api/clusters/{cluster}/notifications/subscribers", json=body).json()
        [mail] = [s for s in listed["subscribers"] if s["protocol"] == "email"]
        assert mail["status"] == "pending-confirmation"
        c.post(f"/api/clusters/{cluster}/notifications/test", json={"message": "before confirming"})
        emails = [d for d in _deliveries(sandbox, "test") if d["protocol"] == "email"]
        assert [d["outcome"] for d in emails] == ["pending-confirmation"]
        assert c.post("/api/sandbox/sns", json={"confirm": emails[0]["subscription_arn"]}).status_code == 200
        listed = c.get(f"/api/clusters/{cluster}/notifications").json()
        assert [s["status"] for s in listed["subscribers"] if s["protocol"] == "email"] == ["confirmed"]
        c.post(f"/api/clusters/{cluster}/notifications/test", json={"message": "after confirming"})
    [delivered] = [d for d in _deliveries(sandbox, "test") if d["protocol"] == "email" and d["outcome"] == "delivered"]
    # e-mail gets the readable text (MessageStructure json), with the console link
    assert "after confirming" in delivered["message"] and f"{sandbox.url}/clusters/{cluster}" in delivered["message"]


def test_a_failed_operation_is_told_once_with_its_console_link(sandbox, receiver):
    name = "e2e-notify-fail"
    sandbox.faults(failNextEksCreate=True)
    with sandbox.client() as c:
        op_id = c.post("/api/clusters", json={"name": name, "availabilityZones": ["us-east-1a", "us-east-1b"]}).json()[
            "operation"
        ]["id"]
        assert sandbox.wait_operation(op_id)["status"] == "FAILED"
        # RecordFailure publishes after it wrote FAILED: wait for that publish so the subscription below
        # follows the first failure's notification (its relay may still read the new subscriber: below)
        wait_until(lambda: _relayed(sandbox, name), reason="the first failure was never published")
        # subscribed after the first failure, before the retry that fails again
        hook = {"protocol": "webhook", "endpoint": receiver.url(f"/{name}"), "kinds": ["operation-failed"]}
        assert c.post(f"/api/clusters/{name}/notifications/subscribers", json=hook).status_code == 200
        sandbox.faults(failNextEksCreate=True)
        assert c.post(f"/api/operations/{op_id}/retry").status_code == 202
    assert sandbox.wait_operation(op_id)["status"] == "FAILED"
    [text] = wait_until(lambda: _texts(receiver, f"/{name}", "attempt 2)"), reason="no failure notification")
    assert f"{sandbox.url}/operations/{op_id}" in text and "UnsupportedAvailabilityZoneException" in text
    relayed = _relayed(sandbox, name)
    # each failed attempt published once (the first one before the webhook subscribed)
    assert sorted("attempt 1)" in d["message"] for d in relayed) == [False, True], relayed
    # the webhook told of the retry's failure once. The relay Lambda runs after SNS recorded the publish
    # and reads the subscribers then (SNS invokes Lambda subscribers asynchronously:
    # https://docs.aws.amazon.com/sns/latest/dg/sns-lambda-as-subscriber.html), so the first failure may
    # reach a subscriber added in between; if it does, once.
    texts = [r.body["text"] for r in receiver.posts(f"/{name}")]
    assert [t for t in texts if "attempt 2)" in t] == [text], texts
    assert len(texts) == len(set(texts)) and all(op_id in t for t in texts), texts


def _relayed(sandbox, name: str) -> list[dict]:
    with sandbox.client() as c:
        items = c.get("/api/sandbox/sns").json()["items"]
    kind = {"cluster": name, "kind": "operation-failed"}
    return [d for d in items if d["protocol"] == "lambda" and d["attributes"] == kind]


def test_an_opened_incident_is_told_once_with_the_cluster_console_link(sandbox, cluster, receiver):
    sandbox.install_dependencies(cluster)
    with sandbox.client() as c:
        body = {"availabilityZone": "us-east-1a", "instanceGroups": [GROUP], "nodeRecovery": "None"}
        op = c.post(f"/api/clusters/{cluster}/hyperpod", json=body)
        assert sandbox.wait_operation(op.json()["operation"]["id"])["status"] == "SUCCEEDED"
        [node_id] = [n["nodeId"] for n in c.get(f"/api/clusters/{cluster}/nodes").json()["items"]]
    sandbox.faults(nodeFault={"cluster": cluster, "nodeId": node_id, "kind": "gpu"})

    def folded_pair():
        with sandbox.client("viewer") as c:
            items = c.get(f"/api/clusters/{cluster}/incidents").json()["items"]
        return [i for i in items if i["nodeId"] == node_id and i["events"] >= 2]

    [incident] = wait_until(folded_pair, timeout=90, reason="the fault's health events were not folded")
    [text] = wait_until(lambda: _texts(receiver, f"/{cluster}", incident["id"]), reason="no incident notification")
    assert node_id in text and f"{sandbox.url}/clusters/{cluster}" in text
    # AWS sends health events in pairs: both folded into the incident, told once
    assert len(_deliveries(sandbox, "incident-opened")) == 1
    assert len(_texts(receiver, f"/{cluster}", incident["id"])) == 1
