"""The Notifications tab in headless Chromium against the real sandbox: a webhook added from the console
(on a local receiver) and an e-mail address waiting for its confirmation; the test message reaches the
webhook with the console link; a subscriber removed from the table is gone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from sandbox.webhooks import WebhookReceiver
from tests.sandbox.aws.support import wait_until
from tests.sandbox.browser.conftest import App

pytestmark = pytest.mark.browser
NAME = "ui-notify"


@pytest.fixture(scope="module")
def cluster(sandbox) -> str:
    sandbox.create_control_plane(NAME)
    return NAME


@pytest.fixture
def receiver():
    found = WebhookReceiver().start()
    yield found
    found.stop()


# Not the address the API's e2e test subscribes (and confirms) on the same sandbox's one topic: SNS answers a
# second Subscribe of an endpoint with its existing, already confirmed subscription.
MAIL = "console-oncall@example.com"


def _add(page: Page, channel: str | None, endpoint: str) -> None:
    if channel:
        page.get_by_label("Channel").click()
        page.get_by_role("option", name=channel).click()
    page.get_by_label("Subscriber endpoint").fill(endpoint)
    page.get_by_role("button", name="Add subscriber").click()


def test_subscribers_are_added_tested_and_removed_from_the_console(
    app: App, signed_in: Page, cluster: str, receiver, shot
) -> None:
    page = signed_in
    page.goto(f"{app.url}/clusters/{cluster}?tab=notifications")
    expect(page.get_by_text("Nobody is told about this cluster yet")).to_be_visible()
    hook = receiver.url("/ui")
    _add(page, None, hook)
    table = page.get_by_role("table").first
    expect(table.get_by_role("row").filter(has_text=hook)).to_contain_text("Active")
    _add(page, "E-mail", MAIL)
    mail = table.get_by_role("row").filter(has_text=MAIL)
    expect(mail).to_contain_text("Waiting for the address to confirm")
    expect(mail).to_contain_text("All kinds")
    page.get_by_role("button", name="Send a test message").click()
    [post] = wait_until(lambda: receiver.posts("/ui"), reason="the test message did not reach the webhook")
    assert f"{app.url}/clusters/{cluster}" in post.body["text"]
    shot(page, "subscribers")
    page.get_by_role("button", name=f"Remove {MAIL}").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("list", name="What the removal does").get_by_role("listitem").first).to_be_visible()
    dialog.get_by_role("button", name="Remove subscriber").click()
    expect(mail).to_have_count(0)
    expect(table.get_by_role("row").filter(has_text=hook)).to_have_count(1)
