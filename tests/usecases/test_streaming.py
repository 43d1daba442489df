"""The WebSocket side: what a subscriber receives, and what happens to connections that are gone."""

from __future__ import annotations

from datetime import UTC, datetime

from launchpod.contracts.operations import OperationView
from launchpod.contracts.streaming import SubscribeMessage
from launchpod.usecases import streaming

from tests.usecases.stream_fakes import Connections, Invokes, Leases, Push, ports

ENDPOINT = "https://ws.example/prod"


def _operation() -> OperationView:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    return OperationView(
        id="op-01abcdefgh12345678",
        kind="create-cluster",
        target="c1",
        status="RUNNING",
        createdAt=at,
        updatedAt=at,
        createdBy="alice",
        request={},
        phases=[],
        statusUrl="/api/operations/op-01abcdefgh12345678",
    )


def _subscribe(p: streaming.StreamPorts, conn: str, *topics: str) -> streaming.Reply:
    streaming.connect(conn, ENDPOINT, "alice", ports=p)
    message = SubscribeMessage(action="subscribe", topics=list(topics))
    return streaming.on_message(conn, ENDPOINT, message, ports=p)


def test_a_connection_without_a_caller_is_refused():
    p = ports()
    assert not streaming.connect("c-1", ENDPOINT, None, ports=p)
    assert p.connections.subscribers("cluster:c1") == []


def test_a_message_reaches_every_subscriber_and_a_gone_connection_is_forgotten():
    p = ports()
    assert isinstance(p.push, Push) and isinstance(p.connections, Connections)
    _subscribe(p, "c-1", "cluster:c1")
    _subscribe(p, "c-2", "cluster:c1")
    p.push.gone.add("c-2")
    assert streaming.publish("cluster:c1", "cluster", {"name": "c1"}, ports=p) == (1, 1)
    [message] = p.push.to("c-1")
    assert message == {"topic": "cluster:c1", "type": "cluster", "data": {"name": "c1"}}
    assert p.connections.subscribers("cluster:c1") == [("c-1", ENDPOINT)]


def test_a_new_operation_subscriber_gets_the_operation_at_once():
    p = ports(_operation())
    assert isinstance(p.push, Push)
    reply = _subscribe(p, "c-1", "operation:op-01abcdefgh12345678")
    assert (reply.kind, reply.status, reply.data) == (
        "subscribed",
        200,
        {"topics": ["operation:op-01abcdefgh12345678"]},
    )
    [snapshot] = p.push.to("c-1")
    assert snapshot["type"] == "operation" and snapshot["data"]["status"] == "RUNNING"


def test_an_unknown_topic_is_refused_with_the_topics_one_can_use():
    p = ports()
    reply = _subscribe(p, "c-1", "jobs:everything")
    assert reply.status == 400 and "operation:<id>, cluster:<name>" in reply.data["message"]
    assert p.connections.subscribers("jobs:everything") == []


def test_two_subscribers_of_a_logs_topic_start_one_pump():
    invokes = Invokes()
    p = ports(invokes=invokes)
    topic = "logs:c1/default/trainer-0"
    _subscribe(p, "c-1", topic)
    _subscribe(p, "c-2", topic)
    [(function, event)] = invokes.calls
    assert function == "launchpod-log-pump" and event["topic"] == topic


def test_a_pump_that_cannot_be_started_gives_its_lease_back():
    p = ports(invokes=Invokes(failing=True))
    assert isinstance(p.pumps, Leases)
    assert not streaming.start_log_pump("logs:c1/default/trainer-0", ports=p)
    assert p.pumps.held == {}


def test_an_operation_change_goes_to_its_own_and_its_clusters_subscribers():
    p = ports()
    assert isinstance(p.push, Push)
    _subscribe(p, "c-1", "operation:op-01abcdefgh12345678")
    _subscribe(p, "c-2", "cluster:c1")
    image = _operation().model_dump(mode="json") | {"status": "SUCCEEDED"}
    assert streaming.operations_changed([image], ports=p) == (2, 0)
    assert [m["data"]["status"] for m in p.push.to("c-1") + p.push.to("c-2")] == ["SUCCEEDED", "SUCCEEDED"]


def test_a_batch_of_one_operations_changes_pushes_its_newest_state_once():
    p = ports()
    assert isinstance(p.push, Push)
    _subscribe(p, "c-1", "operation:op-01abcdefgh12345678")
    before = len(p.push.to("c-1"))
    images = [_operation().model_dump(mode="json") | {"status": s} for s in ("RUNNING", "RUNNING", "SUCCEEDED")]
    assert streaming.operations_changed(images, ports=p) == (1, 0)
    assert [m["data"]["status"] for m in p.push.to("c-1")[before:]] == ["SUCCEEDED"]
