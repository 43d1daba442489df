"""Benchmark: the API Lambda's cold start from the built package, over a bare powertools resolver with Tracer.

What a Lambda cold start pays is its init phase: the runtime imports the handler's module, and everything
that imports, from the code asset (/var/task) and the layer (/opt/python), on a read-only filesystem, so
a module shipped without bytecode is compiled again at every cold start. This runs exactly that on the
sandbox's execution environments (sandbox/lambda_env): each sample is a new process of the runtime's
Python (3.12, cdk/bytecode.py) whose path holds only the built code and layer, and the runtime's own
timing of the handler import is the sample (``handlerSeconds`` of the environments' cold starts).

The packages are what ``make lambda-layer`` builds (cdk/build_code.py, cdk/build_layer.py), with the
layer's wheels for this machine's architecture instead of arm64 (built into build/layer-<arch> when
missing: pip downloads them). The API app and the baseline (a module with ``Tracer()`` and
``APIGatewayRestResolver(enable_validation=True)`` and one route), both with the bytecode the package ships,
are sampled alternately (API, baseline, API, baseline...), so load on this shared machine falls on both
alike; ``--without-bytecode`` adds the same pair without bytecode (the package as it shipped before), and
``--also-code DIR`` another built code asset in the same rounds (an earlier commit's, built with
``python cdk/build_code.py DIR`` in a checkout of that commit), so a change is measured against what it
changed under the same load.
Prints the load average before and after, each way's median (and quartiles), the ratio of the medians
API / baseline (goal <= 1.2) and the median of the per-round ratios beside it. A second figure is the
whole cold invocation as the caller waits for it (new process, import, the first request to
/api/health), timed around the invoke.

    .venv/bin/python bench/api_cold_start.py [--runs 25] [--without-bytecode] [--also-code DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "cdk")]

import build_code  # noqa: E402
import build_layer  # noqa: E402
from bytecode import compile_tree, lambda_python  # noqa: E402
from launchpod_cdk.config import code_is_current  # noqa: E402

from sandbox.lambda_env import packaging  # noqa: E402
from sandbox.lambda_env.environments import Authorizer, ExecutionEnvironments, FunctionConfig  # noqa: E402

BASELINE = '''"""The baseline: a bare powertools REST resolver with Tracer and one route."""
from aws_lambda_powertools import Tracer
from aws_lambda_powertools.event_handler import APIGatewayRestResolver

tracer = Tracer(service="baseline")
app = APIGatewayRestResolver(enable_validation=True)


@app.get("/api/health")
def health() -> dict:
    return {"status": "ok"}


@tracer.capture_lambda_handler
def handler(event, context):
    return app.resolve(event, context)
'''
HEALTH = {"httpMethod": "GET", "path": "/api/health", "headers": {}, "requestContext": {"requestId": "cold-start"}}
ENVIRONMENT = {"POWERTOOLS_SERVICE_NAME": "launchpod", "POWERTOOLS_METRICS_DISABLED": "true"}
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing"}


def packages(work: Path, without_bytecode: bool, also: Path | None) -> dict[str, tuple[Path, Path, str]]:
    """Label -> (code dir, layer dir, handler) of each way measured."""
    code = ROOT / "build" / "code"
    if not code_is_current(code):
        build_code.build(code)
    machine = platform.machine()
    layer = ROOT / "build" / f"layer-{machine}"
    if not (layer / "python").is_dir():
        build_layer.build(layer, f"manylinux2014_{machine}")
    baseline = work / "baseline"
    baseline.mkdir()
    (baseline / "baseline.py").write_text(BASELINE)
    compile_tree(baseline)
    api = "launchpod.entrypoints.api.app.handler"
    ways = {
        "API app, built package (bytecode)": (code, layer / "python", api),
        "baseline (bytecode)": (baseline, layer / "python", "baseline.handler"),
    }
    if also is not None:
        ways[f"API app, {also.name} (bytecode)"] = (also, layer / "python", api)
    if without_bytecode:
        bare = work / "baseline-source"
        shutil.copytree(baseline, bare, ignore=shutil.ignore_patterns("__pycache__"))
        layer_source = work / "layer-source"
        shutil.copytree(layer / "python", layer_source, ignore=shutil.ignore_patterns("__pycache__"))
        code_source = work / "code-source"
        shutil.copytree(code, code_source, ignore=shutil.ignore_patterns("__pycache__"))
        ways["API app, without bytecode"] = (code_source, layer_source, api)
        ways["baseline, without bytecode"] = (bare, layer_source, "baseline.handler")
    return ways


def _quartiles(values: list[float]) -> str:
    q1, _, q3 = statistics.quantiles(values, n=4)
    return f"q1 {q1 * 1000:.0f}, q3 {q3 * 1000:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--without-bytecode", action="store_true", help="also the pair without bytecode")
    parser.add_argument(
        "--also-code",
        type=Path,
        help="another built code asset sampled in the same rounds, e.g. an earlier commit's (cdk/build_code.py DIR)",
    )
    args = parser.parse_args()
    python = lambda_python()
    samples: dict[str, list[float]] = {}
    walls: dict[str, list[float]] = {}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="cold-start-") as tmp:
        work = Path(tmp)
        ways = packages(work, args.without_bytecode, args.also_code)
        envs = {
            label: ExecutionEnvironments(
                aws_url="http://127.0.0.1:9",  # nothing here calls AWS
                log_dir=work / "logs",
                credentials=lambda role, function: CREDENTIALS,
                authorizer=Authorizer(),
                python=python,
                package=packaging.built_package(code, layer, python),
            )
            for label, (code, layer, _) in ways.items()
        }
        try:
            for run in range(args.runs + 1):  # the first round is not counted: it fills the OS's file cache
                for label, (_, _, handler) in ways.items():
                    # A new configuration is a new environment ("Lambda execution environment"): a cold start.
                    config = FunctionConfig(
                        name="launchpod-api",
                        arn="arn:aws:lambda:us-east-1:123456789012:function:launchpod-api",
                        handler=handler,
                        role_arn="arn:aws:iam::123456789012:role/launchpod-api",
                        timeout=60,
                        memory=1024,
                        environment={**ENVIRONMENT, "SAMPLE": str(run)},
                    )
                    started = time.perf_counter()
                    payload, failed = envs[label].invoke(config, HEALTH)
                    wall = time.perf_counter() - started
                    if failed or '"statusCode": 200' not in payload:
                        raise SystemExit(f"{label}: the health route did not answer 200: {payload[:500]}")
                    if run:
                        cold = envs[label].report()["coldStarts"][-1]
                        samples.setdefault(label, []).append(cold["handlerSeconds"])
                        walls.setdefault(label, []).append(wall)
        finally:
            for env in envs.values():
                env.stop()
    load_after = os.getloadavg()
    print(f"load average before {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f}; "
          f"after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f}; {os.cpu_count()} CPUs")  # fmt: skip
    labels = list(ways)
    for title, figures in (("the handler's import (init)", samples), ("the cold invocation, wall", walls)):
        print(f"{title}, {args.runs} runs each, alternating:")
        medians = {label: statistics.median(values) for label, values in figures.items()}
        for label, values in figures.items():
            median = medians[label] * 1000
            print(f"  {label:36s} median {median:7.1f} ms  ({_quartiles(values)}, min {min(values) * 1000:.0f})")
        for api in (label for label in labels if label.startswith("API")):
            base = "baseline, without bytecode" if "without" in api else "baseline (bytecode)"
            per_round = statistics.median(a / b for a, b in zip(figures[api], figures[base], strict=True))
            print(f"  ratio of medians {api} / {base}: {medians[api] / medians[base]:.2f}"
                  f"  (median of per-round ratios {per_round:.2f})")  # fmt: skip
    print("goal: the handler's import, API / baseline with bytecode, <= 1.2")


if __name__ == "__main__":
    main()
