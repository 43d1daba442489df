"""The tables the CLI prints read fields the views have: a view field renamed (launchpod.contracts.naming)
without its column would print a column of dashes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli import render

DOCUMENT = json.loads((Path(__file__).resolve().parents[2] / "web" / "src" / "api" / "openapi.json").read_text())
SCHEMAS: dict[str, Any] = DOCUMENT["components"]["schemas"]


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return _resolve(SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]])
    options = [o for o in schema.get("anyOf", []) if o.get("type") != "null"]
    return _resolve(options[0]) if len(options) == 1 else schema


def _has(schema: dict[str, Any], path: str) -> bool:
    for part in path.split("."):
        properties = _resolve(schema).get("properties", {})
        if part not in properties:
            return False
        schema = properties[part]
    return True


def test_each_column_of_a_list_is_a_field_of_its_items() -> None:
    for view, columns in render.COLUMNS.items():
        item = _resolve(SCHEMAS[view]["properties"]["items"]["items"])
        assert [c for c in columns if not _has(item, c)] == [], view


def test_each_column_of_a_nested_table_is_a_field_of_some_view_listing_it() -> None:
    for key, columns in render.NESTED_COLUMNS.items():
        items = [
            _resolve(s["properties"][key]["items"])
            for s in SCHEMAS.values()
            if s.get("properties", {}).get(key, {}).get("type") == "array" and "items" in s["properties"][key]
        ]
        assert items, key
        assert [c for c in columns if not any(_has(i, c) for i in items)] == [], key


def test_a_heading_keeps_its_words_whole() -> None:
    assert render.heading("memoryInGiB") == "MEMORY IN GIB" and render.heading("vCpu") == "VCPU"


def test_a_long_cell_is_cut_only_where_columns_follow_it() -> None:
    # a dry run's reason is what the user reads it for: "… for 48…" hid the price of a training plan
    reason = "buy 2 x ml.p5.48xlarge in us-east-1a from 2026-12-07 06:00 UTC for 48 hours at 2880.00 USD upfront"
    long_target = "training plan " + "x" * 80
    columns = ("action", "target", "reason")
    row = render.table([{"action": "create", "target": long_target, "reason": reason}], columns).splitlines()[1]
    assert row.endswith(reason)
    assert ("x" * (render.MAX_CELL - len("training plan ") - 1)) + "…" in row


def test_a_byte_count_reads_as_a_size_under_a_heading_without_bytes() -> None:
    assert render.heading("sizeBytes") == "SIZE"
    assert [render.size(n) for n in (512, 1253, 5 * 1024**3)] == ["512 B", "1.2 KiB", "5.0 GiB"]
    row = render.table([{"repoId": "Qwen/Qwen3-0.6B", "sizeBytes": 1253}], ("repoId", "sizeBytes")).splitlines()[1]
    assert row.endswith("1.2 KiB")
