"""Metrics charts in headless Chromium against the real sandbox's shared jobs cluster: without the HyperPod
observability add-on the overview's charts link to the feature, which is turned on from the Features tab (its
plan: the workspace, the collector's role, the add-on); then a job's GPU chart shows its nodes busy while it
trains and idle after, the overview charts GPU utilisation by group with the idle GPU nodes and their estimated
cost, and a node's detail charts its GPUs."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.sandbox.aws.support import wait_until
from tests.sandbox.browser.conftest import App, as_role, operation_succeeded, pick_segment
from tests.sandbox.jobs_support import NAME, custom_job, log_interval, ready_cluster, submit
from tests.sandbox.metrics_support import ADDON

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def real(sandbox) -> App:
    ready_cluster(sandbox)
    return App(sandbox.url, dict(sandbox.tokens))


def _without_add_on(sandbox) -> None:
    eks = sandbox.aws("eks")
    if ADDON in eks.list_addons(clusterName=NAME)["addons"]:
        eks.delete_addon(clusterName=NAME, addonName=ADDON)
    wait_until(lambda: ADDON not in eks.list_addons(clusterName=NAME)["addons"], timeout=60, reason=f"{ADDON} gone")


def test_charts_follow_a_job_and_show_idle_nodes_with_their_cost(real: App, page: Page, sandbox, shot) -> None:
    as_role(real, page)
    _without_add_on(sandbox)
    page.goto(f"{real.url}/clusters/{NAME}")
    empty = page.get_by_test_id("metrics-empty").first
    expect(empty).to_contain_text("No metrics yet.")
    expect(empty).not_to_contain_text("configurationValues")  # what a person does, not the add-on's configuration key
    shot(page, "empty-state", full_page=True)
    empty.get_by_role("link", name="Turn on HyperPod observability").click()
    page.get_by_label("HyperPod observability (Amazon Managed Prometheus) on or off").check()
    # an existing Grafana workspace may be given with it (optional; left blank here: the sandbox has no Grafana)
    expect(page.get_by_label("Amazon Managed Grafana workspace ARN")).to_be_visible()
    page.get_by_role("button", name="Preview plan").click()
    expect(page.get_by_text(f"Amazon Managed Prometheus workspace launchpod-{NAME}-metrics")).to_be_visible()
    shot(page, "enable-plan", full_page=True)
    page.get_by_role("button", name="Apply changes").click()
    operation_succeeded(page)
    try:
        with log_interval(sandbox, 30):  # ~6 s of training: two points or more of the 15-minute chart's 3 s steps
            assert submit(sandbox, custom_job("ui-gpu")).status_code == 200
            page.goto(f"{real.url}/clusters/{NAME}?tab=jobs")
            page.get_by_role("button", name="ui-gpu").click()
            charts = page.get_by_test_id("metrics-get_job_metrics")
            pick_segment(charts, "15 minutes")
            expect(charts).to_contain_text(re.compile(r"max 9\d\.\d %"), timeout=60_000)  # busy while it trains
            shot(page, "job-training", full_page=True)
            expect(page.get_by_test_id("job-status")).to_contain_text("Succeeded", timeout=60_000)

        def idle_after() -> bool:
            """The chart read again (by itself it refreshes every 30 s) shows the GPUs idle after the job."""
            pick_segment(charts, "1 hour")
            pick_segment(charts, "15 minutes")
            return re.search(r"GPU utilisation last 0 %", charts.inner_text()) is not None

        wait_until(idle_after, timeout=30, interval=1, reason="the job's GPUs idle on the chart")
        shot(page, "job-ended", full_page=True)

        idle = page.get_by_test_id("idle-capacity")

        def idle_node_listed() -> bool:
            """The overview opened again: its idle panel lists the node once it has been idle past the threshold
            (the panel reads once per visit; on a loaded machine the first visit can come before that)."""
            page.goto(f"{real.url}/clusters/{NAME}")
            expect(page.get_by_role("heading", name="GPU utilisation by instance group")).to_be_visible()
            pick_segment(idle, "now")
            try:
                expect(idle.get_by_role("row").filter(has_text="ml.p5.48xlarge").first).to_contain_text(
                    "~$", timeout=10_000
                )
            except AssertionError:
                return False
            return True

        try:
            wait_until(idle_node_listed, timeout=60, interval=1, reason="the idle node with its cost on the overview")
            expect(idle.get_by_test_id("price-note")).to_contain_text("Costs are estimates")
        finally:
            shot(page, "overview", full_page=True)

        job = real.api("GET", f"/clusters/{NAME}/jobs/ui-gpu", role="viewer").json()
        node_id = job["pods"][0]["kubernetesNode"].removeprefix("hyperpod-")  # the node the job trained on
        page.goto(f"{real.url}/clusters/{NAME}?tab=nodes")
        page.get_by_role("row").filter(has_text=node_id).get_by_role("checkbox").check()
        node = page.get_by_test_id("metrics-get_node_metrics")
        pick_segment(node, "15 minutes")

        def power() -> tuple[float, float] | None:
            found = re.search(r"GPU power last ([\d.]+) W · max ([\d.]+) W", node.inner_text())
            return (float(found.group(1)), float(found.group(2))) if found else None

        def fell() -> tuple[float, float] | None:
            found = power()
            return found if found and found[1] > found[0] > 0 else None

        # drawn while the job trained, idle power now: the chart reloads every 30 s, so a first drawing made before
        # the exporter's idle sample shows the training power as its last point
        last, peak = wait_until(fell, timeout=45, interval=0.5, reason="the node's GPU power chart falling to idle")
        assert peak > last > 0
        shot(page, "node", full_page=True)
    finally:
        real.api("DELETE", f"/clusters/{NAME}/jobs/ui-gpu", role="operator", params={"confirm": "ui-gpu"})
