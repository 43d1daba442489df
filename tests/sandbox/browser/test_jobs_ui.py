"""The Jobs tab in headless Chromium against the real sandbox: submit a recipe job, see it listed, open it
and watch it reach Succeeded with its pods (node and zone), restart budget and the tail of its log; a
running job's log followed live over the WebSocket, each line once across the log pump's hand-overs, until
the pod ends; and, when a node failure recreates the job's pods, the panel moving to the new pod's log by
itself."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, Response, expect

from tests.sandbox.browser.conftest import App, as_role
from tests.sandbox.browser.test_web_ui import choose
from tests.sandbox.jobs_support import CLAIM, NAME, custom_job, ready_cluster, recipe_inputs, submit

STEPS = 10
PUMP = "launchpod-log-pump"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def real(sandbox) -> App:
    ready_cluster(sandbox)
    return App(sandbox.url, dict(sandbox.tokens))


def test_jobs_tab_submits_a_recipe_and_follows_it_to_succeeded(real: App, page: Page, sandbox, shot, axe) -> None:
    recipe_inputs(sandbox, "pytorch-torchrun", "ui-torchrun")  # the form's first recipe runs jobs/<job>/train.py
    as_role(real, page, "operator")
    page.goto(f"{real.url}/clusters/{NAME}?tab=jobs")
    expect(page.get_by_role("heading", name="Submit a job")).to_be_visible()
    page.get_by_role("textbox", name="Job name", exact=True).fill("ui-torchrun")
    choose(page, "Instance group", "gpu")  # the cluster's groups and storage are offered, not typed
    choose(page, "Storage claim", CLAIM)
    page.get_by_role("button", name="Submit job").click()

    expect(page.get_by_role("heading", name="ui-torchrun")).to_be_visible()
    expect(page.get_by_test_id("job-status")).to_contain_text("Succeeded", timeout=30_000)
    log = page.get_by_test_id("job-log")
    expect(log).to_contain_text("final checkpoint written")
    expect(page.get_by_text("0 process, 0 full; 0 used, 10 left")).to_be_visible()
    expect(page.get_by_role("cell", name="us-east-1a")).to_be_visible()
    expect(page.get_by_role("button", name="ui-torchrun")).to_be_visible()  # listed
    shot(page, "succeeded", full_page=True)
    violations = axe(page)
    assert violations == [], violations

    # the link a job-failed notification carries opens the job itself (docs/notifications.md)
    page.goto(f"{real.url}/clusters/{NAME}?tab=jobs&job=ui-torchrun")
    expect(page.get_by_role("heading", name="ui-torchrun")).to_be_visible()
    expect(page.get_by_test_id("job-status")).to_contain_text("Succeeded")

    # a refusal shows the API's words: the same name again is a 409 saying the job exists
    page.get_by_role("textbox", name="Job name", exact=True).fill("ui-torchrun")
    page.get_by_role("button", name="Submit job").click()
    expect(page.get_by_text("already exists").first).to_be_visible()
    real.api("DELETE", f"/clusters/{NAME}/jobs/ui-torchrun", role="operator", params={"confirm": "ui-torchrun"})

    # more nodes than the group has: submitted, and the form says how many pods wait and what to do
    page.get_by_role("textbox", name="Job name", exact=True).fill("ui-too-many")
    page.get_by_role("spinbutton", name="Nodes").fill("9")
    page.get_by_role("button", name="Submit job").click()
    expect(page.get_by_text(re.compile(r"pods will wait Pending until the group has 9 nodes"))).to_be_visible()
    shot(page, "too-many-nodes")
    real.api("DELETE", f"/clusters/{NAME}/jobs/ui-too-many", role="operator", params={"confirm": "ui-too-many"})

    # checkpointless on one node: refused under the Nodes field, saying it recovers from peers on 2 or more
    page.get_by_role("textbox", name="Job name", exact=True).fill("ui-ckptless")
    page.get_by_role("spinbutton", name="Nodes").fill("1")
    choose(page, "On a node failure", "Checkpointless: recover from peers")
    page.get_by_role("button", name="Submit job").click()
    expect(page.get_by_text("it needs at least 2 nodes").first).to_be_visible()
    shot(page, "checkpointless-one-node")


def _steps(text: str) -> list[int]:
    return [int(m) for m in re.findall(rf"\[rank0\] step (\d+)/{STEPS} ", text)]


def _open_job(real: App, page: Page, job: str) -> tuple[Locator, Locator]:
    as_role(real, page, "operator")
    page.goto(f"{real.url}/clusters/{NAME}?tab=jobs")
    page.get_by_role("button", name=job).click()
    return page.get_by_test_id("job-log"), page.get_by_test_id("job-log-transport")


def _every_line_once_to_the_end(log: Locator) -> None:
    expect(log).to_contain_text("final checkpoint written", timeout=40_000)
    lines = log.inner_text().splitlines()
    assert _steps("\n".join(lines)) == list(range(1, STEPS + 1)), lines  # every step once, in order
    assert len(lines) == len(set(lines)), [line for line in lines if lines.count(line) > 1]


@pytest.fixture
def slow_job(real: App, sandbox) -> Iterator[str]:
    """A job logging a step about every 2 s (400 simulated seconds at the tests' time scale), so it is still
    writing its log well after the page opened."""
    sandbox.faults(jobLogIntervalSeconds=400, jobSteps=STEPS)
    try:
        assert submit(sandbox, custom_job("ui-live")).status_code == 200
        yield "ui-live"
    finally:
        sandbox.faults(jobLogIntervalSeconds=10, jobSteps=40)
        real.api("DELETE", f"/clusters/{NAME}/jobs/ui-live", role="operator", params={"confirm": "ui-live"})


@pytest.fixture
def short_pump(sandbox) -> Iterator[None]:
    """The log pump's Lambda timeout made small, as a deployment could set it: it hands its cursor to a
    successor about every 1.5 s, so the page sees several hand-overs while the job logs."""
    lam = sandbox.aws("lambda")
    lam.update_function_configuration(FunctionName=PUMP, Timeout=3)
    try:
        yield
    finally:
        lam.update_function_configuration(FunctionName=PUMP, Timeout=300)


def test_job_log_follows_the_pod_live_over_the_websocket(
    real: App, page: Page, browser: Browser, short_pump: None, slow_job: str, shot
) -> None:
    log_reads: list[Response] = []
    page.on("response", lambda r: log_reads.append(r) if f"/jobs/{slow_job}/logs" in r.url else None)
    log, transport = _open_job(real, page, slow_job)
    expect(transport).to_contain_text("Live over WebSocket")
    expect(log).to_contain_text(f"step 1/{STEPS}")
    page.wait_for_timeout(1000)  # the seam's REST tail, read when the subscription was acknowledged
    seen, reads = _steps(log.inner_text()), len(log_reads)
    assert seen and max(seen) < STEPS, seen

    # a step the pod logs after this point shows up without a reload and without another REST read
    expect(log).to_contain_text(f"step {max(seen) + 1}/{STEPS} ", timeout=10_000)
    assert len(log_reads) == reads, [r.url for r in log_reads[reads:]]
    log.scroll_into_view_if_needed()
    shot(page, "live")

    # a second viewer joins the pump already running: the history from REST, then the stream, no line twice
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        joined_log, joined_transport = _open_job(real, context.new_page(), slow_job)
        expect(joined_transport).to_contain_text("Live over WebSocket")
        expect(transport).to_contain_text("Ended: the pod Succeeded", timeout=40_000)
        _every_line_once_to_the_end(log)
        expect(joined_transport).to_contain_text("Ended: the pod Succeeded")
        _every_line_once_to_the_end(joined_log)
    finally:
        context.close()
    log.scroll_into_view_if_needed()
    shot(page, "ended")


def test_job_log_falls_back_to_polling_without_a_websocket(real: App, page: Page, slow_job: str, shot) -> None:
    page.add_init_script("Object.defineProperty(window, 'WebSocket', { value: undefined })")
    log, transport = _open_job(real, page, slow_job)
    expect(transport).to_contain_text("Refreshing every 1 s")
    expect(log).to_contain_text(f"step 1/{STEPS}")
    seen = _steps(log.inner_text())
    assert seen and max(seen) < STEPS, seen
    expect(log).to_contain_text(f"step {max(seen) + 1}/{STEPS} ", timeout=10_000)
    _every_line_once_to_the_end(log)
    expect(transport).to_contain_text("Ended")
    log.scroll_into_view_if_needed()
    shot(page, "polling")


def test_job_log_moves_to_the_recreated_pod_after_a_full_job_restart(real: App, page: Page, sandbox, shot) -> None:
    sandbox.faults(jobLogIntervalSeconds=400, jobSteps=STEPS)
    try:
        body = custom_job("ui-moved", runPolicy={"jobMaxRetryCount": 2})
        assert submit(sandbox, body).status_code == 200
        # A node failure once two steps are trained: HyperPod's operator deletes and recreates every pod.
        sandbox.faults(jobFault={"cluster": NAME, "job": "ui-moved", "kind": "nodeFailure", "atStep": 2})
        log, transport = _open_job(real, page, "ui-moved")
        expect(transport).to_contain_text("Live over WebSocket")
        expect(log).to_contain_text(f"step 1/{STEPS}", timeout=20_000)

        # No reload: the recreated pod's first line (it resumes from the checkpoint at step 2), then its steps.
        # The old pod's last lines may be lost with it, as on EKS: a deleted pod's log goes with the pod.
        expect(log).to_contain_text("resuming from step 2", timeout=30_000)
        expect(transport).to_contain_text("Live over WebSocket")
        expect(log).to_contain_text(f"step 3/{STEPS} ", timeout=20_000)
        expect(page.get_by_text("0 process, 1 full; 1 used, 1 left")).to_be_visible()
        log.scroll_into_view_if_needed()
        shot(page, "moved")
        expect(transport).to_contain_text("Ended: the pod Succeeded", timeout=60_000)
        lines = log.inner_text().splitlines()
        # The new pod's log to its end, each line once; before it, at most the old pod's first steps.
        steps = _steps("\n".join(lines))
        assert steps == sorted(set(steps)) and steps[-(STEPS - 2) :] == list(range(3, STEPS + 1)), lines
        assert len(lines) == len(set(lines)), [line for line in lines if lines.count(line) > 1]
    finally:
        sandbox.faults(jobLogIntervalSeconds=10, jobSteps=40)
        real.api("DELETE", f"/clusters/{NAME}/jobs/ui-moved", role="operator", params={"confirm": "ui-moved"})
