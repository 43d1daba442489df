"""A HyperPod creation that failed for capacity, recovered from the console: the failed operation offers
"Try another zone", the zones that offer the type, the dry run's plan (the failed cluster deleted, then
created again there), and the new operation followed to its end."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.sandbox.browser.conftest import App, as_role
from tests.sandbox.browser.test_web_ui import choose

pytestmark = pytest.mark.browser
NAME = "ui-capacity"
GROUP = {"name": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 1}


def test_a_capacity_failure_is_recovered_in_another_zone_from_the_console(app: App, sandbox, page: Page, shot) -> None:
    created = app.api("POST", "/clusters", json={"name": NAME, "availabilityZones": ["us-east-1a", "us-east-1b"]})
    assert app.wait_operation(created.json()["operation"]["id"])["status"] == "SUCCEEDED"
    sandbox.install_dependencies(NAME)
    sandbox.faults(failNextHyperPodCreate="capacity")
    asked = app.api(
        "POST", f"/clusters/{NAME}/hyperpod", json={"availabilityZone": "us-east-1a", "instanceGroups": [GROUP]}
    )
    failed = app.wait_operation(asked.json()["operation"]["id"])
    assert failed["status"] == "FAILED", failed

    as_role(app, page)
    page.goto(f"{app.url}/operations/{failed['id']}")
    expect(page.get_by_test_id("operation-failure")).to_contain_text("capacity")
    page.get_by_role("button", name="Try another zone").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("failed in us-east-1a")).to_be_visible()
    zone = choose(page, "Availability zone", "us-east-1b")
    assert zone == "us-east-1b"
    expect(dialog.get_by_text(f"delete HyperPod cluster {NAME} (Failed)")).to_be_visible()
    expect(dialog.get_by_text(re.compile("availabilityZone changed"))).to_be_visible()
    shot(page, "try-another-zone")
    dialog.get_by_role("button", name="Create in us-east-1b").click()

    expect(page).not_to_have_url(re.compile(failed["id"]))
    again = page.url.rsplit("/", 1)[-1]
    done = app.wait_operation(again)
    assert done["status"] == "SUCCEEDED", done
    assert done["request"]["availabilityZone"] == "us-east-1b"
    hyperpod = sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)
    assert hyperpod["ClusterStatus"] == "InService"
    subnet = hyperpod["VpcConfig"]["Subnets"][0]
    assert sandbox.aws("ec2").describe_subnets(SubnetIds=[subnet])["Subnets"][0]["AvailabilityZone"] == "us-east-1b"
    page.reload()
    expect(page.get_by_test_id("operation-status")).to_contain_text("Succeeded")
    shot(page, "recovered")
