"""Benchmark: the API Lambda's import time over a bare powertools resolver with Tracer.

A Lambda cold start pays for every module its handler imports. Each sample is a fresh interpreter
(``python -c``) timing the import alone; the API app and the baseline alternate so load on this noisy
machine falls on both alike, and the ratio of medians is printed (goal ≤ 1.5). Also printed: which
heavy packages the API app imports (kubernetes should not be one: no route needs it at import).

Both sides read bytecode: the samples run with a private ``PYTHONPYCACHEPREFIX`` that a first, uncounted run of
each fills. Without it (this machine sets ``PYTHONDONTWRITEBYTECODE``) the API app's own modules would be compiled
from source on every sample while powertools' come compiled from site-packages, which measures the compiler,
not the imports. The deployed package ships no bytecode today (the layer and the code asset drop
``__pycache__``), so on Lambda both sides also pay compilation; see cdk/build_layer.py.

    .venv/bin/python bench/api_cold_start.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

API = "import launchpod.entrypoints.api.app"
BASELINE = (
    "from aws_lambda_powertools import Tracer\n"
    "from aws_lambda_powertools.event_handler import APIGatewayRestResolver\n"
    "Tracer(service='baseline')\n"
    "APIGatewayRestResolver(enable_validation=True)"
)
HEAVY = ("kubernetes", "kubernetes_validate", "yaml", "jsonschema", "aws_xray_sdk", "pydantic")


def sample(code: str, cache: str) -> tuple[float, list[str]]:
    probe = (
        "import sys, time\n"
        "t = time.perf_counter()\n"
        f"exec({code!r})\n"
        "print(time.perf_counter() - t)\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'functions'}:{ROOT}",
        "POWERTOOLS_SERVICE_NAME": "launchpod",
        "PYTHONPYCACHEPREFIX": cache,
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True).stdout
    seconds, modules = out.splitlines()
    return float(seconds), [m for m in modules.split(",") if m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    api: list[float] = []
    base: list[float] = []
    loaded: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pycache-") as cache:
        sample(API, cache), sample(BASELINE, cache)  # writes the bytecode both sides then read
        for _ in range(args.runs):
            seconds, loaded = sample(API, cache)
            api.append(seconds)
            base.append(sample(BASELINE, cache)[0])
    a, b = statistics.median(api), statistics.median(base)
    print(f"API app import      median {a * 1000:7.1f} ms  (min {min(api) * 1000:.1f}, {args.runs} runs)")
    print(f"powertools+Tracer   median {b * 1000:7.1f} ms  (min {min(base) * 1000:.1f})")
    print(f"ratio API / baseline: {a / b:.2f}  (goal <= 1.5)")
    print(f"heavy packages the API app imports: {', '.join(loaded) or 'none'}")


if __name__ == "__main__":
    main()
