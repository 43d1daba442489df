"""Bytecode for the Lambda runtime's Python, compiled into the code asset and the layer before they ship.

Lambda's filesystem is read-only outside /tmp ("Lambda execution environment", Lambda developer guide),
so a package without ``__pycache__`` is compiled from source on every cold start, module by module, and
the result thrown away. CPython only reads bytecode made by its own version (the ``cpython-312`` tag in
the file name, PEP 3147), so the compiler must be the runtime's Python, not the one running the build.
The files are ``unchecked-hash`` pycs (PEP 552): CPython loads them without comparing the source's
modification time, which the asset's zip does not keep as it was when they were compiled.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

# The functions' runtime (cdk/launchpod_cdk/functions.py RUNTIME; tests/infra check they agree).
LAMBDA_PYTHON_VERSION = "3.12"
TAG = "cpython-" + LAMBDA_PYTHON_VERSION.replace(".", "")


def lambda_python() -> str:
    """A CPython of the runtime's version: $LAUNCHPOD_LAMBDA_PYTHON, python3.12 on PATH, or pyenv's."""
    name = f"python{LAMBDA_PYTHON_VERSION}"
    candidates = [os.environ.get("LAUNCHPOD_LAMBDA_PYTHON"), shutil.which(name)]
    candidates += sorted(glob.glob(str(Path.home() / f".pyenv/versions/{LAMBDA_PYTHON_VERSION}.*/bin/{name}")))
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2], sys.implementation.name)"],
            capture_output=True,
            text=True,
        )
        if probe.returncode == 0 and probe.stdout.split() == [LAMBDA_PYTHON_VERSION, "cpython"]:
            return candidate
    raise SystemExit(
        f"No CPython {LAMBDA_PYTHON_VERSION} found to compile the Lambda package's bytecode (the runtime reads "
        f"only its own version's): install it, or set LAUNCHPOD_LAMBDA_PYTHON to its path."
    )


def compile_tree(root: Path, python: str | None = None) -> int:
    """Compile every module under ``root`` for the runtime; the number of .pyc files written."""
    for stale in root.rglob("*.pyc"):  # another interpreter's bytecode is dead weight in the zip
        if TAG not in stale.name:
            stale.unlink()
    # A PYTHONPYCACHEPREFIX would put the bytecode beside the tree instead of in its __pycache__ directories.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    subprocess.run(
        [python or lambda_python(), "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash",
         str(root)],
        check=True,
        env=env,
    )  # fmt: skip
    return sum(1 for _ in root.rglob(f"*.{TAG}.pyc"))
