"""The console as a new user reads it at 1280 and 1440 px, on the shared jobs cluster in headless Chromium: a
cluster's sections listed whole under its name in the side navigation (a 12-tab bar cut "Instance groups" to
"tance groups"), each opened by its link and by its ?tab= deep link; the operations list saying what, when, how
long and who with no cell cut; and a refusal's fix said in words with where in the console to do it, no raw API
path in text meant for people."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, Route, expect

from tests.sandbox.browser.conftest import App, as_role, cluster_section
from tests.sandbox.jobs_support import NAME, ready_cluster

pytestmark = pytest.mark.browser
SECTIONS = {
    "overview": "Overview",
    "instance-groups": "Instance groups",
    "nodes": "Nodes",
    "dependencies": "Dependencies",
    "features": "Features",
    "storage": "Storage",
    "jobs": "Jobs",
    "spaces": "Spaces",
    "inference": "Inference",
    "notifications": "Notifications",
    "operations": "Operations",
}
# Elements (matched by ``selector``) whose text does not fit their box, or that stick out of ``within``.
CUT = """([selector, within]) => Array.from(document.querySelectorAll(selector)).filter((e) => {
  const box = e.getBoundingClientRect(), outer = e.closest(within).getBoundingClientRect();
  return e.scrollWidth > e.clientWidth + 1 || box.right > outer.right + 1;
}).map((e) => e.textContent)"""


@pytest.fixture(scope="module")
def real(sandbox) -> App:
    ready_cluster(sandbox)
    return App(sandbox.url, dict(sandbox.tokens))


def _signed_in(real: App, page: Page, width: int) -> Page:
    as_role(real, page).set_viewport_size({"width": width, "height": 900})
    return page


def test_a_clusters_sections_are_listed_whole_and_each_opens_from_its_link(real: App, page: Page, shot) -> None:
    page = _signed_in(real, page, 1440)
    for width in (1440, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{real.url}/clusters/{NAME}?tab=nodes")  # the deep link a notification or a test uses
        nav = page.get_by_role("navigation", name="Side navigation")
        expect(nav.locator("a[href*='?tab=']")).to_have_text(list(SECTIONS.values()))
        expect(cluster_section(page, "Nodes")).to_have_attribute("aria-current", "page")
        expect(page.locator("[data-section='nodes']")).to_be_visible()
        assert page.evaluate(CUT, ["nav a", "nav"]) == [], width  # every label whole, none past the nav's edge
        assert page.get_by_role("tablist").count() == 0  # no tab bar to scroll
        shot(page, f"nodes-{width}")
    # e2e-jobs was created without continuous provisioning: the note says what to do in words, not an API path
    expect(page.get_by_text("Clusters created with continuous provisioning have their events")).to_be_visible()
    expect(page.get_by_role("main")).not_to_contain_text("/api/")

    for tab, label in SECTIONS.items():
        cluster_section(page, label).click()
        expect(page).to_have_url(re.compile(rf"\?tab={tab}$"))
        expect(page.locator(f"[data-section='{tab}']")).to_have_accessible_name(label)
        expect(cluster_section(page, label)).to_have_attribute("aria-current", "page")
        if tab in ("instance-groups", "nodes"):  # the widest tables: every column inside the section
            expect(page.get_by_role("row").filter(has_text="ml.p5.48xlarge").first).to_be_visible()
            assert page.evaluate(CUT, ["[data-section] td, [data-section] th", "[data-section]"]) == [], tab
    expect(page.get_by_role("navigation", name="Breadcrumbs")).to_contain_text("Operations")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # nothing wider than the page


def test_the_operations_list_says_what_changed_when_for_how_long_and_who(real: App, page: Page, shot) -> None:
    newest = real.api("GET", "/operations", role="viewer", params={"cluster": NAME}).json()["items"][0]
    page = _signed_in(real, page, 1280)
    page.goto(f"{real.url}/operations?cluster={NAME}")
    row = page.get_by_role("row").filter(has_text=newest["id"])
    cells = row.get_by_role("cell")
    expect(cells).to_have_count(6)  # cluster, what it changes, status, started, duration, started by
    expect(cells.nth(1)).not_to_have_text(re.compile(r"^-?$"))  # a one-line summary of the change
    expect(cells.nth(3)).to_have_text(re.compile(r"\d{4}, \d{1,2}:\d\d:\d\d"))
    expect(cells.nth(4)).to_have_text(re.compile(r"^\d+(s|m \d+s|h \d+m)$"))
    expect(cells.nth(5)).to_have_text(newest["createdBy"])
    assert page.evaluate(CUT, ["td, th", "main"]) == []  # no cell cut, no column past the page
    shot(page, "operations")


def test_a_refusals_next_step_is_shown_as_where_to_do_it_not_as_an_api_call(real: App, page: Page, shot) -> None:
    """The envelope the API answers when the training operator is off (domain/jobs/rules.py)."""
    call = f'PATCH /api/clusters/{NAME}/features {{"trainingOperator": {{"enabled": true}}}}'
    refusal = {
        "code": "CONFLICT",
        "message": f"HyperPodPyTorchJob needs the HyperPod training operator, which is not installed on {NAME}. Turn"
        " on the training operator in the cluster's features, and submit again once it is ACTIVE.",
        "details": [
            {"field": "body.kind", "rule": "feature_enabled", "message": "trainingOperator"},
            {"field": None, "rule": "next_step", "message": call},
        ],
        "requestId": "r-1",
    }

    def refuse(route: Route) -> None:
        route.fulfill(status=409, content_type="application/json", body=json.dumps(refusal))

    page = _signed_in(real, page, 1280)
    page.route(
        re.compile(rf".*/api/clusters/{NAME}/jobs$"),
        lambda r: refuse(r) if r.request.method == "POST" else r.continue_(),
    )
    page.goto(f"{real.url}/clusters/{NAME}?tab=jobs")
    page.get_by_role("textbox", name="Job name", exact=True).fill("ui-refused")
    page.get_by_role("button", name="Submit job").click()
    expect(page.get_by_text("Turn on the training operator in the cluster's features").first).to_be_visible()
    expect(page.get_by_text("In this console: Cluster: Features, Save changes.").first).to_be_visible()
    # a 409 that names no operation holding the cluster is not "busy": the cluster is not ready for it
    expect(page.get_by_text("Not possible in the cluster's current state").first).to_be_visible()
    expect(page.get_by_text("The cluster is busy")).to_have_count(0)
    expect(page.get_by_role("main")).not_to_contain_text("/api/")
    shot(page, "next-step")
