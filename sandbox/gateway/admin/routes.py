"""Sandbox-only controls, served by the gateway itself (never by the API Lambda, which must not
know it runs in a sandbox): fault injection at /api/sandbox/faults, the IAM decision log at
/api/sandbox/iam, and an AWS call made as a pod of a given service account would make it
(/api/sandbox/pods/aws-call, sandbox.aws.iam.pods), admin token required."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from sandbox.auth import bearer_token
from sandbox.aws.iam import gate
from sandbox.controllers import devices
from sandbox.gateway.admin import faults as fault_fields
from sandbox.gateway.admin.amp import amp_api_routes
from sandbox.gateway.admin.capacity import capacity_route
from sandbox.gateway.admin.metrics import metrics_route
from sandbox.gateway.admin.mlflow import mlflow_api_routes, mlflow_route
from sandbox.gateway.admin.pods import pod_call
from sandbox.gateway.admin.replies import error, invalid, json_body
from sandbox.gateway.admin.sns import sns_route
from sandbox.gateway.admin.training import pod_log_route

_POD_CALL_FIELDS = {"cluster", "namespace", "serviceAccount", "service", "operation", "params"}


class Controls:
    """The ``/api/sandbox/*`` endpoints of one running sandbox (``sandbox.runtime.Sandbox``)."""

    def __init__(self, sandbox: Any) -> None:
        self.sandbox = sandbox

    def admin_or_error(self, request: Request) -> JSONResponse | None:
        claims = self.sandbox.tokens.claims_for(bearer_token(request.headers.get("authorization")))
        if claims is None:
            return error(401, "UNAUTHORIZED", "Send the admin token printed by `make sandbox`.")
        if claims.get("cognito:groups") != "admin":
            return error(403, "FORBIDDEN", "Fault injection needs the admin token.")
        return None

    async def faults(self, request: Request) -> JSONResponse:
        denied = self.admin_or_error(request)
        if denied:
            return denied
        injected: dict[str, Any] | None = None
        if request.method == "POST":
            try:
                body = await request.json()
            except ValueError:
                return invalid('Send JSON such as {"failNextEksCreate": true}.')
            if not isinstance(body, dict) or not set(body) <= fault_fields.KNOWN:
                return invalid(fault_fields.HELP)
            injection = fault_fields.Injection(self.sandbox, body).apply()
            if injection.error:
                return invalid(injection.error)
            injected = injection.injected
        return JSONResponse(fault_fields.describe(self.sandbox, injected))

    async def iam(self, request: Request) -> JSONResponse:
        denied = self.admin_or_error(request)
        return denied or JSONResponse(self.sandbox.iam.report())

    async def lambdas(self, request: Request) -> JSONResponse:
        """The functions' execution environments: warm and busy ones, cold starts (with their init
        time) and recycled ones, and where each function's log is written."""
        denied = self.admin_or_error(request)
        if denied:
            return denied
        lambdas = self.sandbox.lambdas
        if lambdas is None:
            return JSONResponse({"executionEnvironments": False})
        return JSONResponse({"executionEnvironments": True, "logDir": str(self.sandbox.log_dir), **lambdas.report()})

    async def calls(self, request: Request) -> JSONResponse:
        """The call log: every successful mutating AWS call a Launchpod function made, counted per
        action and target (``?action=eks:CreateCluster``), to show no mutation ran twice."""
        denied = self.admin_or_error(request)
        if denied:
            return denied
        return JSONResponse({"mutations": gate.mutations(request.query_params.get("action"))})

    async def pod_call(self, request: Request) -> JSONResponse:
        denied = self.admin_or_error(request)
        if denied:
            return denied
        body = await json_body(request)
        if (
            not isinstance(body, dict)
            or not set(body) <= _POD_CALL_FIELDS
            or not _POD_CALL_FIELDS - {"params"} <= set(body)
        ):
            return invalid(
                'Send {"cluster", "namespace", "serviceAccount", "service": "s3", "operation": "PutObject", '
                '"params": {...}}: the call a pod running as that service account makes.',
            )
        return JSONResponse(await run_in_threadpool(pod_call, self.sandbox, body))

    async def kube_audit(self, request: Request) -> JSONResponse:
        denied = self.admin_or_error(request)
        if denied:
            return denied
        cluster = request.query_params.get("cluster", "")
        try:
            served = self.sandbox.fleet.call(cluster, lambda emulator: list(emulator.audit))
        except KeyError:
            return error(404, "NOT_FOUND", f"No Kubernetes API server runs for cluster {cluster!r}.")
        requests = [{"seq": q, "method": m, "path": p} for q, m, p in served]
        return JSONResponse({"cluster": cluster, "requests": requests})

    async def pod_resources(self, request: Request) -> JSONResponse:
        """What the node's kubelet PodResources API (List) answers: the GPUs or GPU partitions each container
        holds (sandbox.controllers.devices)."""
        denied = self.admin_or_error(request)
        if denied:
            return denied
        cluster, node = request.query_params.get("cluster", ""), request.query_params.get("node", "")
        if not cluster or not node:
            return invalid("Send ?cluster=<name>&node=<node name>: the node whose kubelet answers.")
        if cluster not in self.sandbox.fleet.names():
            return error(404, "NOT_FOUND", f"No Kubernetes API server runs for cluster {cluster!r}.")
        return JSONResponse({"node": node, "podResources": devices.pod_resources(cluster, node)})

    def routes(self) -> list[BaseRoute]:
        guard = self.admin_or_error
        return [
            Route("/api/sandbox/pods/aws-call", self.pod_call, methods=["POST"]),
            Route("/api/sandbox/kube-audit", self.kube_audit, methods=["GET"]),
            Route("/api/sandbox/faults", self.faults, methods=["GET", "POST"]),
            Route("/api/sandbox/iam", self.iam, methods=["GET"]),
            Route("/api/sandbox/lambda", self.lambdas, methods=["GET"]),
            Route("/api/sandbox/calls", self.calls, methods=["GET"]),
            Route("/api/sandbox/pod-resources", self.pod_resources, methods=["GET"]),
            capacity_route(guard),
            metrics_route(guard),  # the Prometheus values KEDA reads
            sns_route(guard),  # what SNS was asked to deliver, and e-mail confirmations
            mlflow_route(guard),  # the runs jobs logged to MLflow
            pod_log_route(guard, self.sandbox),  # what a sidecar container prints
            *mlflow_api_routes(),  # the tracking servers' MLflow REST API
            *amp_api_routes(),  # AMP workspaces' Prometheus query API
        ]


def control_routes(sandbox: Any) -> list[BaseRoute]:
    """The sandbox's own routes, for ``build_gateway(admin_routes=...)``."""
    return Controls(sandbox).routes()
