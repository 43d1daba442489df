"""Helpers shared by the HyperPod emulation's tests: instance group specs, clusters created and waited for,
and the clock speeds these tests switch between (their fixtures, ``hyperpod_installed``, ``sm`` and
``eks_arn``, are in conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from sandbox.aws import clock
from tests.sandbox.aws.support import ROLE_ARN, VPC, wait_until

SCALE = 0.001  # 900 simulated seconds last 0.9 s
# The shared test machine is often loaded: states a test must *see* get a generous window (OBSERVE), and
# waits for a transition to finish run the clock fast (FAST). The HyperPod clock integrates over scale
# changes, so switching never moves anything backwards.
OBSERVE = 0.01  # 600 simulated seconds last 6 s
FAST = 0.00002  # 900 simulated seconds last 18 ms
LIFECYCLE = {"SourceS3Uri": "s3://sagemaker-launchpod-lifecycle/hyperpod/", "OnCreate": "on_create.sh"}
# HyperPod keeps cluster events only for clusters with continuous provisioning: tests that read them ask for it.
CONTINUOUS = {"NodeProvisioningMode": "Continuous"}


def instance_group(name: str = "workers", instance_type: str = "ml.p5.48xlarge", count: int = 2, **extra: Any) -> dict:
    return {
        "InstanceGroupName": name,
        "InstanceType": instance_type,
        "InstanceCount": count,
        "ExecutionRole": ROLE_ARN,
        "LifeCycleConfig": LIFECYCLE,
        **extra,
    }


def create_hyperpod(sm: Any, eks_arn: str, *groups: dict, name: str = "hp", **extra: Any) -> str:
    return sm.create_cluster(
        ClusterName=name,
        InstanceGroups=list(groups) or [instance_group()],
        VpcConfig=VPC,
        Orchestrator={"Eks": {"ClusterArn": eks_arn}},
        **extra,
    )["ClusterArn"]


def cluster_nodes(sm: Any, name: str = "hp") -> list[dict[str, Any]]:
    return sm.list_cluster_nodes(ClusterName=name)["ClusterNodeSummaries"]


def in_service(sm: Any, name: str = "hp", timeout: float = 60.0) -> dict[str, Any]:
    return wait_until(
        lambda: (d := sm.describe_cluster(ClusterName=name))["ClusterStatus"] == "InService" and d, timeout=timeout
    )


def error_of(exc_info: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = exc_info.value.response["Error"]
    return error["Code"], error["Message"]


def observe() -> None:
    """Slow the clock so an intermediate state lasts long enough to be asserted."""
    clock.set_time_scale(OBSERVE)


def fast_forward() -> None:
    """Speed the clock up so pending transitions finish within milliseconds."""
    clock.set_time_scale(FAST)


def ready_cluster(sm: Any, eks_arn: str, *groups: dict, **extra: Any) -> dict[str, Any]:
    """An InService cluster, created fast; the clock is left at OBSERVE for what the test does next."""
    fast_forward()
    create_hyperpod(sm, eks_arn, *groups, **extra)
    described = in_service(sm)
    observe()
    return described
