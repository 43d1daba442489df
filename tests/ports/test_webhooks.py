"""The Webhooks contract: the in-memory fake (tests/fakes/webhooks.py) and adapters.webhooks against the sandbox's
WebhookReceiver (a local HTTP server) answer alike: an address's host resolved, a host that does not resolve
refused (OSError), a JSON body delivered with the receiver's status, and a URL nobody listens at unreachable (a
RetryableError the relay retries)."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from launchpod.adapters import webhooks
from launchpod.domain.errors import RetryableError
from launchpod.runtime.wiring import Webhooks as Port

from sandbox.webhooks import WebhookReceiver
from tests.fakes.webhooks import Webhooks

# The port; the URL of a listening webhook; the bodies it received.
Side = tuple[Port, str, Callable[[], list[Any]]]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(params=["fake", "receiver"])
def side(request: pytest.FixtureRequest) -> Iterator[Side]:
    if request.param == "fake":
        url = "http://127.0.0.1:8555/hook"
        fake = Webhooks({url: 200})
        yield fake, url, lambda: [body for _, body in fake.posted]
        return
    receiver = WebhookReceiver().start()
    yield webhooks, receiver.url(), lambda: [r.body for r in receiver.posts()]
    receiver.stop()


def test_an_ip_address_resolves_to_itself(side: Side) -> None:
    port, url, _ = side
    assert port.addresses(url) == ["127.0.0.1"]


def test_a_host_that_does_not_resolve_is_refused(side: Side) -> None:
    with pytest.raises(OSError):
        side[0].addresses("https://nowhere.invalid/hook")  # .invalid never resolves (RFC 6761)


def test_a_json_body_is_delivered_and_the_status_answered(side: Side) -> None:
    port, url, received = side
    assert port.post_json(url, {"text": "Cluster c1 failed"}) == 200
    assert received() == [{"text": "Cluster c1 failed"}]


def test_a_url_nobody_listens_at_is_unreachable(side: Side) -> None:
    with pytest.raises(RetryableError, match=r"Webhook http://127\.0\.0\.1:\d+/hook is unreachable"):
        side[0].post_json(f"http://127.0.0.1:{_closed_port()}/hook", {"text": "x"})
