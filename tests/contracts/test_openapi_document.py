"""The web UI's types come from web/src/api/openapi.json; it must be what the API generates from the contracts now.

A contract or route changed without regenerating the document (or the document edited by hand) fails
here; the web build makes schema.d.ts from the document (npm run api-types), so the types follow it.
"""

from __future__ import annotations

import difflib
import importlib.util
import itertools
import json
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "web" / "scripts" / "openapi.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("web_openapi_script", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT_MODULE = _script()


def _first_differences(committed: str, generated: str, limit: int = 40) -> str:
    diff = difflib.unified_diff(
        committed.splitlines(), generated.splitlines(), "committed openapi.json", "generated now", lineterm=""
    )
    return "\n".join(itertools.islice(diff, limit))


def test_the_committed_document_is_what_the_api_generates_from_the_contracts() -> None:
    committed = SCRIPT_MODULE.TARGET.read_text(encoding="utf-8")
    generated = SCRIPT_MODULE.render()
    assert committed == generated, (
        "web/src/api/openapi.json is out of date: run `python web/scripts/openapi.py` then "
        "`cd web && npm run api-types`, and commit both.\n" + _first_differences(committed, generated)
    )


def test_the_document_does_not_change_from_one_build_to_the_next() -> None:
    assert SCRIPT_MODULE.render() == SCRIPT_MODULE.render()
    document = json.loads(SCRIPT_MODULE.render())
    assert document["info"] == {"title": "Launchpod API", "version": "0"}


def test_the_check_mode_refuses_a_stale_document(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "openapi.json"
    stale.write_text(SCRIPT_MODULE.render().replace('"MeView"', '"MeViewRenamed"'), encoding="utf-8")
    monkeypatch.setattr(SCRIPT_MODULE, "TARGET", stale)
    assert SCRIPT_MODULE.main(["--check"]) == 1
    assert SCRIPT_MODULE.main([]) == 0
    assert SCRIPT_MODULE.main(["--check"]) == 0
