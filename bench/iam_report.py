"""The sandbox's IAM decision log after every flow Launchpod has: totals, denies, the gate's cost, and
per function the granted actions no call used (candidates to remove, or paths these flows do not take).

Flows: provision-cluster with S3 storage, reconcile-dependencies again (NOOP or re-run), update-software,
import of a cluster Launchpod did not create, delete of both.

    .venv/bin/python bench/iam_report.py [--time-scale 0.01]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import admin_client, arguments, running
from sandbox.runtime import Sandbox
from tests.sandbox.clusters import P5_GROUP, cluster_body

BODY = {
    **cluster_body("iam-report", P5_GROUP),
    "storage": {"kind": "s3", "storageName": "shared", "prefix": "datasets"},
}


def _wait(client: httpx.Client, response: httpx.Response) -> str:
    if response.status_code != 202:
        return f"{response.status_code} {response.json().get('status') or response.json().get('code')}"
    op = response.json()["operation"]["id"]
    while True:
        view = client.get(f"/api/operations/{op}").json()
        if view["status"] in ("SUCCEEDED", "FAILED", "CANCELLED"):
            return str(view["status"])
        time.sleep(0.5)


def _their_cluster(box: Sandbox) -> None:
    import boto3

    ec2, eks = boto3.client("ec2", region_name="us-east-1"), boto3.client("eks", region_name="us-east-1")
    vpc = ec2.create_vpc(CidrBlock="10.77.0.0/16")["Vpc"]["VpcId"]
    subnets = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.77.{i * 16}.0/20", AvailabilityZone=z)["Subnet"]["SubnetId"]
        for i, z in enumerate(["us-east-1a", "us-east-1b"])
    ]
    eks.create_cluster(
        name="theirs",
        roleArn="arn:aws:iam::123456789012:role/their-eks-role",
        resourcesVpcConfig={"subnetIds": subnets},
        accessConfig={"authenticationMode": "API_AND_CONFIG_MAP"},
    )
    while eks.describe_cluster(name="theirs")["cluster"]["status"] != "ACTIVE":
        time.sleep(0.2)


def main() -> int:
    args = arguments(__doc__, time_scale=0.01).parse_args()
    with running(args.time_scale) as box:
        name = BODY["name"]
        with admin_client(box) as c:
            print("provision          ", _wait(c, c.post("/api/clusters/provision", json=BODY)))
            print("dependencies again ", _wait(c, c.post(f"/api/clusters/{name}/dependencies", json={})))
            print("update-software    ", _wait(c, c.post(f"/api/clusters/{name}/software-update", json={})))
            _their_cluster(box)
            print("import             ", _wait(c, c.post("/api/clusters/import", json={"name": "theirs"})))
            for cluster in (name, "theirs"):
                print(
                    f"delete {cluster:12}", _wait(c, c.delete(f"/api/clusters/{cluster}", params={"confirm": cluster}))
                )
        report = box.iam.report()
    totals, cost = report["totals"], report["cost"]
    print(
        f"\n{totals['calls']} calls authorized: {totals['allowed']} allowed, {totals['denied']} denied; "
        f"{cost['microsecondsPerCall']:.0f} us per call"
    )
    for denial in report["denies"]:
        print(f"DENIED {denial['function']} {denial['operation']}: {denial['action']} on {denial['resource']}")
    print("\ngranted but not used by these flows (besides the Lambda runtime's logs and X-Ray):")
    for function, actions in sorted(report["unusedGrants"].items()):
        print(f"  {function:36} {', '.join(actions)}")
    return 1 if totals["denied"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
