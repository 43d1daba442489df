"""Picking an option in a Cloudscape select as a user does: click it, and see the list close; the Add group
dialog opened and its instance type picked so."""

from __future__ import annotations

import re

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


def type_and_pick(page: Page, select: Locator, text: str) -> None:
    """Open ``select``, type ``text`` and pick the first option showing it. The list filters as a user types;
    its options may still be loading (the instance type catalog), so the option gets a minute to appear."""
    select.click()
    page.keyboard.type(text)
    option = page.get_by_role("option").filter(has_text=text).first
    expect(option).to_be_visible(timeout=60_000)
    pick(page, option)


def add_group_dialog(page: Page, name: str, instance_type: str) -> Locator:
    """The instance groups tab's Add group dialog, opened once the cluster is read as InService (the first load
    of the console can be slow), with the group's name and instance type chosen."""
    add = page.get_by_role("button", name="Add group")
    expect(add).to_be_enabled()
    add.click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Group name").fill(name)
    type_and_pick(page, dialog.get_by_role("button", name=re.compile("^Instance type")), instance_type)
    return dialog
