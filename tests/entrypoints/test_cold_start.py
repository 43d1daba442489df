"""The API Lambda's cold start: its handler module does not import what no route needs at import.

The kubernetes package costs ~0.25 s to import (bench/api_cold_start.py prints the whole import
against a bare powertools resolver); routes that talk to a cluster import it on first use. Likewise
cryptography (only the load balancer controller's certificate needs it), PyYAML (only the reconcile reads the
pinned manifest and the vendored CRDs) and powertools' OpenAPI models (only /api/docs and /api/openapi.json).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _loaded_at_import(roots: tuple[str, ...]) -> str:
    probe = (
        "import sys, launchpod.entrypoints.api.app\n"
        f"print(','.join(sorted(m for m in sys.modules if m.startswith({roots!r}))))"
    )
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'functions'}:{ROOT}"}
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True).stdout


def test_importing_the_api_handler_leaves_the_kubernetes_client_unloaded():
    loaded = _loaded_at_import(("kubernetes", "kubernetes_validate"))
    assert loaded.strip() == "", f"imported at cold start: {loaded.strip()[:300]}"


def test_importing_the_api_handler_leaves_cryptography_yaml_and_the_openapi_models_unloaded():
    loaded = _loaded_at_import(("cryptography", "yaml", "aws_lambda_powertools.event_handler.openapi.models"))
    assert loaded.strip() == "", f"imported at cold start: {loaded.strip()[:300]}"
