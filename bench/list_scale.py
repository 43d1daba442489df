"""Benchmark: the list routes with 10,000 operations and 500 clusters in the tables.

Seeds the sandbox's tables directly (BatchWriteItem; the records are what the stores write), then
times each list route over REST and pages through it with nextToken, checking every record comes
exactly once. Prints p50/p95 per route (goal p95 ≤ 100 ms for the operations listings).

The clusters listing reads each listed cluster's EKS and HyperPod state from AWS (the point of the
route), so its time grows with the page size, not with the table: it is printed per page of 50.

    .venv/bin/python bench/list_scale.py [--operations 10000] [--clusters 500] [--samples 40]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import boto3
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "functions"))

from launchpod.adapters.store.clusters import REGISTRY, REGISTRY_ATTRIBUTE
from launchpod.adapters.store.operations import FEED, FEED_ATTRIBUTE

from sandbox.provision import table_name
from sandbox.runtime import Sandbox, free_port

STATUSES = ("SUCCEEDED", "FAILED", "CANCELLED")


def seed(operations: int, clusters: int) -> None:
    ddb = boto3.resource("dynamodb", region_name="us-east-1")
    start = datetime(2026, 1, 1, tzinfo=UTC)
    with ddb.Table(table_name("clusters")).batch_writer() as batch:
        for i in range(clusters):
            batch.put_item(
                Item={
                    "name": f"bench-{i:04d}",
                    "source": "created",
                    "region": "us-east-1",
                    "registeredAt": start.isoformat(),
                    REGISTRY_ATTRIBUTE: REGISTRY,
                }
            )
    with ddb.Table(table_name("operations")).batch_writer() as batch:
        for i in range(operations):
            at = (start + timedelta(seconds=i)).isoformat()
            batch.put_item(
                Item={
                    "id": f"op-bench{i:012d}",
                    "kind": "create-control-plane",
                    "target": f"bench-{i % clusters:04d}",
                    "status": STATUSES[i % len(STATUSES)],
                    "createdAt": at,
                    "updatedAt": at,
                    "createdBy": "bench",
                    "phases": [],
                    "attempt": 1,
                    "statusUrl": f"/api/operations/op-bench{i:012d}",
                    "request": json.dumps({"name": f"bench-{i % clusters:04d}"}),
                    "requestKey": f"k{i}",
                    "outputs": {},
                    FEED_ATTRIBUTE: FEED,
                }
            )


def timed(client: httpx.Client, path: str, params: dict) -> tuple[float, dict]:
    started = time.perf_counter()
    response = client.get(path, params=params)
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    return elapsed, response.json()


def every_page(client: httpx.Client, path: str, params: dict) -> tuple[int, int]:
    seen: list[str] = []
    token = None
    while True:
        _, body = timed(client, path, {**params, **({"nextToken": token} if token else {})})
        seen += [item.get("id") or item.get("name") for item in body["items"]]
        token = body.get("nextToken")
        if not token:
            return len(seen), len(set(seen))


def report(label: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    print(f"{label:42s} p50 {statistics.median(ordered) * 1000:7.1f} ms   p95 {p95 * 1000:7.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--operations", type=int, default=10_000)
    parser.add_argument("--clusters", type=int, default=500)
    parser.add_argument("--samples", type=int, default=40)
    args = parser.parse_args()
    box = Sandbox(time_scale=0.05, port=free_port()).start()
    try:
        began = time.perf_counter()
        seed(args.operations, args.clusters)
        took = time.perf_counter() - began
        print(f"seeded {args.operations} operations and {args.clusters} clusters in {took:.1f} s")
        headers = {"Authorization": f"Bearer {box.tokens.token_for('viewer')}"}
        with httpx.Client(base_url=box.url, headers=headers, timeout=120) as client:
            routes = [
                ("GET /api/operations (50, newest first)", "/api/operations", {"limit": 50}),
                ("GET /api/operations?cluster=… (50)", "/api/operations", {"limit": 50, "cluster": "bench-0007"}),
                ("GET /api/operations?status=FAILED (50)", "/api/operations", {"limit": 50, "status": "FAILED"}),
                ("GET /api/clusters (50 per page)", "/api/clusters", {"limit": 50}),
            ]
            for label, path, params in routes:
                samples = [timed(client, path, params)[0] for _ in range(args.samples)]
                report(label, samples)
            total, distinct = every_page(client, "/api/operations", {"limit": 200})
            print(f"operations paged 200 at a time: {total} listed, {distinct} distinct (of {args.operations})")
            total, distinct = every_page(client, "/api/clusters", {"limit": 200})
            print(f"clusters paged 200 at a time: {total} listed, {distinct} distinct (of {args.clusters})")
    finally:
        box.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
