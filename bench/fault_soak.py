"""A fault soak (bounded, loopback only): mixed operations across several clusters while AWS throttles
and fails and the workflow phases' own functions die, time out and are refused, retried as a client
would; then the evidence, counted from the sandbox's own logs.

Each cluster runs create → dependencies → storage → HyperPod → software update → delete (six
operations) in its own thread, against one sandbox with ``--throttle`` of the AWS calls throttled,
one EKS CreateCluster failing on capacity and ``--capacity-failures`` HyperPod creates failing on
capacity. Faults inside the functions Step Functions invokes (sandbox.lambda_env.faults), each kind at its
own rate of invocations, drawn from ``--seed``: an environment killed right after its first change
(``--kill``), a timeout (``--timeout``), a response over 6 MB (``--response-too-large``), a result over
Step Functions' 256 KiB (``--state-too-large``), a throttled Invoke (``--invoke-throttle``) and a failed one
(``--invoke-failure``). The client resends a request answered 429/503 (same Idempotency-Key) or 409
(cluster busy), and retries an operation that ends FAILED. Printed: operations and their end states,
faults injected per kind, client retries, throttled AWS calls, mutating calls per action against what one
per change would be (duplicates), and what Launchpod had tagged or named that is still there after every
delete (orphans). It stops by itself: an operation not terminal within ``--operation-timeout`` is
reported as stuck.

    .venv/bin/python bench/fault_soak.py [--clusters 5] [--throttle 0.2] [--kill 0.04] [--seed 7]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import boto3
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "functions"))

from launchpod import registry

from bench.harness import running
from sandbox.aws.iam import gate
from sandbox.runtime import Sandbox

ZONES = ["us-east-1a", "us-east-1b"]
GROUP = {"name": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 1}
TERMINAL = {"SUCCEEDED", "FAILED", "CANCELLED"}


class Client:
    """A patient client: resends on 409/429/503 and retries a FAILED operation, as a script would."""

    def __init__(self, box: Sandbox) -> None:
        self.http = httpx.Client(
            base_url=box.url, headers={"Authorization": f"Bearer {box.tokens.token_for('admin')}"}, timeout=120
        )
        self.resends: collections.Counter[int] = collections.Counter()
        self.retried_operations = 0
        self.failures: collections.Counter[str] = collections.Counter()  # why operations ended FAILED
        self.timeout = 300.0
        self.lock = threading.Lock()

    def send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        key = {"Idempotency-Key": str(uuid.uuid4())} if method != "GET" else {}
        deadline = time.monotonic() + self.timeout  # a request refused that long is reported as it was answered
        while True:
            response = self.http.request(method, path, headers=key, **kwargs)
            # 502/504: API Gateway's answer when the API function failed or ran past 29 s; resent with the
            # same Idempotency-Key, it finds the operation the first request made, if it made one.
            if response.status_code not in (409, 429, 502, 503, 504):
                return response
            if time.monotonic() > deadline:
                return response
            with self.lock:
                self.resends[response.status_code] += 1
            time.sleep(0.2)

    def wait(self, operation_id: str) -> dict[str, Any]:
        """The operation once terminal, or as it stands after ``timeout`` (reported as stuck)."""
        deadline = time.monotonic() + self.timeout
        view: dict[str, Any] = {}
        while time.monotonic() < deadline:
            view = self.send("GET", f"/api/operations/{operation_id}").json()
            if view.get("status") in TERMINAL:
                return dict(view)
            time.sleep(0.2)
        return {**view, "stuck": True}

    def run(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """One operation to its end, retried (at most three times) while it ends FAILED."""
        answer = self.send(method, path, **kwargs)
        if answer.status_code == 200:  # NOOP: already so
            return {"status": "SUCCEEDED", "kind": "noop", "attempt": 0, "path": path}
        if answer.status_code >= 400:
            return {"status": f"refused {answer.status_code}", "path": path, "message": answer.text[:300]}
        operation_id = answer.json()["operation"]["id"]
        view = self.wait(operation_id)
        for _ in range(3):
            if view["status"] != "FAILED":
                break
            with self.lock:
                self.retried_operations += 1
                self.failures[_failure_kind(view)] += 1
            self.send("POST", f"/api/operations/{operation_id}/retry").raise_for_status()
            view = self.wait(operation_id)
        return {**view, "path": path}


def _failure_kind(view: dict[str, Any]) -> str:
    """The failed phase's error in a few words (the error name when it carries one)."""
    text = json.dumps(view.get("error") or [p.get("error") for p in view.get("phases", []) if p.get("error")])
    for name in ("DataLimitExceeded", "ResponseSizeTooLarge", "Lambda.Unknown", "TooManyRequests", "ServiceException"):
        if name in text:
            return name
    return "capacity" if "capacity" in text.lower() else text[:80]


def lifecycle(client: Client, name: str) -> list[dict[str, Any]]:
    """The six operations in order; after one that does not end SUCCEEDED, only the delete (nothing is left)."""
    base = f"/api/clusters/{name}"
    steps: list[tuple[str, str, dict[str, Any]]] = [
        ("POST", "/api/clusters", {"json": {"name": name, "availabilityZones": ZONES}}),
        ("POST", f"{base}/dependencies", {"json": {}}),
        ("POST", f"{base}/storage", {"json": {"kind": "s3", "storageName": "data"}}),
        ("POST", f"{base}/hyperpod", {"json": {"availabilityZone": "us-east-1a", "instanceGroups": [GROUP]}}),
        ("POST", f"{base}/software-update", {"json": {}}),
    ]
    views = []
    for method, path, kwargs in steps:
        views.append(client.run(method, path, **kwargs))
        if views[-1]["status"] != "SUCCEEDED":
            break
    views.append(client.run("DELETE", base, params={"confirm": name}))
    return views


def orphans(names: list[str]) -> dict[str, int]:
    """What Launchpod created for these clusters that is still there."""
    ec2, eks = boto3.client("ec2", region_name="us-east-1"), boto3.client("eks", region_name="us-east-1")
    sm, iam = boto3.client("sagemaker", region_name="us-east-1"), boto3.client("iam", region_name="us-east-1")
    tag = [{"Name": "tag:launchpod:cluster", "Values": names}]
    roles = [r["RoleName"] for r in iam.list_roles()["Roles"] if any(n in r["RoleName"] for n in names)]
    return {
        "eks clusters": len(set(eks.list_clusters()["clusters"]) & set(names)),
        "hyperpod clusters": len([c for c in sm.list_clusters()["ClusterSummaries"] if c["ClusterName"] in names]),
        "vpcs": len(ec2.describe_vpcs(Filters=tag)["Vpcs"]),
        "subnets": len(ec2.describe_subnets(Filters=tag)["Subnets"]),
        "nat gateways (not deleted)": len(
            [n for n in ec2.describe_nat_gateways(Filter=tag)["NatGateways"] if n["State"] != "deleted"]
        ),
        "elastic ips": len(ec2.describe_addresses(Filters=tag)["Addresses"]),
        "security groups": len(ec2.describe_security_groups(Filters=tag)["SecurityGroups"]),
        "iam roles naming a cluster": len(roles),
        # The soak's sandbox holds nothing else: a VPC, subnet or address made twice and never tagged is one too.
        "untagged vpcs": len([v for v in ec2.describe_vpcs()["Vpcs"] if not v.get("IsDefault")])
        - len(ec2.describe_vpcs(Filters=tag)["Vpcs"]),
        "untagged subnets": len([n for n in ec2.describe_subnets()["Subnets"] if not n.get("DefaultForAz")])
        - len(ec2.describe_subnets(Filters=tag)["Subnets"]),
        "untagged elastic ips": len(ec2.describe_addresses()["Addresses"])
        - len(ec2.describe_addresses(Filters=tag)["Addresses"]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=9)
    parser.add_argument("--throttle", type=float, default=0.2)
    parser.add_argument("--capacity-failures", type=int, default=1, help="HyperPod creates failing on capacity")
    parser.add_argument("--time-scale", type=float, default=0.005)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--operation-timeout", type=float, default=300.0, help="seconds before an operation is stuck")
    rates = {
        "kill": ("--kill", 0.04),
        "timeout": ("--timeout", 0.02),
        "responseTooLarge": ("--response-too-large", 0.01),
        "stateTooLarge": ("--state-too-large", 0.01),
        "throttle": ("--invoke-throttle", 0.03),
        "serviceError": ("--invoke-failure", 0.02),
    }
    for kind, (flag, default) in rates.items():
        parser.add_argument(flag, type=float, default=default, help=f"fraction of phase invocations: {kind}")
    args = parser.parse_args()
    with running(args.time_scale) as box:
        names = [f"soak-{i:02d}" for i in range(args.clusters)]
        client = Client(box)
        client.timeout = args.operation_timeout
        box.faults.throttle(args.throttle, seed=args.seed)
        box.faults.fail_next_eks_create()
        # The functions Step Functions invokes: every phase of every workflow.
        phases = sorted({f for machine in registry.STATE_MACHINES for f in machine.functions})
        chosen = {kind: getattr(args, flag.lstrip("-").replace("-", "_")) for kind, (flag, _) in rates.items()}
        box.function_faults.rates(chosen, functions=phases, seed=args.seed)
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=len(names)) as pool:
            runs = [pool.submit(lifecycle, client, n) for n in names]
            for _ in range(args.capacity_failures):  # one-shot faults, armed one after another
                box.hyperpod_faults.fail_next_create("capacity")
                while box.hyperpod_faults.describe()["armed"] and not all(r.done() for r in runs):
                    time.sleep(0.1)
            results = {n: r.result() for n, r in zip(names, runs, strict=True)}
        took = time.monotonic() - started
        box.faults.throttle(0)
        box.function_faults.rates({})
        ends = collections.Counter(
            "stuck" if view.get("stuck") else view["status"] for views in results.values() for view in views
        )
        print(f"{sum(ends.values())} operations across {len(names)} clusters in {took:.0f} s: {dict(ends)}")
        injected = box.function_faults.describe()["injected"]
        print(f"faults inside functions: {sum(injected.values())} {dict(injected)} (rates {chosen}, seed {args.seed})")
        print(f"client resends {dict(client.resends)}; operations retried after FAILED: {client.retried_operations}")
        print(f"  why they had failed: {dict(client.failures)}")
        for name, views in results.items():
            for view in views:
                if view["status"] != "SUCCEEDED" or view.get("stuck"):
                    phases = [f"{p['name']}: {p.get('error')}: {p.get('message')}" for p in view.get("phases", [])
                              if p.get("status") not in ("SUCCEEDED", "SKIPPED", "PENDING")]  # fmt: skip
                    print(f"  {name} {view['path']}: {view['status']} {view.get('message')} {phases}")
        print(f"throttled AWS calls: {box.faults.describe()['throttledCalls']}")
        failed = sum(box.hyperpod_faults.describe()["injected"].values())
        print(f"injected: {box.faults.describe()['injectedEksCreateFailures']} EKS create, {failed} HyperPod capacity")
        # What one call per change is: the injected EKS failure refuses the call itself; a HyperPod
        # cluster that failed on capacity is deleted and created again by the retried operation.
        per_change = {
            "eks:CreateCluster": len(names),
            "sagemaker:CreateCluster": len(names) + failed,
            "sagemaker:UpdateClusterSoftware": len(names),
            "sagemaker:DeleteCluster": len(names) + failed,
            "eks:DeleteCluster": len(names),
        }
        duplicates = 0
        for action, expected in per_change.items():
            done = sum(r["count"] for r in gate.mutations(action) if r["target"] in names)
            duplicates += max(0, done - expected)
            print(f"  {action:34s} {done:3d} calls, {expected:3d} changes")
        print(f"duplicate mutations: {duplicates}")
        left = orphans(names)
        print(f"orphans after deleting everything: {sum(left.values())}  {left}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
