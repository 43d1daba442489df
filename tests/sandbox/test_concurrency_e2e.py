"""Concurrent callers, as a busy team and its agents are: ten identical creates make one operation and
one EKS CreateCluster; ten different mutations of one cluster get one operation, and nine 409s naming
the operation that holds the cluster. Counted from the sandbox's call log of mutating AWS calls. Nothing
writes an operation once it has ended: read from what a console subscribed to the cluster is pushed, one
push per change the operations table's stream carries."""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.sandbox.aws.support import wait_until
from tests.sandbox.http_support import TERMINAL, TLS

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


@contextlib.contextmanager
def _pushed_operations(sandbox: Any, cluster: str) -> Iterator[list[dict[str, Any]]]:
    """Every operation image pushed to a console subscribed to ``cluster:<cluster>``, gathered in a thread."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    pushes: list[dict[str, Any]] = []
    done = threading.Event()
    with connect(sandbox.url.replace("http://", "ws://") + f"/ws?token={sandbox.tokens['viewer']}") as ws:
        ws.send(json.dumps({"action": "subscribe", "topics": [f"cluster:{cluster}"]}))
        assert json.loads(ws.recv(timeout=30))["type"] == "subscribed"

        def gather() -> None:
            while not done.is_set():
                try:
                    message = json.loads(ws.recv(timeout=0.2))
                except (TimeoutError, ConnectionClosed):
                    continue
                if message.get("type") == "operation":
                    pushes.append(message["data"])

        thread = threading.Thread(target=gather, daemon=True)
        thread.start()
        try:
            yield pushes
        finally:
            done.set()
            thread.join(timeout=5)


def _quiet(sandbox: Any, pushes: list[dict[str, Any]]) -> None:
    """Wait until no function runs and nothing more is pushed: every write has been made and streamed."""
    seen = [-1]

    def still() -> bool:
        with sandbox.client("admin") as c:
            busy = c.get("/api/sandbox/lambda").json()["busy"]
        settled = not busy and len(pushes) == seen[0]
        seen[0] = len(pushes)
        return settled

    wait_until(still, timeout=60, interval=0.5, reason="the functions and the stream to go quiet")


def test_ten_identical_creates_make_one_operation_and_one_create_cluster(sandbox: Any) -> None:
    with _pushed_operations(sandbox, NAME) as pushes:
        _creates_and_mutations(sandbox, pushes)


def _creates_and_mutations(sandbox: Any, pushes: list[dict[str, Any]]) -> None:
    body = {"name": NAME, "availabilityZones": ZONES}
    answers = _at_once(sandbox, [("POST", "/api/clusters", body)] * 10)
    assert {a.status_code for a in answers} == {202}, [a.text[:200] for a in answers if a.status_code != 202]
    operations = {a.json()["operation"]["id"] for a in answers}
    assert len(operations) == 1
    create = sandbox.wait_operation(operations.pop(), timeout=180)
    assert create["status"] == "SUCCEEDED", create
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
        # An operation's last write is its end, made before it lets the cluster go: nothing (a late execution
        # record, a second end) writes it once the next holder has it.
        assert later["createdAt"] >= earlier["updatedAt"], f"{earlier['id']} was written after {later['id']} began"
    # Each change to an operation is pushed: once one has been pushed ended, every later push of it is the same
    # record (a runner's hold let go changes nothing the user reads), whatever the batching joined.
    _quiet(sandbox, pushes)
    for operation in [create, *runs]:
        images = [p for p in pushes if p["id"] == operation["id"]]
        first_end = next((i for i, p in enumerate(images) if p["status"] in TERMINAL), None)
        assert first_end is not None, f"no end of {operation['id']} was pushed: {images[-1:]}"
        after = images[first_end:]
        assert all(p == after[0] for p in after), f"{operation['id']} was written after it ended: {after}"
