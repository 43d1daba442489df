"""The Capacity page in headless Chromium: search training plan offerings, see the price in a dry run
before buying, buy, find the plan listed Scheduled, and extend it the same way."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime, timedelta

from playwright.sync_api import Page, expect

from tests.sandbox.browser.conftest import App


def test_search_offerings_see_the_price_then_buy_and_find_the_plan_listed(app: App, signed_in: Page, shot) -> None:
    page = signed_in
    name = f"ui-plan-{secrets.token_hex(3)}"
    start = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%MZ")
    page.goto(f"{app.url}/capacity")
    expect(page.get_by_role("heading", name="Training plans")).to_be_visible()
    page.get_by_label("Earliest start").fill(start)
    page.get_by_role("button", name="Search", exact=True).click()
    price = page.get_by_role("cell", name=re.compile(r"^\d+\.\d\d USD$")).first
    expect(price).to_be_visible()
    fee = price.inner_text().split()[0]
    page.get_by_role("button", name=re.compile("^Buy tpo-")).first.click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Plan name").fill(name)
    dialog.get_by_role("button", name="Show price").click()
    expect(dialog.get_by_text(f"upfront fee {fee} USD")).to_be_visible()
    shot(page, "dry-run-price")
    # the dry run bought nothing
    assert app.api("GET", f"/training-plans/{name}", role="viewer").status_code == 404
    dialog.get_by_role("button", name=f"Buy for {fee} USD").click()
    expect(dialog.get_by_text(f"Bought {name} (Scheduled).")).to_be_visible()
    dialog.get_by_role("button", name="Close").click()
    page.get_by_role("button", name="Refresh plans").click()
    row = page.get_by_role("row").filter(has_text=name)
    expect(row).to_contain_text("Scheduled")
    expect(row).to_contain_text("1 x ml.p5.48xlarge")
    shot(page, "listed")

    # Extend: the plan's extension offerings with their price and new end, a dry run naming the fee, then bought
    page.get_by_role("radio", name=name).check()
    page.get_by_role("button", name="Extend", exact=True).click()
    dialog = page.get_by_role("dialog")
    day = dialog.get_by_role("row").filter(has_text="1 day(s)")
    expect(day).to_be_visible()
    extension_fee = day.get_by_role("cell", name=re.compile(r"^\d+\.\d\d USD$")).inner_text().split()[0]
    new_end = day.get_by_role("cell", name=re.compile(r" UTC$")).inner_text()
    dialog.get_by_role("radio", name=re.compile("^1 day")).check()
    dialog.get_by_role("button", name="Show price").click()
    priced = dialog.get_by_role("list", name="This extension (not refundable)")  # the API's dry run
    expect(priced).to_contain_text(f"{extension_fee} USD")
    shot(page, "extend-price")
    assert app.api("GET", f"/training-plans/{name}", role="viewer").json()["endTime"][:16] != new_end[:16].replace(
        " ", "T"
    )  # the dry run extended nothing
    dialog.get_by_role("button", name=f"Extend for {extension_fee} USD").click()
    expect(dialog.get_by_text(f"Extended {name}: it now ends {new_end}.")).to_be_visible()
    dialog.get_by_role("button", name="Close").click()
    expect(page.get_by_role("row").filter(has_text=name)).to_contain_text(new_end)
    shot(page, "extended")
