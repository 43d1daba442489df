"""The Spaces tab in headless Chromium against the real sandbox: create a JupyterLab Space with the shared
bucket from the form, see it listed with its owner and /data, watch it reach Running with the command that
opens it, stop it from the list, and delete it after its plan."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.sandbox.browser.conftest import App, as_role
from tests.sandbox.jobs_support import CLAIM, NAME, ready_cluster

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def real(sandbox) -> App:
    ready_cluster(sandbox)
    return App(sandbox.url, dict(sandbox.tokens))


def test_spaces_tab_creates_a_space_lists_it_running_and_stops_and_deletes_it(real: App, page: Page, shot, axe) -> None:
    as_role(real, page, "operator")
    page.goto(f"{real.url}/clusters/{NAME}?tab=spaces")
    expect(page.get_by_role("heading", name="Create a Space")).to_be_visible()
    page.get_by_role("textbox", name="Space name").fill("ui-notebook")
    # 600 idle minutes are 3 real minutes at the sandbox's time scale; the default hour would stop it mid-test
    page.get_by_role("spinbutton", name="Idle minutes").fill("600")
    # the shared bucket is chosen by default once the cluster's storage is read; until then Create waits
    expect(page.get_by_role("button", name="Create Space")).to_be_enabled(timeout=30_000)
    expect(page.get_by_text(CLAIM, exact=True).first).to_be_visible()
    page.get_by_role("button", name="Create Space").click()

    row = page.get_by_role("row").filter(has_text="ui-notebook")
    expect(row).to_contain_text("/data")
    expect(row).to_contain_text("JupyterLab")
    expect(row).to_contain_text("Running", timeout=30_000)
    expect(row.get_by_role("button", name="Copy port-forward")).to_be_visible()
    shot(page, "running", full_page=True)
    violations = axe(page)
    assert violations == [], violations

    row.get_by_role("button", name="Stop").click()
    expect(row).to_contain_text("Stopped", timeout=30_000)
    expect(row.get_by_role("button", name="Start")).to_be_visible()
    shot(page, "stopped")

    row.get_by_role("button", name="Delete").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Workspace default/ui-notebook")
    dialog.get_by_role("button", name="Delete Space").click()
    expect(page.get_by_text("No Spaces yet.")).to_be_visible(timeout=30_000)
