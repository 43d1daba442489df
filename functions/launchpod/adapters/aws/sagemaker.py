"""SageMaker HyperPod: reading clusters (creating them arrives with the cluster-lifecycle workflows)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code


class SageMaker:
    def __init__(self) -> None:
        self.sm = client("sagemaker")

    def hyperpod_cluster(self, name: str) -> dict[str, Any] | None:
        with aws_call("sagemaker:DescribeCluster"):
            try:
                return dict(self.sm.describe_cluster(ClusterName=name))
            except ClientError as exc:
                # SageMaker answers ValidationException for a cluster that does not exist.
                if error_code(exc) in ("ResourceNotFound", "ValidationException"):
                    return None
                raise
