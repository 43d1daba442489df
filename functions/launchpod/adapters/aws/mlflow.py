"""SageMaker managed MLflow: tracking servers and their presigned UI URLs."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code


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
        """A role created seconds ago may not be assumable by SageMaker yet: that refusal is a
        RetryableError (aws_call), retried by the workflow's Retry block."""
        with aws_call("sagemaker:CreateMlflowTrackingServer"):
            return str(self.sm.create_mlflow_tracking_server(**params)["TrackingServerArn"])

    def delete(self, name: str) -> None:
        """DeleteMlflowTrackingServer; a server already gone is no error (a retried phase)."""
        with aws_call("sagemaker:DeleteMlflowTrackingServer"):
            try:
                self.sm.delete_mlflow_tracking_server(TrackingServerName=name)
            except ClientError as exc:
                if error_code(exc) != "ResourceNotFound":
                    raise

    def presigned_url(self, name: str, expires: int = 300) -> str:
        with aws_call("sagemaker:CreatePresignedMlflowTrackingServerUrl"):
            return str(
                self.sm.create_presigned_mlflow_tracking_server_url(TrackingServerName=name, ExpiresInSeconds=expires)[
                    "AuthorizedUrl"
                ]
            )
