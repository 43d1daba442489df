"""A fault soak (bounded, loopback only): mixed operations across several clusters while AWS throttles
and fails, retried as a client would; then the evidence, counted from the sandbox's own logs.

Each cluster runs create → dependencies → storage → HyperPod → software update → delete (six
operations) in its own thread, against one sandbox with ``--throttle`` of the AWS calls throttled,
one EKS CreateCluster failing on capacity and ``--capacity-failures`` HyperPod creates failing on
capacity. The client resends a request answered 429/503 (same Idempotency-Key) or 409 (cluster busy),
and retries an operation that ends FAILED. Printed: operations and their end states, client retries,
throttled AWS calls, mutating calls per action against what one per change would be (duplicates),
and what Launchpod had tagged or named that is still there after every delete (orphans).

    .venv/bin/python bench/fault_soak.py [--clusters 9] [--throttle 0.2] [--time-scale 0.005]
"""

from __future__ import annotations

import argparse
import collections
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

from sandbox.aws.iam import gate
from sandbox.runtime import Sandbox, free_port

ZONES = ["us-east-1a", "us-east-1b"]
GROUP = {"name": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 1}
TERMINAL = {"SUCCEEDED", "FAILED", "CANCELLED"}


class Client:
    """A patient client: resends on 409/429/503 and retries a FAILED operation, as a script would."""

    def __init__(self, box: Sandbox) -> None:
        self.http = httpx.Client(
            base_url=box.url, headers={"Authorization": f"Bearer {box.tokens.token_for('admin')}"}, timeout=120
        )
        self.resends = collections.Counter()
        self.retried_operations = 0
        self.lock = threading.Lock()

    def send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        key = {"Idempotency-Key": str(uuid.uuid4())} if method != "GET" else {}
        for _ in range(200):
            response = self.http.request(method, path, headers=key, **kwargs)
            if response.status_code not in (409, 429, 503):
                return response
            with self.lock:
                self.resends[response.status_code] += 1
            time.sleep(0.2)
        return response

    def wait(self, operation_id: str, timeout: float = 600) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            view = self.send("GET", f"/api/operations/{operation_id}").json()
            if view.get("status") in TERMINAL:
                return dict(view)
            time.sleep(0.2)
        raise TimeoutError(operation_id)

    def run(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """One operation to its end, retried (at most three times) while it ends FAILED."""
        answer = self.send(method, path, **kwargs)
        if answer.status_code == 200:  # NOOP: already so
            return {"status": "SUCCEEDED", "kind": "noop", "attempt": 0}
        if answer.status_code >= 400:
            raise RuntimeError(f"{method} {path}: {answer.status_code} {answer.text[:300]}")
        operation_id = answer.json()["operation"]["id"]
        view = self.wait(operation_id)
        for _ in range(3):
            if view["status"] != "FAILED":
                break
            with self.lock:
                self.retried_operations += 1
            self.send("POST", f"/api/operations/{operation_id}/retry").raise_for_status()
            view = self.wait(operation_id)
        return view


def lifecycle(client: Client, name: str) -> list[dict[str, Any]]:
    base = f"/api/clusters/{name}"
    return [
        client.run("POST", "/api/clusters", json={"name": name, "availabilityZones": ZONES}),
        client.run("POST", f"{base}/dependencies", json={}),
        client.run("POST", f"{base}/storage", json={"kind": "s3", "storageName": "data"}),
        client.run("POST", f"{base}/hyperpod", json={"availabilityZone": "us-east-1a", "instanceGroups": [GROUP]}),
        client.run("POST", f"{base}/software-update", json={}),
        client.run("DELETE", base, params={"confirm": name}),
    ]


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
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=9)
    parser.add_argument("--throttle", type=float, default=0.2)
    parser.add_argument("--capacity-failures", type=int, default=1, help="HyperPod creates failing on capacity")
    parser.add_argument("--time-scale", type=float, default=0.005)
    args = parser.parse_args()
    box = Sandbox(time_scale=args.time_scale, port=free_port()).start()
    names = [f"soak-{i:02d}" for i in range(args.clusters)]
    try:
        client = Client(box)
        box.faults.throttle(args.throttle, seed=7)
        box.faults.fail_next_eks_create()
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
        ends = collections.Counter(view["status"] for views in results.values() for view in views)
        print(f"{sum(ends.values())} operations across {len(names)} clusters in {took:.0f} s: {dict(ends)}")
        print(f"client resends {dict(client.resends)}; operations retried after FAILED: {client.retried_operations}")
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
    finally:
        box.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
