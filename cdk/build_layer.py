#!/usr/bin/env python3
"""Build the Lambda dependency layer without Docker: ``python cdk/build_layer.py [target]``.

pip downloads manylinux aarch64 wheels for CPython 3.12 (the functions' runtime and architecture)
into ``build/layer/python``; the stack uses that directory when it exists. The dependency list is
pyproject.toml's ``[project].dependencies`` (what runs in Lambda), so there is one list to keep.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "layer"
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    site = target / "python"
    shutil.rmtree(target, ignore_errors=True)
    site.mkdir(parents=True)
    cmd = [
        sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--platform", "manylinux2014_aarch64", "--implementation", "cp", "--python-version", "3.12",
        "--only-binary=:all:", "--target", str(site), *deps,
    ]  # fmt: skip
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    # Bytecode and tests only add size; Lambda compiles on first import.
    for junk in [*site.rglob("__pycache__"), *site.glob("*/tests")]:
        shutil.rmtree(junk, ignore_errors=True)
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) / 2**20
    print(f"layer: {site} ({size:.0f} MiB unzipped; Lambda allows 250 MiB with the function)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
