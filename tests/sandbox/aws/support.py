"""Small helpers shared by the sandbox.aws tests."""

from __future__ import annotations

import asyncio
import io
import json
import time
import zipfile
from collections.abc import Awaitable, Callable
from typing import Any

ROLE_ARN = "arn:aws:iam::123456789012:role/sandbox-test"
# A HyperPod cluster's VpcConfig (SageMaker's spelling); its EKS cluster is made in the same subnet and group.
VPC = {"SecurityGroupIds": ["sg-0123456789abcdef0"], "Subnets": ["subnet-0123456789abcdef0"]}


def wait_until(
    predicate: Callable[[], Any],
    timeout: float = 60.0,
    interval: float | None = None,
    reason: str | Callable[[], str] = "condition not met",
) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` real seconds, saying
    ``reason`` (a callable is asked at the failure, so it can tell the state last seen). The suite's one wait:
    every test that waits for the sandbox goes through it. Without an ``interval`` the polls start 20 ms apart
    and back off to a quarter of a second: most predicates are REST or Kubernetes reads that cost the sandbox
    10 to 30 ms of CPU each, and fifty a second took the CPU the sandbox needed to reach the state waited for."""
    deadline = time.monotonic() + timeout
    pause = interval if interval is not None else 0.02
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(pause)
        if interval is None:
            pause = min(pause * 1.5, 0.25)
    raise AssertionError(f"{reason() if callable(reason) else reason} within {timeout}s")


async def wait_until_async(
    predicate: Callable[[], Awaitable[Any]],
    timeout: float = 60.0,
    reason: str | Callable[[], str] = "condition not met",
) -> Any:
    """``wait_until`` for a predicate that must be awaited (an MCP session's tool call), with the same back-off."""
    deadline = time.monotonic() + timeout
    pause = 0.02
    while time.monotonic() < deadline:
        value = await predicate()
        if value:
            return value
        await asyncio.sleep(pause)
        pause = min(pause * 1.5, 0.25)
    raise AssertionError(f"{reason() if callable(reason) else reason} within {timeout}s")


def hyperpod_ready_eks(eks: Any, name: str) -> str:
    """The ARN of an ACTIVE EKS cluster in ``VPC`` that HyperPod can orchestrate with: API_AND_CONFIG_MAP
    authentication, one of the two modes HyperPod supports
    (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-prerequisites.html)."""
    arn = eks.create_cluster(
        name=name,
        roleArn=ROLE_ARN,
        resourcesVpcConfig={"subnetIds": VPC["Subnets"], "securityGroupIds": VPC["SecurityGroupIds"]},
        accessConfig={"authenticationMode": "API_AND_CONFIG_MAP"},
    )["cluster"]["arn"]
    wait_until(lambda: eks.describe_cluster(name=name)["cluster"]["status"] == "ACTIVE", reason="EKS not ACTIVE")
    return str(arn)


def id_table(ddb: Any, name: str) -> None:
    """An on-demand DynamoDB table named ``name`` whose key is the string attribute ``id``."""
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


def finished_execution(sfn: Any, execution_arn: str, timeout: float = 60.0) -> dict[str, Any]:
    """Wait for a Step Functions execution to leave RUNNING and return its description."""

    def done() -> dict[str, Any] | None:
        description = sfn.describe_execution(executionArn=execution_arn)
        return description if description["status"] != "RUNNING" else None

    return wait_until(done, timeout=timeout)


def history_types(sfn: Any, execution_arn: str) -> list[str]:
    events = sfn.get_execution_history(executionArn=execution_arn, maxResults=1000)["events"]
    return [event["type"] for event in events]


def output_of(description: dict[str, Any]) -> Any:
    return json.loads(description.get("output") or "null")


def placeholder_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("placeholder.py", "# the sandbox imports the Handler module in-process\n")
    return buffer.getvalue()
