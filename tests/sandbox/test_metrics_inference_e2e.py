"""An endpoint's serving metrics through the API, from the HyperPod observability add-on's workspace on the
shared inference cluster: the request rate is zero before the first invocation and follows the invocations
after; latency, time to first token and tokens per second come from the same requests (vLLM's own ``vllm:*``
names: a container endpoint runs without the inference operator); the GPU the endpoint holds shows memory in
use."""

from __future__ import annotations

import time

import pytest

from tests.sandbox.aws.support import wait_until
from tests.sandbox.inference_support import NAME, container_endpoint, deploy, post, ready_cluster
from tests.sandbox.metrics_support import metrics, observability_on, series

pytestmark = pytest.mark.e2e

CHAT = {"messages": [{"role": "user", "content": "how busy is my endpoint"}], "maxTokens": 16}
BODY = container_endpoint("metered")


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


def _view(sandbox, since: float) -> dict:
    minutes = max(1, int((time.time() - since) // 60) + 1)
    return metrics(sandbox, NAME, "/endpoints/metered/metrics", minutes=minutes, step=1, points="true")


def test_an_endpoints_request_rate_follows_its_invocations(sandbox, cluster):
    observability_on(sandbox, NAME)
    done = deploy(sandbox, BODY)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    try:
        quiet = _view(sandbox, time.time() - 30)
        assert quiet["available"] is True and series(quiet, "requestRate") == [], quiet  # never invoked: no series
        first = time.time()
        for _ in range(6):
            answer = post(sandbox, "/endpoints/metered/invoke", CHAT)
            assert answer.status_code == 200, answer.text

        def rate_reaches(requests: int) -> dict | None:
            """The view once the rate's last point (at a whole second) counts ``requests`` over its 60 s window."""
            view = _view(sandbox, first)
            found = series(view, "requestRate")
            return view if found and found[0]["summary"]["last"] == pytest.approx(requests / 60, rel=0.01) else None

        view = wait_until(lambda: rate_reaches(6), timeout=30, interval=0.5, reason="a rate of the six requests")
        (rate,) = series(view, "requestRate")
        assert rate["points"][0][0] >= first - 1, rate  # the series begins with the first invocation
        (p50,), (p95,), (ttft,) = (series(view, m) for m in ("latencyP50", "latencyP95", "timeToFirstTokenP50"))
        assert 0 < ttft["summary"]["last"] < p50["summary"]["last"] <= p95["summary"]["last"], (ttft, p50, p95)
        # a vLLM container endpoint is read by vLLM's own names, which count the tokens it generates
        (tokens,) = series(view, "tokensPerSecond")
        assert tokens["unit"] == "tokens/s" and tokens["summary"]["max"] > 0, tokens

        for _ in range(6):
            assert post(sandbox, "/endpoints/metered/invoke", CHAT).status_code == 200
        wait_until(lambda: rate_reaches(12), timeout=30, interval=0.5, reason="the rate rising with six more requests")

    finally:
        with sandbox.client("operator") as c:
            deleted = c.delete(f"/api/clusters/{NAME}/endpoints/metered")
        assert deleted.status_code == 202, deleted.text
        assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
