#!/usr/bin/env python3
"""Build the Lambda dependency layer without Docker: ``python cdk/build_layer.py [target] [--platform P]``.

pip downloads manylinux aarch64 wheels for CPython 3.12 (the functions' runtime and architecture)
into ``build/layer/python``; the stack uses that directory when it exists. The dependency list is
pyproject.toml's ``[project].dependencies`` (what runs in Lambda), so there is one list to keep.
The layer ships with bytecode compiled by the runtime's Python (cdk/bytecode.py): Lambda's filesystem
is read-only, so without it every cold start compiles every library module it imports.
``--platform`` builds the same layer for another machine (bench/api_cold_start.py runs it here).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bytecode import LAMBDA_PYTHON_VERSION, compile_tree, lambda_python

ROOT = Path(__file__).resolve().parents[1]
PLATFORM = "manylinux2014_aarch64"  # the functions' architecture (cdk/launchpod_cdk/functions.py)


def build(target: Path, platform: str = PLATFORM) -> Path:
    """The layer's ``python/`` directory under ``target``, with the runtime's bytecode."""
    python = lambda_python()  # before the download: no interpreter, no layer worth shipping
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    site = target / "python"
    shutil.rmtree(target, ignore_errors=True)
    site.mkdir(parents=True)
    cmd = [
        sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
        "--platform", platform, "--implementation", "cp", "--python-version", LAMBDA_PYTHON_VERSION,
        "--only-binary=:all:", "--target", str(site), *deps,
    ]  # fmt: skip
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    for junk in [*site.rglob("__pycache__"), *site.glob("*/tests")]:  # tests only add size
        shutil.rmtree(junk, ignore_errors=True)
    count = compile_tree(site, python)
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) / 2**20
    print(f"layer: {site} ({count} modules compiled; {size:.0f} MiB unzipped, Lambda allows 250 MiB with the function)")
    return site


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", type=Path, default=ROOT / "build" / "layer")
    parser.add_argument("--platform", default=PLATFORM)
    args = parser.parse_args()
    build(args.target, args.platform)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
