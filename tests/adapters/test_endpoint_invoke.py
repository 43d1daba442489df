"""Invoking an endpoint: the answer is bounded in time and in size, and the call goes to the endpoint's own
Service through the API server's proxy. A real kubernetes client talks HTTP to a local server that plays
the API server's proxy for one Service (slow, huge or well-behaved, as each test needs)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from kubernetes import client as k8s
from launchpod.adapters.k8s import endpoints
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.domain.inference.endpoints import RealEndpoint

ENDPOINT = RealEndpoint(
    kind="container",
    primary={"metadata": {"name": "qwen", "namespace": "serving"}},
    service={"metadata": {"name": "qwen-svc"}, "spec": {"ports": [{"port": 8000}]}},
)
PROXY = "/api/v1/namespaces/serving/services/qwen-svc:8000/proxy/v1/chat/completions"


class _Proxy(BaseHTTPRequestHandler):
    behaviour = "ok"
    paths: list[str] = []

    def do_POST(self) -> None:
        self.paths.append(self.path)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.behaviour == "slow":
            time.sleep(10)
        body = (
            b'{"text": "' + b"x" * (endpoints.MAX_ANSWER_BYTES + 10) + b'"}'
            if self.behaviour == "huge"
            else json.dumps({"model": "qwen3", "choices": [{"message": {"content": "hi"}}]}).encode()
        )
        status = 404 if self.behaviour == "missing" else 200
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the slow case) or stopped reading (the huge case)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def proxy(monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Proxy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    config = k8s.Configuration()
    config.host = f"http://127.0.0.1:{server.server_address[1]}"
    config.api_key = {"BearerToken": "Bearer t"}
    api = k8s.ApiClient(config)
    monkeypatch.setattr("launchpod.adapters.k8s.client.k8s_client_for", lambda cluster: api)
    _Proxy.paths = []
    yield _Proxy
    server.shutdown()
    server.server_close()


def test_the_answer_comes_from_the_endpoints_own_service_through_the_api_server_proxy(proxy):
    proxy.behaviour = "ok"
    answer, truncated = endpoints.chat("c1", ENDPOINT, {"messages": [{"role": "user", "content": "hi"}]})
    assert (answer["model"], truncated) == ("qwen3", False)
    assert proxy.paths == [PROXY]


def test_an_answer_over_256_kib_is_cut_and_said_so(proxy):
    proxy.behaviour = "huge"
    assert endpoints.chat("c1", ENDPOINT, {"messages": []}) == ({}, True)


def test_an_endpoint_that_does_not_answer_in_time_is_a_retryable_error_naming_the_bound(proxy, monkeypatch):
    monkeypatch.setattr(endpoints, "INVOKE_TIMEOUT_SECONDS", 0.3)
    proxy.behaviour = "slow"
    started = time.monotonic()
    with pytest.raises(RetryableError, match=r"did not answer within 0\.3 s"):
        endpoints.chat("c1", ENDPOINT, {"messages": []})
    assert time.monotonic() - started < 8, "the call waited for the slow answer instead of its bound"


def test_a_4xx_from_the_endpoint_is_permanent(proxy):
    proxy.behaviour = "missing"
    with pytest.raises(PermanentError):
        endpoints.chat("c1", ENDPOINT, {"messages": []})
