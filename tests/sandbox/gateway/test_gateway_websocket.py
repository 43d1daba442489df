"""The sandbox gateway plays an API Gateway WebSocket API, including pushes through post_to_connection."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from sandbox.auth import SandboxTokens
from sandbox.gateway import build_gateway, connections

ENDPOINT = "https://lpsandbox.execute-api.us-east-1.amazonaws.com/prod"


def management_client() -> Any:
    # Exactly what a stream Lambda does: the endpoint comes from the event's requestContext.
    return boto3.client("apigatewaymanagementapi", endpoint_url=ENDPOINT, region_name="us-east-1")


class FakeStreamLambdas:
    """$connect / $default / $disconnect handlers; '$default' can push through the management API."""

    def __init__(self, connect_status: int = 200) -> None:
        self.connect_status = connect_status
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.disconnected = threading.Event()

    def __call__(self, name: str, event: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((name, event))
        if name == "launchpod-ws-connect":
            return {"statusCode": self.connect_status}
        if name == "launchpod-ws-disconnect":
            self.disconnected.set()
            return {"statusCode": 200}
        body = event["body"]
        if body == "push":
            context = event["requestContext"]
            endpoint = f"https://{context['domainName']}/{context['stage']}"
            boto3.client("apigatewaymanagementapi", endpoint_url=endpoint, region_name="us-east-1").post_to_connection(
                ConnectionId=context["connectionId"], Data=b'{"pushed": true}'
            )
            return {"statusCode": 200}
        if body == "crash":
            raise RuntimeError("handler crashed")
        if body == "quiet":
            return {"statusCode": 200}
        return {"statusCode": 200, "body": json.dumps({"echo": body})}

    def events(self, name: str) -> list[dict[str, Any]]:
        return [event for called, event in self.calls if called == name]


@pytest.fixture(autouse=True)
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.setenv(key, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        yield


@pytest.fixture
def tokens() -> SandboxTokens:
    return SandboxTokens.generate()


def test_connect_message_disconnect_flow(tokens: SandboxTokens) -> None:
    lambdas = FakeStreamLambdas()
    client = TestClient(build_gateway(lambda_invoke=lambdas, tokens=tokens))
    with client.websocket_connect(f"/ws?token={tokens.token_for('viewer')}") as ws:
        ws.send_text("hello")
        assert json.loads(ws.receive_text()) == {"echo": "hello"}
        ws.send_text("push")  # the handler itself calls post_to_connection
        assert json.loads(ws.receive_text()) == {"pushed": True}
    assert lambdas.disconnected.wait(5)

    connect = lambdas.events("launchpod-ws-connect")[0]["requestContext"]
    assert connect["routeKey"] == "$connect" and connect["eventType"] == "CONNECT"
    assert connect["domainName"] == "lpsandbox.execute-api.us-east-1.amazonaws.com" and connect["stage"] == "prod"
    assert connect["authorizer"]["principalId"] == "viewer" and connect["authorizer"]["role"] == "viewer"
    assert connect["authorizer"]["claims"]["sub"] == "sandbox-viewer"
    assert len(connect["connectionId"]) == 16 and connect["apiId"] == "lpsandbox" and connect["requestId"]
    message = lambdas.events("launchpod-ws-message")[0]
    assert message["requestContext"]["routeKey"] == "$default" and message["requestContext"]["eventType"] == "MESSAGE"
    assert message["body"] == "hello" and message["requestContext"]["connectionId"] == connect["connectionId"]
    disconnect = lambdas.events("launchpod-ws-disconnect")[0]["requestContext"]
    assert disconnect["routeKey"] == "$disconnect" and disconnect["eventType"] == "DISCONNECT"
    assert disconnect["connectionId"] == connect["connectionId"]


def test_post_to_connection_from_another_thread_reaches_the_client(tokens: SandboxTokens) -> None:
    lambdas = FakeStreamLambdas()
    client = TestClient(build_gateway(lambda_invoke=lambdas, tokens=tokens))
    with client.websocket_connect("/ws", headers={"Authorization": f"Bearer {tokens.token_for('admin')}"}) as ws:
        connection_id = lambdas.events("launchpod-ws-connect")[0]["requestContext"]["connectionId"]
        errors: list[BaseException] = []

        def push() -> None:
            try:
                api = management_client()
                api.post_to_connection(ConnectionId=connection_id, Data=b'{"operation": "op-1", "status": "RUNNING"}')
                info = api.get_connection(ConnectionId=connection_id)
                assert info["Identity"]["SourceIp"]
            except BaseException as exc:  # surfaced below
                errors.append(exc)

        worker = threading.Thread(target=push)
        worker.start()
        assert json.loads(ws.receive_text()) == {"operation": "op-1", "status": "RUNNING"}
        worker.join(5)
        assert not errors
    assert lambdas.disconnected.wait(5)


def test_unknown_or_closed_connection_is_gone(tokens: SandboxTokens) -> None:
    api = management_client()
    with pytest.raises(api.exceptions.GoneException):
        api.post_to_connection(ConnectionId="Zm9vYmFyYmF6cXU=", Data=b"x")
    with pytest.raises(api.exceptions.GoneException):
        api.get_connection(ConnectionId="Zm9vYmFyYmF6cXU=")

    lambdas = FakeStreamLambdas()
    client = TestClient(build_gateway(lambda_invoke=lambdas, tokens=tokens))
    with client.websocket_connect(f"/ws?token={tokens.token_for('viewer')}"):
        connection_id = lambdas.events("launchpod-ws-connect")[0]["requestContext"]["connectionId"]
    assert lambdas.disconnected.wait(5)
    assert connection_id not in connections().ids()
    with pytest.raises(api.exceptions.GoneException):
        api.post_to_connection(ConnectionId=connection_id, Data=b"late")


def test_delete_connection_closes_the_socket(tokens: SandboxTokens) -> None:
    lambdas = FakeStreamLambdas()
    client = TestClient(build_gateway(lambda_invoke=lambdas, tokens=tokens))
    with client.websocket_connect(f"/ws?token={tokens.token_for('viewer')}") as ws:
        connection_id = lambdas.events("launchpod-ws-connect")[0]["requestContext"]["connectionId"]
        worker = threading.Thread(target=lambda: management_client().delete_connection(ConnectionId=connection_id))
        worker.start()
        with pytest.raises(WebSocketDisconnect):
            ws.receive_text()
        worker.join(5)
    assert lambdas.disconnected.wait(5)


@pytest.mark.parametrize("query", ["", "?token=forged"])
def test_missing_or_invalid_token_is_refused_before_connect(tokens: SandboxTokens, query: str) -> None:
    lambdas = FakeStreamLambdas()
    client = TestClient(build_gateway(lambda_invoke=lambdas, tokens=tokens))
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(f"/ws{query}"):
        pass
    assert refused.value.code == 4401
    assert lambdas.calls == []


def test_connect_handler_can_refuse(tokens: SandboxTokens) -> None:
    lambdas = FakeStreamLambdas(connect_status=403)
    client = TestClient(build_gateway(lambda_invoke=lambdas, tokens=tokens))
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect(f"/ws?token={tokens.token_for('viewer')}"),
    ):
        pass
    assert [name for name, _ in lambdas.calls] == ["launchpod-ws-connect"]


def test_failing_message_handler_answers_internal_server_error(tokens: SandboxTokens) -> None:
    lambdas = FakeStreamLambdas()
    client = TestClient(build_gateway(lambda_invoke=lambdas, tokens=tokens))
    with client.websocket_connect(f"/ws?token={tokens.token_for('viewer')}") as ws:
        ws.send_text("crash")
        answer = json.loads(ws.receive_text())
        assert answer["message"] == "Internal server error" and "handler crashed" not in json.dumps(answer)
        ws.send_text("quiet")
        ws.send_text("after")
        assert json.loads(ws.receive_text()) == {"echo": "after"}
