"""Amazon Managed Service for Prometheus' query API for the sandbox's workspaces (sandbox.aws.prometheus.api),
at /aps-workspaces/workspaces/<id>/api/v1/query and /query_range: what a SigV4 client (service ``aps``)
reaches at https://aps-workspaces.<region>.amazonaws.com/workspaces/<id>/api/v1/... on AWS."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sandbox.aws.prometheus import api

PREFIX = "/aps-workspaces/workspaces/{workspace}/api/v1"
_SCOPE = "/aps/aws4_request"  # the end of a SigV4 credential scope for this service


def amp_api_routes() -> list[Route]:
    def handler(run: Callable[[str, dict[str, str]], Any]) -> Callable[[Request], Awaitable[Response]]:
        async def serve(request: Request) -> Response:
            if _SCOPE not in request.headers.get("authorization", ""):
                return JSONResponse({"message": "Missing Authentication Token"}, status_code=403)
            workspace = request.path_params["workspace"]
            params = dict(request.query_params)
            if request.method == "POST":
                params.update(dict(parse_qsl((await request.body()).decode())))

            def answer() -> Response:
                if not api.workspace_exists(workspace):
                    return JSONResponse({"message": f"Workspace {workspace} not found."}, status_code=404)
                try:
                    found = run(workspace, params)
                except api.ApiError as exc:
                    return JSONResponse(exc.body(), status_code=exc.status)
                if isinstance(found, str):  # already JSON text
                    return Response(found, media_type="application/json")
                return JSONResponse(found)

            # one hop to a worker thread, not two: on a loaded machine each hop waits for a core
            return await run_in_threadpool(answer)

        return serve

    return [
        Route(f"{PREFIX}/query_range", handler(api.query_range), methods=["GET", "POST"]),
        Route(f"{PREFIX}/query", handler(api.query), methods=["GET", "POST"]),
    ]
