"""A cluster in a second Region, end to end: created in us-west-2 (the sandbox runs in us-east-1), listed with
its Region, reached over its own EKS endpoint, and deleted with nothing of it left in either Region."""

from __future__ import annotations

import boto3
import pytest
from launchpod.adapters.aws.propagation import retry_fresh_ids

pytestmark = pytest.mark.e2e
NAME = "e2e-west"
REGION = "us-west-2"


def _aws(sandbox, service: str, region: str):
    made = boto3.client(
        service,
        endpoint_url=sandbox.aws_url,
        region_name=region,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    if service == "ec2":
        retry_fresh_ids(made)
    return made


def _tagged_vpcs(sandbox, region: str) -> list[dict]:
    filters = [{"Name": "tag:launchpod:cluster", "Values": [NAME]}]
    return _aws(sandbox, "ec2", region).describe_vpcs(Filters=filters)["Vpcs"]


def test_a_cluster_in_a_second_region_is_created_there_and_deleted_cleanly(sandbox):
    with sandbox.client() as c:
        zones = c.get("/api/catalog/availability-zones", params={"region": REGION}).json()
        search = {"instanceType": "ml.p5.48xlarge", "instanceCount": 1, "regions": ["us-east-1", REGION]}
        offerings = c.get("/api/training-plans/offerings", params=search).json()
        made = c.post(
            "/api/clusters", json={"name": NAME, "region": REGION, "availabilityZones": ["us-west-2a", "us-west-2b"]}
        )
    assert zones["region"] == REGION and {z["name"][:-1] for z in zones["items"]} == {REGION}
    # capacity searched in both Regions at once: each offering in a zone of the Region it names
    assert {(o["region"], o["availabilityZone"][:-1]) for o in offerings["items"]} == {
        ("us-east-1", "us-east-1"),
        (REGION, REGION),
    }, offerings
    assert made.status_code == 202, made.text
    done = sandbox.wait_operation(made.json()["operation"]["id"])
    assert done["status"] == "SUCCEEDED", (done.get("message"), done.get("phases"))
    # Launchpod reached the cluster's API server with an EKS token presigned for the cluster's Region
    assert next(p for p in done["phases"] if p["name"] == "VerifyAccess")["status"] == "SUCCEEDED"

    west, east = _aws(sandbox, "eks", REGION), _aws(sandbox, "eks", "us-east-1")
    cluster = west.describe_cluster(name=NAME)["cluster"]
    assert cluster["arn"].startswith(f"arn:aws:eks:{REGION}:") and NAME not in east.list_clusters()["clusters"]
    [vpc] = _tagged_vpcs(sandbox, REGION)
    assert _tagged_vpcs(sandbox, "us-east-1") == []
    subnets = _aws(sandbox, "ec2", REGION).describe_subnets(SubnetIds=cluster["resourcesVpcConfig"]["subnetIds"])
    assert {s["AvailabilityZone"] for s in subnets["Subnets"]} == {"us-west-2a", "us-west-2b"}
    with sandbox.client("viewer") as c:
        view = c.get(f"/api/clusters/{NAME}").json()
        listed = {x["name"]: x for x in c.get("/api/clusters").json()["items"]}
    assert view["region"] == REGION and view["eks"]["status"] == "ACTIVE" and view["eks"]["vpcId"] == vpc["VpcId"]
    assert listed[NAME]["region"] == REGION and listed[NAME]["eks"]["status"] == "ACTIVE"

    with sandbox.client() as c:
        moved = c.post("/api/clusters", json={"name": NAME, "availabilityZones": ["us-east-1a", "us-east-1b"]})
        assert moved.status_code == 409 and f"lives in {REGION}" in moved.json()["message"], moved.text
        gone = c.delete(f"/api/clusters/{NAME}", params={"confirm": NAME})
    assert gone.status_code == 202, gone.text
    deleted = sandbox.wait_operation(gone.json()["operation"]["id"], timeout=120)
    assert deleted["status"] == "SUCCEEDED", deleted
    for region in (REGION, "us-east-1"):
        assert NAME not in _aws(sandbox, "eks", region).list_clusters()["clusters"]
        assert _tagged_vpcs(sandbox, region) == []
    assert not [r for r in sandbox.role_names() if r.startswith(f"launchpod-{NAME}-")]
    with sandbox.client("viewer") as c:
        assert c.get(f"/api/clusters/{NAME}").status_code == 404
