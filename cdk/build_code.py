#!/usr/bin/env python3
"""Build the functions' code asset: ``python cdk/build_code.py [target]``.

Copies ``functions/`` (the package every handler string names) into ``build/code`` and compiles it for the
runtime's Python (cdk/bytecode.py), so a cold start reads bytecode instead of compiling Launchpod's
modules. The stack ships ``build/code`` while it matches ``functions/`` file for file, and ``functions/``
itself (no bytecode) otherwise.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bytecode import compile_tree

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "functions"
# What never ships (cdk/launchpod_cdk/functions.py CODE_EXCLUDE): caches and the build's own metadata.
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".mypy_cache", ".pytest_cache")


def build(target: Path, source: Path = SOURCE) -> int:
    """``source`` copied to ``target`` with the runtime's bytecode; the number of .pyc files."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, ignore=IGNORE)
    return compile_tree(target)


def main() -> int:
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "code"
    count = build(target)
    print(f"code: {target} ({count} modules compiled for the Lambda runtime)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
