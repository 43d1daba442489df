"""The Jobs tab in headless Chromium against the real sandbox: submit a recipe job, see it listed, open it
and watch it reach Succeeded with its pods (node and zone), restart budget and the tail of its log."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.sandbox.browser.conftest import App
from tests.sandbox.jobs_support import CLAIM, NAME, ready_cluster

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def real(sandbox) -> App:
    ready_cluster(sandbox)
    return App(sandbox.url, dict(sandbox.tokens))


def test_jobs_tab_submits_a_recipe_and_follows_it_to_succeeded(real: App, page: Page, sandbox, shot, axe) -> None:
    page.add_init_script(f"sessionStorage.setItem('launchpod.token', {real.tokens['operator']!r})")
    page.goto(f"{real.url}/clusters/{NAME}?tab=jobs")
    expect(page.get_by_role("heading", name="Submit a job")).to_be_visible()
    page.get_by_role("textbox", name="Job name", exact=True).fill("ui-torchrun")
    page.get_by_role("textbox", name="Instance group", exact=True).fill("gpu")
    page.get_by_role("textbox", name="Storage claim", exact=True).fill(CLAIM)
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

    # a refusal shows the API's words: the same name again is a 409 saying the job exists
    page.get_by_role("textbox", name="Job name", exact=True).fill("ui-torchrun")
    page.get_by_role("button", name="Submit job").click()
    expect(page.get_by_text("already exists").first).to_be_visible()
    real.api("DELETE", f"/clusters/{NAME}/jobs/ui-torchrun", role="operator", params={"confirm": "ui-torchrun"})
