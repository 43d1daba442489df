"""What a function's deployment package and layer contain, as the CDK stack builds them: the code
asset is ``functions/`` (cdk/launchpod_cdk/functions.py) and the layer is pyproject's
``[project].dependencies`` with their own dependencies (cdk/build_layer.py). An environment can
import those and the standard library, nothing else: a module missing from the package fails the
import there as it would on Lambda (``Runtime.ImportModuleError``)."""

from __future__ import annotations

import compileall
import json
import subprocess
import sys
import sysconfig
import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
CODE_DIR = ROOT / "functions"
# Modules of the sandbox process that an environment's fork must not keep (they are not deployed).
NOT_DEPLOYED = ("sandbox", "tests", "moto", "mcp_gateway")


def layer_distributions() -> set[str]:
    """The layer's distributions: the declared dependencies and, recursively, what they require."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    todo = [(Requirement(r), frozenset(Requirement(r).extras)) for r in declared]
    seen: set[str] = set()
    while todo:
        requirement, extras = todo.pop()
        name = requirement.name.lower().replace("_", "-")
        try:
            dist = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            continue
        if name in seen:
            continue
        seen.add(name)
        for raw in dist.requires or []:
            child = Requirement(raw)
            if child.marker is not None and not any(
                child.marker.evaluate({"extra": extra}) for extra in (extras or {""})
            ):
                continue
            todo.append((child, frozenset(child.extras)))
    return seen


def compiled(code_dir: Path) -> None:
    """``code_dir`` with bytecode beside each module, as the deployed code asset has it (cdk/build_code.py
    compiles the asset for the runtime's Python): an environment, whose filesystem is read-only, then reads
    bytecode at its cold start instead of compiling each module it imports. The sandbox's interpreter is the
    one its environments run, so it compiles for itself; the pycs are checked against their source's
    modification time (PEP 552's default), so an edited module is compiled again, never read stale. A
    checkout the sandbox cannot write to is left as it is (the environments then compile from source)."""
    compileall.compile_dir(code_dir, quiet=2, workers=1)  # a module it cannot write is reported False, not raised


@cache
def deployment_package(code_dir: Path = CODE_DIR) -> dict[str, Any]:
    """What ``sandbox.lambda_env.runtime.main`` needs to limit an environment to the package and layer."""
    compiled(code_dir)
    distributions = layer_distributions()
    allowed = {p.name for p in code_dir.iterdir() if (p / "__init__.py").exists()}
    allowed |= {p.stem for p in code_dir.glob("*.py")}
    for top, owners in metadata.packages_distributions().items():
        if any(o.lower().replace("_", "-") in distributions for o in owners):
            allowed.add(top)
    allowed |= {"_cffi_backend", "six", "_yaml"} & set(metadata.packages_distributions())
    paths = sysconfig.get_paths()
    library_paths = [paths["stdlib"], paths["platstdlib"], str(Path(paths["stdlib"]) / "lib-dynload"), paths["purelib"]]
    if paths["platlib"] != paths["purelib"]:
        library_paths.append(paths["platlib"])
    return {
        "code_dir": str(code_dir),
        "library_paths": [p for p in dict.fromkeys(library_paths) if Path(p).exists()] or sys.path[1:],
        "allowed_modules": sorted(allowed),
        "forget_modules": list(NOT_DEPLOYED),
    }


def built_package(code_dir: Path, layer_dir: Path, python: str) -> dict[str, Any]:
    """``deployment_package`` for what ``make lambda-layer`` built (cdk/build_code.py, cdk/build_layer.py),
    run by ``python``: its standard library, then the layer's ``python/`` directory as Lambda mounts it
    at /opt/python; importable at the top level is what the code asset and the layer hold."""
    probe = "import json, sysconfig; print(json.dumps(sysconfig.get_paths()))"
    paths = json.loads(subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True).stdout)
    stdlib = [paths["stdlib"], paths["platstdlib"], str(Path(paths["stdlib"]) / "lib-dynload")]
    stdlib = [p for p in dict.fromkeys(stdlib) if Path(p).exists()]
    allowed: set[str] = set()
    # The interpreter's own modules, also those sys.stdlib_module_names leaves out (_sysconfigdata_*).
    for root in (code_dir, layer_dir, *map(Path, stdlib)):
        for entry in root.iterdir():
            if entry.name.endswith((".dist-info", ".data")) or entry.name == "__pycache__":
                continue
            allowed.add(entry.name.split(".")[0] if entry.is_file() else entry.name)
    return {
        "code_dir": str(code_dir),
        "library_paths": [*stdlib, str(layer_dir)],
        "allowed_modules": sorted(allowed),
        "forget_modules": list(NOT_DEPLOYED),
    }
