"""Concurrent callers, as a busy team and its agents are: ten identical creates make one operation and
one EKS CreateCluster; ten different mutations of one cluster get one operation, and nine 409s naming
the operation that holds the cluster. Counted from the sandbox's call log of mutating AWS calls."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.sandbox.http_support import TLS

pytestmark = pytest.mark.e2e

NAME = "e2e-concurrent"
ZONES = ["us-east-1a", "us-east-1b"]


def _calls(sandbox: Any, action: str, target: str) -> int:
    with sandbox.client("admin") as c:
        rows = c.get("/api/sandbox/calls", params={"action": action}).json()["mutations"]
    return sum(r["count"] for r in rows if r["target"] == target)


def _at_once(sandbox: Any, requests: list[tuple[str, str, dict | None]]) -> list[httpx.Response]:
    def send(request: tuple[str, str, dict | None]) -> httpx.Response:
        method, path, body = request
        with httpx.Client(base_url=sandbox.url, headers=sandbox.headers("admin"), timeout=60, verify=TLS) as c:
            return c.request(method, path, json=body)

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        return list(pool.map(send, requests))


def test_ten_identical_creates_make_one_operation_and_one_create_cluster(sandbox: Any) -> None:
    body = {"name": NAME, "availabilityZones": ZONES}
    answers = _at_once(sandbox, [("POST", "/api/clusters", body)] * 10)
    assert {a.status_code for a in answers} == {202}, [a.text[:200] for a in answers if a.status_code != 202]
    operations = {a.json()["operation"]["id"] for a in answers}
    assert len(operations) == 1
    done = sandbox.wait_operation(operations.pop(), timeout=180)
    assert done["status"] == "SUCCEEDED", done
    assert _calls(sandbox, "eks:CreateCluster", NAME) == 1

    # Ten different mutations of that cluster at once. One holds it and the others are told which; a
    # holder that finishes within the burst (storage before the dependencies fails at once) frees the
    # cluster for the next, so what must hold is mutual exclusion: every 409 names an accepted
    # operation, and the accepted ones never overlap in time.
    path = f"/api/clusters/{NAME}/storage"
    mutations = [("POST", path, {"kind": "s3", "storageName": f"vol-{i}"}) for i in range(10)]
    answers = _at_once(sandbox, mutations)
    accepted = [a.json()["operation"]["id"] for a in answers if a.status_code == 202]
    refused = [a.json() for a in answers if a.status_code == 409]
    assert accepted and len(accepted) + len(refused) == 10, [(a.status_code, a.text[:160]) for a in answers]
    for envelope in refused:
        holder = next(d["message"] for d in envelope["details"] if d["rule"] == "held_by")
        assert envelope["code"] == "CONFLICT" and holder in envelope["message"] and holder in accepted
    runs = sorted((sandbox.wait_operation(op, timeout=180) for op in accepted), key=lambda o: o["createdAt"])
    assert all(o["status"] in ("SUCCEEDED", "FAILED") for o in runs)
    for earlier, later in itertools.pairwise(runs):
        ended = max((p["endedAt"] for p in earlier["phases"] if p.get("endedAt")), default=earlier["createdAt"])
        assert later["createdAt"] >= ended, "two operations held the cluster at once"
