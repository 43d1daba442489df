"""Observability in headless Chromium against the real sandbox: the Features tab shows its toggle like the
other features, and a finished job whose pod is gone shows its log from CloudWatch Logs, saying so."""

from __future__ import annotations

import json

import pytest
from kubernetes import client as k8s
from playwright.sync_api import Page, expect

from tests.sandbox.browser.conftest import App, as_role
from tests.sandbox.jobs_support import NAME, custom_job, ready_cluster, submit

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def real(sandbox) -> App:
    ready_cluster(sandbox)
    return App(sandbox.url, dict(sandbox.tokens))


def _observability(real: App, enabled: bool) -> None:
    response = real.api("PATCH", f"/clusters/{NAME}/features", json={"observability": {"enabled": enabled}})
    if response.status_code == 202:
        assert real.wait_operation(response.json()["operation"]["id"])["status"] == "SUCCEEDED"
    else:
        assert response.json()["status"] == "NOOP", response.text


def test_a_gone_pods_log_is_shown_from_cloudwatch_logs(real: App, page: Page, sandbox, shot) -> None:
    as_role(real, page)
    page.goto(f"{real.url}/clusters/{NAME}?tab=features")
    expect(page.get_by_test_id("feature-observability")).to_contain_text(
        "Observability (CloudWatch Container Insights)"
    )
    _observability(real, True)
    try:
        assert submit(sandbox, custom_job("ui-obs")).status_code == 200
        page.goto(f"{real.url}/clusters/{NAME}?tab=jobs")
        page.get_by_role("button", name="ui-obs").click()
        expect(page.get_by_test_id("job-status")).to_contain_text("Succeeded", timeout=30_000)
        core = k8s.CoreV1Api(sandbox.kube(NAME))
        pods = json.loads(core.list_namespaced_pod("default", _preload_content=False).data)["items"]
        for pod in [p["metadata"]["name"] for p in pods if p["metadata"]["name"].startswith("ui-obs-")]:
            core.delete_namespaced_pod(pod, "default", _preload_content=False)

        page.reload()
        page.get_by_role("button", name="ui-obs").click()
        expect(page.get_by_text("No pods yet.")).to_be_visible()
        expect(page.get_by_text("from CloudWatch Logs (the pod is gone)")).to_be_visible()
        expect(page.get_by_test_id("job-log")).to_contain_text("final checkpoint written")
        shot(page, "cloudwatch-log", full_page=True)
    finally:
        real.api("DELETE", f"/clusters/{NAME}/jobs/ui-obs", role="operator", params={"confirm": "ui-obs"})
        _observability(real, False)
