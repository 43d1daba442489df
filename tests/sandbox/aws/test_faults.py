"""Fault injection: one-shot EKS capacity errors, throttling per service, call counters."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from sandbox.aws import FAULTS
from tests.sandbox.aws.support import ROLE_ARN

# botocore reads Config(retries={"max_attempts": n}) as n retries after the first attempt;
# total_max_attempts=1 is what really switches retries off.
NO_RETRIES = Config(retries={"total_max_attempts": 1})
VPC = {"subnetIds": ["subnet-a", "subnet-b"]}


def _create_cluster(eks: Any, name: str) -> dict[str, Any]:
    return eks.create_cluster(name=name, roleArn=ROLE_ARN, resourcesVpcConfig=VPC)


def test_fail_next_eks_create_fails_exactly_the_next_create_cluster(client):
    eks = client("eks", config=NO_RETRIES)
    FAULTS.fail_next_eks_create()

    with pytest.raises(ClientError) as exc_info:
        _create_cluster(eks, "hp-eks")
    _create_cluster(eks, "hp-eks")

    error = exc_info.value.response["Error"]
    assert exc_info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert error["Code"] == "UnsupportedAvailabilityZoneException"
    assert error["Message"].startswith(
        "Cannot create cluster 'hp-eks' because us-east-1e, the targeted availability zone, does not "
        "currently have sufficient capacity to support the cluster. Retry and choose from these "
        "availability zones: "
    )
    assert "us-east-1a" in error["Message"]
    assert FAULTS.calls == 1
    assert FAULTS.count("eks", "CreateCluster") == 1
    assert eks.list_clusters()["clusters"] == ["hp-eks"]


def test_fail_next_eks_create_uses_the_given_message(client):
    eks = client("eks", config=NO_RETRIES)
    FAULTS.fail_next_eks_create("no capacity in use1-az3")

    with pytest.raises(ClientError) as exc_info:
        _create_cluster(eks, "c1")

    assert exc_info.value.response["Error"]["Message"] == "no capacity in use1-az3"
    assert FAULTS.describe()["eksCreateFailureArmed"] is False
    assert FAULTS.calls == 0


def test_armed_failure_shows_in_describe_and_clear_disarms_it(client):
    FAULTS.fail_next_eks_create()
    assert FAULTS.describe()["eksCreateFailureArmed"] is True

    FAULTS.clear()
    _create_cluster(client("eks", config=NO_RETRIES), "c1")

    assert FAULTS.calls == 1


@pytest.mark.parametrize(
    ("service", "call", "code"),
    [
        ("eks", lambda c: c.list_clusters(), "ThrottlingException"),
        ("sagemaker", lambda c: c.list_clusters(), "ThrottlingException"),
        ("ec2", lambda c: c.describe_vpcs(), "RequestLimitExceeded"),
        ("iam", lambda c: c.list_roles(), "Throttling"),
        ("sts", lambda c: c.get_caller_identity(), "Throttling"),
        ("s3", lambda c: c.list_buckets(), "SlowDown"),
    ],
)
def test_full_throttling_surfaces_each_services_own_throttling_error(client, service, call, code):
    FAULTS.throttle(1.0)  # the default services: ec2, eks, iam, sagemaker, sts, s3

    with pytest.raises(ClientError) as exc_info:
        call(client(service, config=NO_RETRIES))

    assert exc_info.value.response["Error"]["Code"] == code
    assert FAULTS.describe()["throttledCalls"] == 1


def test_partial_throttling_is_absorbed_by_standard_retries(client):
    FAULTS.throttle(0.2, services=("eks",), seed=8)  # seed 8 throttles two of the first six calls
    eks = client("eks", config=Config(retries={"mode": "standard", "max_attempts": 5}))

    for i in range(6):
        _create_cluster(eks, f"c{i}")

    assert FAULTS.calls == 6
    assert len(eks.list_clusters()["clusters"]) == 6
    assert FAULTS.describe()["throttledCalls"] > 0


def test_only_the_chosen_services_are_throttled(client):
    FAULTS.throttle(1.0, services=("sagemaker",))

    assert client("eks", config=NO_RETRIES).list_clusters()["clusters"] == []
    assert FAULTS.count("eks", "ListClusters") == 1


@pytest.mark.parametrize("service", ["lambda", "states", "dynamodb", "apigateway"])
def test_sandbox_plumbing_can_never_be_throttled(service):
    with pytest.raises(ValueError, match="never throttled"):
        FAULTS.throttle(1.0, services=(service,))


def test_describe_is_json_and_counts_completed_calls_per_operation(client):
    eks = client("eks", config=NO_RETRIES)
    _create_cluster(eks, "c1")
    eks.describe_cluster(name="c1")
    eks.describe_cluster(name="c1")
    with pytest.raises(ClientError):
        eks.describe_cluster(name="missing")  # an AWS error, not a completed call

    described = json.loads(json.dumps(FAULTS.describe()))

    assert described["completedCalls"]["eks:DescribeCluster"] == 2
    assert FAULTS.count("eks", "DescribeCluster") == 2
    assert described["throttle"] == {"fraction": 0.0, "services": []}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_server_mode_serves_the_extensions_and_the_faults(client):
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=_free_port(), verbose=False)
    server.start()
    try:
        url = f"http://127.0.0.1:{server._port}"
        eks = client("eks", endpoint_url=url, config=NO_RETRIES)
        principal = "arn:aws:iam::123456789012:role/with/path"
        eks.create_cluster(
            name="srv", roleArn=ROLE_ARN, resourcesVpcConfig=VPC, accessConfig={"authenticationMode": "API"}
        )
        eks.create_access_entry(clusterName="srv", principalArn=principal)  # '/' in the path parameter
        assert eks.describe_access_entry(clusterName="srv", principalArn=principal)["accessEntry"]["principalArn"] == (
            principal
        )

        FAULTS.fail_next_eks_create()
        with pytest.raises(ClientError) as capacity:
            eks.create_cluster(name="srv2", roleArn=ROLE_ARN, resourcesVpcConfig=VPC)
        FAULTS.throttle(1.0, services=("eks",))
        with pytest.raises(ClientError) as throttled:
            eks.list_clusters()

        assert capacity.value.response["Error"]["Code"] == "UnsupportedAvailabilityZoneException"
        assert throttled.value.response["Error"]["Code"] == "ThrottlingException"
        assert FAULTS.calls == 1
    finally:
        server.stop()


def test_plumbing_calls_are_counted_though_never_faulted(client):
    client("dynamodb").list_tables()
    client("stepfunctions").list_state_machines()

    assert FAULTS.count("dynamodb", "ListTables") == 1
    assert FAULTS.count("stepfunctions", "ListStateMachines") == 1


def test_the_capacity_error_names_the_zone_of_the_requests_subnet_and_offers_the_others(client):
    ec2, eks = client("ec2"), client("eks", config=NO_RETRIES)
    vpc = ec2.create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    subnets = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.9.{i}.0/24", AvailabilityZone=zone)["Subnet"]["SubnetId"]
        for i, zone in enumerate(("us-east-1b", "us-east-1c"))
    ]
    FAULTS.fail_next_eks_create()

    with pytest.raises(ClientError) as exc_info:
        eks.create_cluster(name="in-b", roleArn=ROLE_ARN, resourcesVpcConfig={"subnetIds": subnets})

    answer = exc_info.value.response
    assert "because us-east-1b, the targeted availability zone" in answer["Error"]["Message"]
    assert "us-east-1b" not in answer["validZones"] and "us-east-1e" not in answer["validZones"]
    assert "us-east-1a" in answer["validZones"] and "us-east-1c" in answer["validZones"]
