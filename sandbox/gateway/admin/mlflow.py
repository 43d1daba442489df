"""Sandbox-only view of what jobs logged to a managed MLflow tracking server, at
/api/sandbox/mlflow/runs?trackingServer=<name> (admin token): the runs the emulated training pods recorded
(sandbox.aws.mlflow), as the MLflow UI would list them.

And the tracking servers' MLflow REST API, as https://<region>.experiments.sagemaker.aws serves it to the
SageMaker MLflow plugin (aws/sagemaker-mlflow: the server named by the x-mlflow-sm-tracking-server-arn
header, each request SigV4-signed for the service sagemaker-mlflow), at /sagemaker-mlflow/api/2.0/mlflow/
(Launchpod's LAUNCHPOD_MLFLOW_ENDPOINT_URL points there, as the plugin's SAGEMAKER_MLFLOW_CUSTOM_ENDPOINT
would): experiments/get-by-name and runs/search, with MLflow's answers and its RESOURCE_DOES_NOT_EXIST.
The refusals of an unsigned request or an unknown server are AWS's in kind; their wording is ours."""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from sandbox.aws import mlflow


def mlflow_route(admin_or_error: Callable[[Request], JSONResponse | None]) -> Route:
    async def runs(request: Request) -> JSONResponse:
        denied = admin_or_error(request)
        if denied:
            return denied
        name = request.query_params.get("trackingServer", "")
        return JSONResponse({"trackingServer": name, "runs": await run_in_threadpool(mlflow.describe_runs, name)})

    return Route("/api/sandbox/mlflow/runs", runs, methods=["GET"])


PREFIX = "/sagemaker-mlflow/api/2.0/mlflow"
_SCOPE = "/sagemaker-mlflow/aws4_request"  # the end of a SigV4 credential scope for this service


def _mlflow_error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error_code": code, "message": message}, status_code=status)


def _server_or_error(request: Request) -> tuple[str, JSONResponse | None]:
    if _SCOPE not in request.headers.get("authorization", ""):
        return "", _mlflow_error(403, "PERMISSION_DENIED", "The request is not signed with SigV4 for sagemaker-mlflow.")
    arn = request.headers.get("x-mlflow-sm-tracking-server-arn", "")
    if mlflow.server_by_arn(arn) is None:
        return arn, _mlflow_error(404, "RESOURCE_DOES_NOT_EXIST", f"Tracking server {arn or '(none)'} does not exist.")
    return arn, None


def mlflow_api_routes() -> list[Route]:
    async def get_by_name(request: Request) -> JSONResponse:
        arn, refused = _server_or_error(request)
        if refused:
            return refused
        name = request.query_params.get("experiment_name", "")
        found = await run_in_threadpool(mlflow.experiment_by_name, arn, name)
        if found is None:
            return _mlflow_error(404, "RESOURCE_DOES_NOT_EXIST", f"Could not find experiment with name '{name}'")
        return JSONResponse({"experiment": found})

    async def search(request: Request) -> JSONResponse:
        arn, refused = _server_or_error(request)
        if refused:
            return refused
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("experiment_ids"), list):
            return _mlflow_error(400, "INVALID_PARAMETER_VALUE", "experiment_ids must be a list of experiment ids.")
        limit = body.get("max_results", 1000)
        runs = await run_in_threadpool(
            mlflow.search_runs, arn, [str(i) for i in body["experiment_ids"]], int(limit) if limit else 1000
        )
        return JSONResponse({"runs": runs} if runs else {})

    async def history(request: Request) -> JSONResponse:
        """GetMetricHistory (GET metrics/get-history?run_id=&metric_key=): {"metrics": [...]}, MLflow REST API
        (https://mlflow.org/docs/latest/api_reference/rest-api.html#get-history)."""
        arn, refused = _server_or_error(request)
        if refused:
            return refused
        run, key = request.query_params.get("run_id", ""), request.query_params.get("metric_key", "")
        if not run or not key:
            return _mlflow_error(400, "INVALID_PARAMETER_VALUE", "run_id and metric_key are required.")
        found = await run_in_threadpool(mlflow.metric_history, arn, run, key)
        if found is None:
            return _mlflow_error(404, "RESOURCE_DOES_NOT_EXIST", f"Run '{run}' not found.")
        return JSONResponse({"metrics": found} if found else {})

    return [
        Route(f"{PREFIX}/experiments/get-by-name", get_by_name, methods=["GET"]),
        Route(f"{PREFIX}/runs/search", search, methods=["POST"]),
        Route(f"{PREFIX}/metrics/get-history", history, methods=["GET"]),
    ]
