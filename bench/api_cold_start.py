"""Benchmark: the API Lambda's import time over a bare powertools resolver with Tracer.

A Lambda cold start pays for every module its handler imports. Each sample is a fresh interpreter
(``python -c``) timing the import alone; the API app and the baseline alternate so load on this noisy
machine falls on both alike, and the ratio of medians is printed (goal ≤ 1.5). Also printed: which
heavy packages the API app imports (kubernetes should not be one: no route needs it at import).

    .venv/bin/python bench/api_cold_start.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
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


def sample(code: str) -> tuple[float, list[str]]:
    probe = (
        "import sys, time\n"
        "t = time.perf_counter()\n"
        f"exec({code!r})\n"
        "print(time.perf_counter() - t)\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'functions'}:{ROOT}", "POWERTOOLS_SERVICE_NAME": "launchpod"}
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
    for _ in range(args.runs):
        seconds, loaded = sample(API)
        api.append(seconds)
        base.append(sample(BASELINE)[0])
    a, b = statistics.median(api), statistics.median(base)
    print(f"API app import      median {a * 1000:7.1f} ms  (min {min(api) * 1000:.1f}, {args.runs} runs)")
    print(f"powertools+Tracer   median {b * 1000:7.1f} ms  (min {min(base) * 1000:.1f})")
    print(f"ratio API / baseline: {a / b:.2f}  (goal <= 1.5)")
    print(f"heavy packages the API app imports: {', '.join(loaded) or 'none'}")


if __name__ == "__main__":
    main()
