"""Regions in the console (headless Chromium): the create wizard's Region select offers that Region's zones
and names it in the review; the Capacity page searches several Regions at once, each offering with its
Region."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.sandbox.browser.conftest import App
from tests.sandbox.browser.selects import pick

pytestmark = pytest.mark.browser


def _choose(page: Page, label: str, option: str) -> None:
    page.get_by_role("button", name=re.compile(label)).click()
    pick(page, page.get_by_role("option").filter(has_text=option).first)


def test_the_wizard_offers_the_zones_of_the_region_chosen(app: App, signed_in: Page, shot) -> None:
    page = signed_in
    page.goto(f"{app.url}/clusters/create")
    page.get_by_label("Cluster name").fill("ui-west")
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("button", name="Region us-east-1 (Launchpod's Region)")).to_be_visible()  # the default
    _choose(page, "^Region", "us-west-2")
    page.get_by_role("button", name=re.compile("Availability zone")).click()
    zones = page.get_by_role("option")
    expect(zones.first).to_contain_text("us-west-2")
    assert all(z.startswith("us-west-2") for z in zones.all_inner_texts()), zones.all_inner_texts()
    shot(page, "west-zones")
    pick(page, zones.first)
    expect(page.get_by_text(re.compile(r"The EKS control plane also uses us-west-2"))).to_be_visible()


def test_capacity_is_searched_in_several_regions_at_once(app: App, signed_in: Page, shot) -> None:
    page = signed_in
    page.goto(f"{app.url}/capacity")
    page.get_by_role("button", name=re.compile("^Regions")).click()
    for region in ("us-east-1", "us-west-2"):
        page.get_by_role("option", name=region, exact=True).click()
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Search", exact=True).click()
    for region in ("us-east-1", "us-west-2"):
        expect(page.get_by_role("cell", name=region, exact=True).first).to_be_visible()
    expect(page.get_by_role("cell", name=re.compile(r"^us-west-2[a-z]$")).first).to_be_visible()
    shot(page, "offerings-in-two-regions")
