"""The API Lambda's cold start: its handler module does not import what no route needs at import.

The kubernetes package costs ~0.25 s to import (bench/api_cold_start.py prints the whole import
against a bare powertools resolver); routes that talk to a cluster import it on first use.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_api_handler_leaves_the_kubernetes_client_unloaded():
    probe = (
        "import sys, launchpod.entrypoints.api.app\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('kubernetes', 'kubernetes_validate'))))"
    )
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'functions'}:{ROOT}"}
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert loaded.stdout.strip() == "", f"imported at cold start: {loaded.stdout.strip()[:300]}"
