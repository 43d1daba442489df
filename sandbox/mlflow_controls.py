"""Sandbox-only view of what jobs logged to a managed MLflow tracking server, at
/api/sandbox/mlflow/runs?trackingServer=<name> (admin token): the runs the emulated training pods recorded
(sandbox.aws.mlflow), as the MLflow UI would list them."""

from __future__ import annotations

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
