"""SageMaker managed MLflow: tracking servers and their presigned UI URLs."""

from __future__ import annotations

import time
from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code
from launchpod.domain.errors import RetryableError

# A role created seconds ago may not be assumable by SageMaker yet (IAM propagates in seconds): retry
# within the API's time budget.
_PROPAGATION_WAITS = (0.5, 1.0, 2.0, 4.0)


class Mlflow:
    def __init__(self) -> None:
        self.sm = client("sagemaker")

    def describe(self, name: str) -> dict[str, Any] | None:
        with aws_call("sagemaker:DescribeMlflowTrackingServer"):
            try:
                return dict(self.sm.describe_mlflow_tracking_server(TrackingServerName=name))
            except ClientError as exc:
                if error_code(exc) == "ResourceNotFound":
                    return None
                raise

    def create(self, params: dict[str, Any]) -> str:
        for wait in (*_PROPAGATION_WAITS, None):
            try:
                with aws_call("sagemaker:CreateMlflowTrackingServer"):
                    return str(self.sm.create_mlflow_tracking_server(**params)["TrackingServerArn"])
            except RetryableError:
                if wait is None:
                    raise
                time.sleep(wait)
        raise AssertionError("unreachable")

    def presigned_url(self, name: str, expires: int = 300) -> str:
        with aws_call("sagemaker:CreatePresignedMlflowTrackingServerUrl"):
            return str(
                self.sm.create_presigned_mlflow_tracking_server_url(TrackingServerName=name, ExpiresInSeconds=expires)[
                    "AuthorizedUrl"
                ]
            )
