"""Fixtures for the web UI in headless Chromium.

The tests run against the real sandbox (the session's ``sandbox`` fixture, tests/sandbox/conftest.py),
which serves the app from web/dist: build it first (``make web``).
Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Playwright, expect, sync_playwright

from tests.sandbox.http_support import TLS, wait_operation

ROOT = Path(__file__).resolve().parents[3]
DIST = ROOT / "web" / "dist"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
OPERATION_TIMEOUT_MS = 240_000  # how long a page waits for an operation it started to end
# The sandbox's first calls start its Lambda handlers cold; a few seconds is normal there.
expect.set_options(timeout=30_000)
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


class App:
    """Where the UI is served, the tokens per role, and a REST client for setting the scene."""

    def __init__(self, url: str, tokens: dict[str, str]) -> None:
        self.url = url.rstrip("/")
        self.tokens = tokens

    def api(self, method: str, path: str, role: str = "admin", **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.tokens[role]}"}
        return httpx.request(method, f"{self.url}/api{path}", headers=headers, timeout=30, verify=TLS, **kwargs)

    def wait_operation(self, operation_id: str, timeout: float = 240) -> dict[str, Any]:
        def read() -> dict[str, Any]:
            response = self.api("GET", f"/operations/{operation_id}", role="viewer")
            assert response.status_code == 200, (
                f"GET /operations/{operation_id}: {response.status_code} {response.text}"
            )
            return dict(response.json())

        return wait_operation(self.url, self.tokens["viewer"], operation_id, read, timeout)


@pytest.fixture(scope="session")
def app(sandbox: Any) -> App:
    if not (DIST / "index.html").is_file():
        pytest.fail("web/dist is missing: build the UI first (cd web && npm ci && npm run build)")
    return App(sandbox.url, dict(sandbox.tokens))


@pytest.fixture(scope="module")  # the sync API runs a loop on this thread: stop it before async tests
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """A browser of its own, for a test that needs a second, separate browser session."""
    chromium = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
    yield chromium
    chromium.close()


@pytest.fixture(scope="module")
def profile(playwright: Playwright, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """One browser profile per module, on disk, as a user's browser keeps one: the console's scripts are
    fetched and compiled once and read from Chromium's cache (its code cache) afterwards. Without a profile on
    disk each page compiled the whole console again (1.4 s of CPU a page, 0.6 s with it)."""
    context = playwright.chromium.launch_persistent_context(
        tmp_path_factory.mktemp("profile"),
        executable_path="/usr/bin/chromium",
        args=CHROMIUM_ARGS,
        viewport={"width": 1400, "height": 1000},
        reduced_motion="reduce",
    )
    context.set_default_timeout(15_000)
    yield context
    context.close()


# What a test's page starts from, as a new browser session would: no console state kept from the test before
# (the active cluster is kept in localStorage; the token is per tab), cleared at the tab's first load only.
FRESH_TAB = """
if (!sessionStorage.getItem('launchpod.test.tab')) {
  localStorage.clear();
  sessionStorage.setItem('launchpod.test.tab', '1');
}
"""


@pytest.fixture
def page(profile: BrowserContext) -> Iterator[Page]:
    profile.clear_cookies()
    page = profile.new_page()
    page.add_init_script(FRESH_TAB)
    yield page
    page.close()


def as_role(app: App, page: Page, role: str = "admin") -> Page:
    """The page, its browser session holding ``role``'s token from its next load (sign-in is tested on its own)."""
    page.add_init_script(f"sessionStorage.setItem('launchpod.token', {app.tokens[role]!r})")
    return page


@pytest.fixture
def signed_in(app: App, page: Page) -> Page:
    """A page whose browser session already holds the admin token."""
    return as_role(app, page)


@pytest.fixture
def shot(request: pytest.FixtureRequest):
    """shot(page, "step") saves artifacts/screenshots/<test>-<step>.png and returns its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page: Page, step: str, full_page: bool = False) -> Path:
        path = SCREENSHOTS / f"{request.node.name}-{step}.png"
        if full_page:  # from a scrolled page Chromium stitches the sticky top bar into the middle
            page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


@pytest.fixture
def axe():
    """axe(page) runs axe-core in the page and returns the serious and critical violations."""
    if not AXE.is_file():
        pytest.fail("web/node_modules/axe-core is missing: run npm ci in web/")
    source = AXE.read_text()

    def run(page: Page) -> list[dict[str, Any]]:
        page.add_script_tag(content=source)
        result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
        return [
            {
                "page": page.url,
                "id": v["id"],
                "impact": v["impact"],
                "help": v["help"],
                "targets": [n["target"] for n in v["nodes"]][:5],
            }
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]

    return run


def operation_succeeded(page: Page) -> None:
    """The page opened the operation it started, and the operation succeeded."""
    expect(page).to_have_url(re.compile(r"/operations/op-[0-9a-z]+$"))
    expect(page.get_by_test_id("operation-status")).to_have_text("Succeeded", timeout=OPERATION_TIMEOUT_MS)


def cluster_section(page: Page, label: str) -> Locator:
    """The link to a section of the cluster shown (its ?tab=), listed under its name in the side navigation."""
    nav = page.get_by_role("navigation", name="Side navigation")
    return nav.locator("a[href*='?tab=']").filter(has_text=re.compile(f"^{re.escape(label)}$"))


def pick_segment(scope: Locator | Page, text: str) -> None:
    """Choose ``text`` on a segmented control inside ``scope`` and wait until it shows as chosen.

    Cloudscape's SegmentedControl also renders a Select for narrow screens, hidden by CSS, whose trigger repeats
    the chosen option: a role query sees only the visible segment button, where a text query sees both.
    A click can miss while the page above the control still grows (a job's log and pods arrive as it runs):
    Playwright aims at where the button was. So the click is made again until the segment shows as pressed.
    """
    segment = scope.get_by_role("button", name=text, exact=True)
    for _ in range(4):
        segment.click()
        try:
            expect(segment).to_have_attribute("aria-pressed", "true", timeout=2_000)
            return
        except AssertionError:
            continue
    expect(segment).to_have_attribute("aria-pressed", "true")
