"""Write the API's OpenAPI document to web/src/api/openapi.json, the source of the web UI's types.

    python web/scripts/openapi.py           # rewrite the committed document
    python web/scripts/openapi.py --check   # exit 1 when the committed document is out of date

The document is built in process from the API Lambda's resolver (no server needed). Title and version
are fixed and keys sorted, so the file changes only when a contract or a route does; `npm run api-types`
then turns it into web/src/api/schema.d.ts (openapi-typescript). tests/contracts/test_openapi_document.py
fails when the committed file and the contracts disagree.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "web" / "src" / "api" / "openapi.json"
TITLE = "Launchpod API"
VERSION = "0"  # fixed: the deployed document carries the release version, this one must not change per build


def render() -> str:
    """The document as committed: sorted keys, two-space indent, one trailing newline."""
    functions = str(ROOT / "functions")
    if functions not in sys.path:
        sys.path.insert(0, functions)  # this checkout's contracts, whatever is installed
    from launchpod.entrypoints.api.app import app

    document = json.loads(app.get_openapi_json_schema(title=TITLE, version=VERSION))
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is out of date: run python web/scripts/openapi.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
