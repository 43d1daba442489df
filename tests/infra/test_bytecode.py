"""The code asset ships bytecode for the Lambda runtime's Python, and only while it is functions/ as it is now."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import build_code
import build_layer
import bytecode
from launchpod_cdk import functions
from launchpod_cdk.config import FUNCTIONS_DIR, Inputs, code_is_current

UNCHECKED_HASH = 0b01  # PEP 552: hash-based, source not checked


def test_every_module_of_the_built_code_has_unchecked_bytecode_for_the_runtimes_python(tmp_path):
    built = tmp_path / "code"
    build_code.build(built)
    modules = sorted(built.rglob("*.py"))
    assert len(modules) > 100 and (built / "launchpod" / "entrypoints" / "api" / "app.py") in modules
    for module in modules:
        compiled = module.parent / "__pycache__" / f"{module.stem}.{bytecode.TAG}.pyc"
        assert compiled.is_file(), f"{module.relative_to(built)} has no {bytecode.TAG} bytecode"
        header = compiled.read_bytes()[:8]
        assert int.from_bytes(header[4:8], "little") == UNCHECKED_HASH, f"{compiled.name} checks its source's mtime"
    assert not [p for p in built.rglob("*.pyc") if bytecode.TAG not in p.name], "another Python's bytecode ships"
    # The runtime's Python reads it: the magic number is its own.
    magic = subprocess.run(
        [
            bytecode.lambda_python(),
            "-c",
            "import importlib.util,sys; sys.stdout.write(importlib.util.MAGIC_NUMBER.hex())",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    app = built / "launchpod" / "entrypoints" / "api" / "__pycache__" / f"app.{bytecode.TAG}.pyc"
    assert app.read_bytes()[:4].hex() == magic


def test_the_bytecode_is_compiled_for_the_version_the_functions_run_and_the_layer_is_downloaded_for():
    assert functions.RUNTIME.name == f"python{bytecode.LAMBDA_PYTHON_VERSION}"
    assert build_layer.LAMBDA_PYTHON_VERSION == bytecode.LAMBDA_PYTHON_VERSION


def test_the_stack_ships_the_built_code_only_while_it_is_functions_as_it_is_now(tmp_path):
    built = tmp_path / "code"
    assert Inputs(code_dir=built).code_source == FUNCTIONS_DIR  # not built: functions/ itself
    build_code.build(built)
    assert Inputs(code_dir=built).code_source == built

    source = tmp_path / "functions"
    shutil.copytree(FUNCTIONS_DIR, source, ignore=build_code.IGNORE)
    assert code_is_current(built, source)
    settings = Path("launchpod/runtime/settings.py")
    (source / settings).write_text((source / settings).read_text() + "\n# edited after the build\n")
    assert not code_is_current(built, source), "an edited module would ship as it was built"
    (source / settings).write_text((built / settings).read_text())
    (source / "launchpod" / "added.py").write_text('"""A module added after the build."""\n')
    assert not code_is_current(built, source), "a module added since the build would be missing"
