"""Picking an option in a Cloudscape select as a user does: click it, and see the list close."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect


def pick(page: Page, option: Locator) -> None:
    """Click ``option`` in the open list and wait until the list has closed.

    On a loaded machine the list can re-render (it positions itself once it has measured its options)
    between the press and the release of a click; the click is then lost and the list stays open, as it
    would for a person, who clicks the option again. Seen once in five suite runs beside a CPU-bound
    process ("Hyperthreading on" clicked, both options still listed 30 s later). So: click, give the
    list 5 s to close, and click once more while the option is still shown, at most three times.
    """
    listed = page.get_by_role("option")
    for _ in range(3):
        option.click()
        try:
            expect(listed).to_have_count(0, timeout=5_000)
            return
        except AssertionError:
            if not option.is_visible():
                break  # the choice was taken and the list is closing: wait for it below
    expect(listed).to_have_count(0)
