"""Console parity, generated from the operation catalog: every catalog operation has a page or an action in
the console, or is named, with its reason, in the console's visible list of operations it leaves out.

The console declares what it uses in one table, web/src/api/operations.json (id -> route and where a
person finds it). Its only way to the API is ``call``/``plan`` in web/src/lib/api.ts, which take an id
from that table and the route from it, so a route the table names is the one the console sends; these
tests hold the table to the catalog and to the console's source.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from launchpod.contracts.catalog_ops import CATALOG

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "web" / "src"
TABLE = json.loads((SRC / "api" / "operations.json").read_text(encoding="utf-8"))
COVERED: dict[str, dict[str, str]] = TABLE["operations"]
LEFT_OUT: dict[str, str] = TABLE["notInConsole"]
BY_ID = {entry.id: entry for entry in CATALOG}
SOURCES = {
    path.relative_to(SRC).as_posix(): path.read_text(encoding="utf-8")
    for path in sorted(SRC.rglob("*.ts*"))
    if "__tests__" not in path.parts and not path.name.endswith(".d.ts")
}
PLAN_CALL = re.compile(r"\bplan(?:<[^>]*>)?\(")
CONFIRM_OPERATION = re.compile(r"<ConfirmOperation\b")
WRAPPERS = re.compile(r"^export const (\w+) = \{$(.*?)^\};$", re.M | re.S)  # api = {...}, jobsApi = {...}
MEMBER = re.compile(r"^  (\w+): ", re.M)


def literal(operation_id: str) -> re.Pattern[str]:
    return re.compile(rf"['\"]{operation_id}['\"]")


def test_every_catalog_operation_has_a_page_or_action_or_is_listed_as_left_out() -> None:
    missing = [entry.id for entry in CATALOG if entry.id not in COVERED and entry.id not in LEFT_OUT]
    assert missing == [], f"catalog operations with no page or action in the console: {missing}"
    assert sorted(set(COVERED) & set(LEFT_OUT)) == [], "an operation is both in the console and left out"
    assert sorted((set(COVERED) | set(LEFT_OUT)) - set(BY_ID)) == [], "operations.json names ids the catalog lacks"


def test_the_left_out_list_says_why_for_each() -> None:
    # the list is the report's: a reviewer sees exactly these and why, nothing is dropped silently
    assert all(len(reason.split()) >= 5 for reason in LEFT_OUT.values()), LEFT_OUT


@pytest.mark.parametrize("operation_id", sorted(COVERED))
def test_the_consoles_route_is_the_catalogs(operation_id: str) -> None:
    entry = BY_ID[operation_id]
    declared = COVERED[operation_id]
    assert (declared["method"], declared["path"]) == (entry.method, entry.path)
    assert declared["where"].strip(), f"{operation_id}: say where a person finds it"


def callers_of(operation_id: str) -> list[str]:
    """The console modules that call ``operation_id``: a component naming it, or one using the client method
    (``api.governancePolicy``) that names it; a client method nobody uses is no page."""
    found = []
    for name, text in SOURCES.items():
        for match in literal(operation_id).finditer(text):
            block = next((b for b in WRAPPERS.finditer(text) if b.start(2) <= match.start() < b.end(2)), None)
            if block is None:
                found.append(name)
                continue
            members = MEMBER.findall(text, block.start(2), match.start())
            method = re.compile(rf"\b{block.group(1)}\s*\.{members[-1]}\(") if members else None
            found += [other for other, body in SOURCES.items() if method and method.search(body)]
    return sorted(set(found))


@pytest.mark.parametrize("operation_id", sorted(COVERED))
def test_each_declared_operation_is_called_by_the_console(operation_id: str) -> None:
    assert callers_of(operation_id), f"{operation_id} is declared in operations.json but no console page calls it"


@pytest.mark.parametrize("operation_id", sorted(i for i in COVERED if BY_ID[i].destructive and BY_ID[i].mutates))
def test_each_destructive_action_asks_for_its_dry_run_plan_first(operation_id: str) -> None:
    # the confirmation of a destructive action shows what it would do: the module that calls it asks plan(), or
    # confirms it with ConfirmOperation, which asks plan() for the operation it is given
    assert re.search(r"loadPlan=\{\(\) => plan\(operation\b", SOURCES["components/ConfirmAction.tsx"])
    confirming = [
        name
        for name, text in SOURCES.items()
        if name in callers_of(operation_id) and (PLAN_CALL.search(text) or CONFIRM_OPERATION.search(text))
    ]
    assert confirming, f"{operation_id} is destructive: its confirmation must show plan({operation_id!r}, …)"


def test_the_console_reaches_the_api_only_through_the_table() -> None:
    api = SOURCES["lib/api.ts"]
    assert not re.search(r"export\s+(async\s+)?function\s+request\b", api), "request() must stay private"
    # the OpenAPI document is the one call outside the catalog (the forms read their limits from it)
    raw = re.findall(r"request<\w+>\('(\w+)', '([^']+)'", api)
    assert sorted(raw) == [("GET", "/docs"), ("GET", "/openapi.json")], raw
    fetching = sorted(name for name, text in SOURCES.items() if re.search(r"(?<![\w.])fetch\(", text))
    # config.json, and an OIDC provider's discovery and token endpoints, are not Launchpod's API
    assert fetching == ["lib/api.ts", "lib/auth.ts", "lib/config.ts"], fetching
