"""An endpoint's traffic charts in headless Chromium on the shared inference cluster: a vLLM container endpoint
invoked a few times shows its request rate, latency, time to first token and tokens generated per second
(vLLM's own names, from the HyperPod observability add-on's workspace) on its page in the Inference tab."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.sandbox.browser.conftest import App, as_role, pick_segment
from tests.sandbox.inference_support import NAME, container_endpoint, deploy, post, ready_cluster
from tests.sandbox.metrics_support import observability_on

pytestmark = pytest.mark.browser

CHAT = {"messages": [{"role": "user", "content": "chart my traffic"}], "maxTokens": 16}
BODY = container_endpoint("charted")


@pytest.fixture(scope="module")
def real(sandbox) -> App:
    ready_cluster(sandbox)
    return App(sandbox.url, dict(sandbox.tokens))


def test_an_endpoints_traffic_charts_show_its_requests_and_tokens(real: App, page: Page, sandbox, shot) -> None:
    as_role(real, page)
    observability_on(sandbox, NAME)
    done = deploy(sandbox, BODY)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    try:
        for _ in range(3):
            answer = post(sandbox, "/endpoints/charted/invoke", CHAT)
            assert answer.status_code == 200, answer.text
        page.goto(f"{real.url}/clusters/{NAME}?tab=inference&endpoint=charted")
        charts = page.get_by_test_id("metrics-get_endpoint_metrics")
        try:
            expect(charts).to_be_visible(timeout=60_000)
        finally:
            shot(page, "endpoint-opened", full_page=True)
        pick_segment(charts, "15 minutes")
        for title in ("Request rate", "Latency p95", "Time to first token p50", "Tokens generated per second"):
            expect(charts).to_contain_text(re.compile(rf"{title} last [\d.]+"), timeout=30_000)
        tokens = re.search(r"Tokens generated per second last [\d.]+ [^·]*· max ([\d.]+)", charts.inner_text())
        assert tokens and float(tokens.group(1)) > 0, charts.inner_text()
        charts.scroll_into_view_if_needed()
        shot(page, "endpoint-traffic", full_page=True)
    finally:
        deleted = real.api("DELETE", f"/clusters/{NAME}/endpoints/charted", role="operator")
        assert deleted.status_code == 202, deleted.text
        assert real.wait_operation(deleted.json()["operation"]["id"])["status"] == "SUCCEEDED"
