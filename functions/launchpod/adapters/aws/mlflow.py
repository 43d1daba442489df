"""SageMaker managed MLflow: tracking servers, their presigned UI URLs, and the runs jobs log to them.

Runs are read through the tracking server's MLflow REST API as the SageMaker MLflow plugin
(aws/sagemaker-mlflow) calls it: https://<region>.experiments.sagemaker.aws/api/2.0/mlflow/..., the server
named by the x-mlflow-sm-tracking-server-arn header, each request SigV4-signed for the service
sagemaker-mlflow (IAM actions sagemaker-mlflow:GetExperimentByName and sagemaker-mlflow:SearchRuns,
"Actions, resources, and condition keys for Amazon SageMaker with MLflow")."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

from botocore.awsrequest import AWSRequest

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, ignoring, or_none
from launchpod.adapters.aws.signed_http import SignedHttp
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.domain.mlflow import MetricPoint, MlflowRun, TrackingServer
from launchpod.runtime.settings import settings

MLFLOW_SERVICE = "sagemaker-mlflow"
_ACTIONS = {"runs/search": "SearchRuns", "metrics/get-history": "GetMetricHistory"}  # the IAM action of each path


def tracking_server(described: dict[str, Any]) -> TrackingServer:
    """DescribeMlflowTrackingServer's answer as Launchpod reads it."""
    return TrackingServer(
        name=str(described["TrackingServerName"]),
        arn=str(described["TrackingServerArn"]),
        status=str(described["TrackingServerStatus"]),
        url=described.get("TrackingServerUrl"),
        size=described.get("TrackingServerSize"),
        artifact_store_uri=described.get("ArtifactStoreUri"),
        mlflow_version=described.get("MlflowVersion"),
    )


def mlflow_run(info: dict[str, Any]) -> MlflowRun:
    """A run's RunInfo (runs/search's ``runs[].info``) as Launchpod reads it."""
    return MlflowRun(
        run_id=str(info["run_id"]), experiment_id=str(info["experiment_id"]), run_name=info.get("run_name")
    )


def metric_point(metric: dict[str, Any]) -> MetricPoint:
    """One of metrics/get-history's ``metrics`` as Launchpod reads it (its step left out when 0)."""
    return MetricPoint(
        key=str(metric["key"]),
        value=float(metric["value"]),
        timestamp_ms=int(metric["timestamp"]),
        step=int(metric.get("step") or 0),
    )


class Mlflow:
    def __init__(self) -> None:
        self.sm = client("sagemaker")
        self._http = SignedHttp(MLFLOW_SERVICE, timeout=10)

    def describe(self, name: str) -> TrackingServer | None:
        with aws_call("sagemaker:DescribeMlflowTrackingServer"):
            found = or_none(
                lambda: dict(self.sm.describe_mlflow_tracking_server(TrackingServerName=name)), "ResourceNotFound"
            )
        return tracking_server(found) if found is not None else None

    def create(self, params: dict[str, Any]) -> str:
        """A role created seconds ago may not be assumable by SageMaker yet: that refusal is a
        RetryableError (aws_call), retried by the workflow's Retry block."""
        with aws_call("sagemaker:CreateMlflowTrackingServer"):
            return str(self.sm.create_mlflow_tracking_server(**params)["TrackingServerArn"])

    def delete(self, name: str) -> None:
        """DeleteMlflowTrackingServer; a server already gone is no error (a retried phase)."""
        with aws_call("sagemaker:DeleteMlflowTrackingServer"), ignoring("ResourceNotFound"):
            self.sm.delete_mlflow_tracking_server(TrackingServerName=name)

    def presigned_url(self, name: str, expires: int = 300) -> str:
        with aws_call("sagemaker:CreatePresignedMlflowTrackingServerUrl"):
            return str(
                self.sm.create_presigned_mlflow_tracking_server_url(TrackingServerName=name, ExpiresInSeconds=expires)[
                    "AuthorizedUrl"
                ]
            )

    def _rest(self, arn: str, method: str, path: str, query: dict[str, str] | None, body: Any) -> Any:
        """One MLflow REST call to the server ``arn``; None when MLflow answers RESOURCE_DOES_NOT_EXIST."""
        region = arn.split(":")[3]
        base = settings().mlflow_endpoint_url or f"https://{region}.experiments.sagemaker.aws"
        url = f"{base.rstrip('/')}/api/2.0/mlflow/{path}" + (f"?{urlencode(query, quote_via=quote)}" if query else "")
        headers = {"x-mlflow-sm-tracking-server-arn": arn, "Content-Type": "application/json"}
        request = AWSRequest(method, url, data=json.dumps(body).encode() if body is not None else None, headers=headers)
        action = f"{MLFLOW_SERVICE}:{_ACTIONS.get(path, 'GetExperimentByName')}"
        status, text = self._http.send(request, region, f"{action} on {arn}")
        try:
            found = json.loads(text) if text.startswith("{") else {}
        except ValueError:
            found = {}
        if status == 404 and found.get("error_code") == "RESOURCE_DOES_NOT_EXIST":
            return None
        if status in (401, 403):
            raise PermanentError(f"{action} on {arn} was denied: {found.get('message') or text}")
        if status >= 400:
            raise RetryableError(f"{action} on {arn}: {status} {found.get('message') or text}")
        return found

    def latest_run(self, arn: str, experiment: str) -> MlflowRun | None:
        """The newest run of ``experiment`` on the tracking server ``arn``; None when the experiment or a run
        does not exist yet."""
        found = self._rest(arn, "GET", "experiments/get-by-name", {"experiment_name": experiment}, None)
        if not found:
            return None
        experiment_id = str(found["experiment"]["experiment_id"])
        search = {"experiment_ids": [experiment_id], "max_results": 1, "order_by": ["attributes.start_time DESC"]}
        runs = (self._rest(arn, "POST", "runs/search", None, search) or {}).get("runs") or []
        return mlflow_run(runs[0]["info"]) if runs else None

    def metric_history(self, arn: str, run_id: str, key: str) -> list[MetricPoint]:
        """Every value logged for ``key`` in the run, in order (MLflow REST API GetMetricHistory,
        https://mlflow.org/docs/latest/api_reference/rest-api.html#get-history); [] when the run or the metric
        does not exist."""
        found = self._rest(arn, "GET", "metrics/get-history", {"run_id": run_id, "metric_key": key}, None)
        return [metric_point(m) for m in (found or {}).get("metrics") or []]
