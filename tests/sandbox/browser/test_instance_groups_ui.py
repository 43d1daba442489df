"""The Instance groups tab against the real sandbox: list, add a Spot EFA-only group in its own subnet
through the wizard, scale it, delete it; add a flexible group with a minimum and automatic patching, which
falls back to its second type where the first has no capacity, then has its minimum and patching edited."""

from __future__ import annotations

import re
import secrets

import pytest
from playwright.sync_api import Page, expect

from tests.sandbox.browser.conftest import App, operation_succeeded
from tests.sandbox.browser.selects import add_group_dialog, pick
from tests.sandbox.clusters import cluster_body

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hyperpod_cluster(app: App) -> str:
    name = f"ui-groups-{secrets.token_hex(3)}"
    system = {"name": "system", "instanceType": "ml.m5.2xlarge", "instanceCount": 1}
    body = cluster_body(name, system, nodeProvisioningMode="Continuous")  # autoscaling needs it from creation
    created = app.api("POST", "/clusters/provision", json=body)
    assert created.status_code == 202, created.text
    assert app.wait_operation(created.json()["operation"]["id"])["status"] == "SUCCEEDED"
    return name


def test_add_scale_and_delete_a_group_from_the_tab(app: App, signed_in: Page, hyperpod_cluster: str, shot) -> None:
    page, tab = signed_in, f"{app.url}/clusters/{hyperpod_cluster}?tab=instance-groups"
    page.goto(tab)
    system = page.get_by_role("row").filter(has_text="system")
    expect(system).to_contain_text("ml.m5.2xlarge")
    expect(system).to_contain_text("On-Demand")
    expect(system).to_contain_text("1 / 1")
    shot(page, "list")

    page.get_by_role("button", name="Add group").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Group name").fill("ui-spot")
    dialog.get_by_role("button", name=re.compile("^Instance type")).click()
    pick(page, page.get_by_role("option").filter(has_text="ml.p5.48xlarge").first)
    dialog.get_by_label("Instance count").fill("1")
    dialog.get_by_role("button", name="Next").click()
    dialog.get_by_role("radio", name=re.compile("^Spot")).check()
    dialog.get_by_role("checkbox", name=re.compile("EFA-only")).check()
    dialog.get_by_role("button", name="Next").click()
    dialog.get_by_role("checkbox", name=re.compile("Dedicated subnet")).check()
    dialog.get_by_role("button", name="Next").click()
    dialog.get_by_role("button", name="Next").click()  # patching and image: left as they are
    expect(dialog).to_contain_text("Spot")
    shot(page, "review")
    dialog.get_by_role("button", name="Add group").click()
    operation_succeeded(page)

    page.goto(tab)
    spot = page.get_by_role("row").filter(has_text="ui-spot")
    for text in ("ml.p5.48xlarge", "Spot", "EFA-only", "(dedicated)", "1 / 1", "InService"):
        expect(spot).to_contain_text(text)
    expect(system).to_contain_text("1 / 1")
    shot(page, "added")

    page.get_by_role("radio", name="ui-spot").check()
    page.get_by_role("button", name="Scale").click()
    page.get_by_label("New instance count").fill("2")
    page.get_by_role("dialog").get_by_role("button", name="Scale").click()
    operation_succeeded(page)
    page.goto(tab)
    expect(spot).to_contain_text("2 / 2")
    shot(page, "scaled")

    page.get_by_role("radio", name="ui-spot").check()
    page.get_by_role("button", name="Delete").click()
    delete = page.get_by_role("dialog").get_by_role("button", name="Delete")
    expect(delete).to_be_disabled()
    page.get_by_label("Group name to confirm").fill("ui-spot")
    delete.click()
    operation_succeeded(page)
    page.goto(tab)
    expect(system).to_be_visible()
    expect(page.get_by_role("row").filter(has_text="ui-spot")).to_have_count(0)
    shot(page, "deleted")


def test_the_autoscaling_section_enables_and_disables_karpenter_for_a_group(
    app: App, signed_in: Page, hyperpod_cluster: str, shot
) -> None:
    added = app.api(
        "POST",
        f"/clusters/{hyperpod_cluster}/instance-groups",
        json={"group": "ui-gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 0},
    )
    assert added.status_code == 202, added.text
    assert app.wait_operation(added.json()["operation"]["id"])["status"] == "SUCCEEDED"
    page, tab = signed_in, f"{app.url}/clusters/{hyperpod_cluster}?tab=instance-groups"
    page.goto(tab)
    section = page.get_by_text("HyperPod-managed Karpenter scales HyperPod instance groups only")
    expect(section).to_be_visible()
    expect(page.get_by_role("button", name="Disable", exact=True)).to_be_disabled()
    page.get_by_role("button", name=re.compile("^Managed instance groups")).click()
    page.get_by_role("option").filter(has_text="system").first.click()
    page.keyboard.press("Escape")
    # system runs a node: Karpenter would take it to 0, so enabling waits for the user to let it go
    expect(page.get_by_text("Terminate the running nodes of system (1)")).to_be_visible()
    expect(page.get_by_role("button", name="Enable autoscaling")).to_be_disabled()
    page.get_by_role("button", name=re.compile("^Managed instance groups")).click()
    page.get_by_role("option").filter(has_text="system").first.click()
    page.get_by_role("option").filter(has_text="ui-gpu").first.click()
    page.keyboard.press("Escape")
    expect(page.get_by_text("Terminate the running nodes")).to_have_count(0)
    page.get_by_label("Remove idle nodes after (seconds)").fill("60")
    page.get_by_role("button", name="Enable autoscaling").click()
    operation_succeeded(page)

    page.goto(tab)
    expect(page.get_by_role("row").filter(has_text="ui-gpu")).to_contain_text("Managed")
    expect(page.get_by_role("row").filter(has_text="system")).not_to_contain_text("Managed")
    expect(page.get_by_text("Enabled, InService")).to_be_visible()
    shot(page, "enabled", full_page=True)

    page.get_by_role("button", name="Disable", exact=True).click()
    operation_succeeded(page)
    page.goto(tab)
    expect(page.get_by_role("row").filter(has_text="ui-gpu")).not_to_contain_text("Managed")
    shot(page, "disabled", full_page=True)


def test_a_flexible_group_with_a_minimum_and_patching_from_the_wizard(
    app: App, signed_in: Page, hyperpod_cluster: str, shot
) -> None:
    first, second = "ml.g5.8xlarge", "ml.g5.12xlarge"
    fault = app.api(
        "POST",
        "/sandbox/capacity",
        json={"instanceCapacity": [{"zone": "us-east-1a", "instanceType": first, "available": 0}]},
    )
    assert fault.status_code == 200, fault.text
    page, tab = signed_in, f"{app.url}/clusters/{hyperpod_cluster}?tab=instance-groups"
    try:
        page.goto(tab)
        dialog = add_group_dialog(page, "ui-flex", first)
        dialog.get_by_role("button", name=re.compile("^Fallback instance types")).click()
        page.keyboard.type(second)
        page.get_by_role("option").filter(has_text=second).first.click()
        page.keyboard.press("Escape")
        dialog.get_by_label("Instance count").fill("2")
        dialog.get_by_label("Minimum count").fill("3")
        dialog.get_by_role("button", name="Next").click()
        expect(dialog).to_contain_text("A whole number from 0 to the instance count.")  # 3 > 2: stays on the step
        dialog.get_by_label("Minimum count").fill("1")
        dialog.get_by_role("button", name="Next").click()
        dialog.get_by_role("button", name="Next").click()
        dialog.get_by_role("button", name="Next").click()
        dialog.get_by_role("radio", name=re.compile("^When idle")).check()
        dialog.get_by_label("Image release version").fill("1.2.3")
        dialog.get_by_role("button", name="Next").click()
        for text in (f"{first}, then {second}", "2 (in service from 1)", "When idle", "1.2.3"):
            expect(dialog).to_contain_text(text)
        shot(page, "flexible-review")
        dialog.get_by_role("button", name="Add group").click()
        operation_succeeded(page)
    finally:
        app.api("POST", "/sandbox/capacity", json={"clear": True})
    page.goto(tab)
    flex = page.get_by_role("row").filter(has_text="ui-flex")
    for text in (f"{first} (0), then {second} (2)", "2 / 2 (min 1)", "When idle; next ", "1.2.3", "InService"):
        expect(flex).to_contain_text(text)
    shot(page, "flexible-added", full_page=True)
    # Edit: the minimum and the patching change in place; the dialog shows the dry run of exactly that change.
    page.get_by_role("radio", name="ui-flex").check()
    page.get_by_role("button", name="Edit", exact=True).click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_label("Minimum count")).to_have_value("1")
    expect(dialog.get_by_role("button", name="Save changes")).to_be_disabled()  # nothing changed yet
    dialog.get_by_label("Minimum count").fill("2")
    dialog.get_by_role("radio", name=re.compile("^Drain first")).check()
    dialog.get_by_label("Drain timeout in seconds").fill("600")
    expect(dialog.get_by_text("What the change does")).to_be_visible()
    expect(dialog).to_contain_text("minInstanceCount")
    shot(page, "edit-plan")
    dialog.get_by_role("button", name="Save changes").click()
    operation_succeeded(page)
    page.goto(tab)
    for text in ("2 / 2 (min 2)", "Drain first"):
        expect(flex).to_contain_text(text)
    shot(page, "edited", full_page=True)
