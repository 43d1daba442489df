"""Sandbox-only controls, served by the gateway itself (never by the API Lambda, which must not
know it runs in a sandbox): fault injection at /api/sandbox/faults, the IAM decision log at
/api/sandbox/iam, and an AWS call made as a pod of a given service account would make it
(/api/sandbox/pods/aws-call, sandbox.aws.iam.pods), admin token required."""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from sandbox import training
from sandbox.auth import bearer_token
from sandbox.aws import sagemaker as hyperpod
from sandbox.aws.ec2 import propagation as ec2_propagation
from sandbox.aws.iam import gate, propagation
from sandbox.aws.sagemaker import node_faults
from sandbox.capacity_controls import capacity_route
from sandbox.metrics_controls import metrics_route
from sandbox.mlflow_controls import mlflow_api_routes, mlflow_route
from sandbox.sns_controls import sns_route
from sandbox.training_controls import pod_log_route, training_controls


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, "details": [], "requestId": None}, status_code=status)


def control_routes(sandbox: Any) -> list[Route]:
    def admin_or_error(request: Request) -> JSONResponse | None:
        claims = sandbox.tokens.claims_for(bearer_token(request.headers.get("authorization")))
        if claims is None:
            return _error(401, "UNAUTHORIZED", "Send the admin token printed by `make sandbox`.")
        if claims.get("cognito:groups") != "admin":
            return _error(403, "FORBIDDEN", "Fault injection needs the admin token.")
        return None

    async def faults(request: Request) -> JSONResponse:
        denied = admin_or_error(request)
        if denied:
            return denied
        injected: dict[str, Any] | None = None
        if request.method == "POST":
            try:
                body = await request.json()
            except ValueError:
                return _error(422, "VALIDATION_FAILED", 'Send JSON such as {"failNextEksCreate": true}.')
            known = {
                "failNextEksCreate",
                "failNextHyperPodCreate",
                "message",
                "throttle",
                "clear",
                "deny",
                "iamPropagationSeconds",
                "iamUnassumable",
                "ec2PropagationSeconds",
                "nodeFault",
                "hyperpodUnpatched",
                "jobFault",
                "jobLogIntervalSeconds",
                "jobLogLinesPerStep",
                "jobSteps",
            }
            if not isinstance(body, dict) or not set(body) <= known:
                return _error(
                    422,
                    "VALIDATION_FAILED",
                    "Known fields: failNextEksCreate (bool), failNextHyperPodCreate (capacity, lifecycle_script or "
                    "deep_health_check), message (str), throttle (0..1), clear (bool), "
                    'deny ([{"function": "<registry name>", "action": "<service:Action>"}]), '
                    "iamPropagationSeconds (simulated seconds a new role stays unassumable, default 10), "
                    'iamUnassumable ({"role": "<text in the role name>", "attempts": 0..20}: the next calls '
                    "handing a service such a role are refused as not yet propagated), "
                    "ec2PropagationSeconds (simulated seconds a new EC2 id stays NotFound, default 1), "
                    'nodeFault ({"cluster": "<name>", "nodeId": "i-...", "kind": "gpu|efa|unresponsive", '
                    '"fixedBy": "reboot|replace|nothing"}), '
                    "hyperpodUnpatched (a HyperPod cluster name: it predates BatchReplaceClusterNodes until patched), "
                    'jobFault ({"cluster": "<name>", "job": "<job>", "namespace": "default", '
                    '"kind": "processCrash|hang|nodeFailure", "pod": "<pod>", "atStep": 2}), '
                    "jobLogIntervalSeconds (simulated seconds between a training pod's steps, default 10), "
                    "jobLogLinesPerStep (log lines a pytorch pod writes per step, default 1), "
                    "jobSteps (training steps per job, default 40).",
                )
            if body.get("clear"):
                node_faults.clear()
                training.clear()
                sandbox.faults.clear()
                sandbox.hyperpod_faults.clear()
                sandbox.iam.clear_denies()
                propagation.set_propagation_seconds(None)
                propagation.set_unassumable("", 0)
                ec2_propagation.set_propagation_seconds(None)
            if "iamPropagationSeconds" in body:
                seconds = body["iamPropagationSeconds"]
                if not isinstance(seconds, int | float) or not 0 <= seconds <= 3600:
                    return _error(422, "VALIDATION_FAILED", "iamPropagationSeconds is 0..3600 simulated seconds.")
                propagation.set_propagation_seconds(float(seconds))
            if "iamUnassumable" in body:
                spec = body["iamUnassumable"]
                attempts = spec.get("attempts") if isinstance(spec, dict) else None
                if (
                    not isinstance(spec, dict)
                    or set(spec) != {"role", "attempts"}
                    or not isinstance(spec["role"], str)
                    or not spec["role"]
                    or isinstance(attempts, bool)
                    or not isinstance(attempts, int)
                    or not 0 <= attempts <= 20
                ):
                    return _error(
                        422,
                        "VALIDATION_FAILED",
                        'iamUnassumable is {"role": "<text in the role name>", "attempts": <whole number 0..20>}.',
                    )
                propagation.set_unassumable(spec["role"], attempts)
            if "ec2PropagationSeconds" in body:
                seconds = body["ec2PropagationSeconds"]
                if not isinstance(seconds, int | float) or not 0 <= seconds <= 3600:
                    return _error(422, "VALIDATION_FAILED", "ec2PropagationSeconds is 0..3600 simulated seconds.")
                ec2_propagation.set_propagation_seconds(float(seconds))
            denies = body.get("deny")
            if denies is not None:
                if not isinstance(denies, list) or not all(
                    isinstance(d, dict) and set(d) == {"function", "action"} for d in denies
                ):
                    return _error(
                        422,
                        "VALIDATION_FAILED",
                        'deny is a list of {"function": "<registry name>", "action": "<service:Action>"}.',
                    )
                for d in denies:
                    try:
                        sandbox.iam.deny(str(d["function"]), str(d["action"]))
                    except (KeyError, ValueError) as exc:
                        return _error(422, "VALIDATION_FAILED", str(exc).strip("'\""))
            kind = body.get("failNextHyperPodCreate")
            if kind is not None:
                if kind not in ("capacity", "lifecycle_script", "deep_health_check"):
                    return _error(
                        422,
                        "VALIDATION_FAILED",
                        "failNextHyperPodCreate is capacity, lifecycle_script or deep_health_check.",
                    )
                sandbox.hyperpod_faults.fail_next_create(kind, body.get("message"))
            fault = body.get("nodeFault")
            if fault is not None:
                if not isinstance(fault, dict) or not {"cluster", "nodeId", "kind"} <= set(fault) <= {
                    "cluster",
                    "nodeId",
                    "kind",
                    "fixedBy",
                }:
                    return _error(
                        422,
                        "VALIDATION_FAILED",
                        'nodeFault is {"cluster": "<name>", "nodeId": "i-...", "kind": "gpu|efa|unresponsive"} with an'
                        ' optional "fixedBy": "reboot|replace|nothing".',
                    )
                try:
                    injected = node_faults.inject(
                        str(fault["cluster"]), str(fault["nodeId"]), str(fault["kind"]), fault.get("fixedBy")
                    )
                except ValueError as exc:
                    return _error(422, "VALIDATION_FAILED", str(exc))
            unpatched = body.get("hyperpodUnpatched")
            if unpatched is not None:
                try:
                    hyperpod.mark_unpatched(str(unpatched))
                except ValueError as exc:
                    return _error(422, "VALIDATION_FAILED", str(exc))
            job_error = training_controls(body)
            if job_error:
                return _error(422, "VALIDATION_FAILED", job_error)
            if body.get("failNextEksCreate"):
                sandbox.faults.fail_next_eks_create(body.get("message"))
            if "throttle" in body:
                fraction = body["throttle"]
                if not isinstance(fraction, int | float) or not 0 <= fraction <= 1:
                    return _error(422, "VALIDATION_FAILED", "throttle is a fraction between 0 and 1.")
                sandbox.faults.throttle(float(fraction))
        return JSONResponse(
            {
                **sandbox.faults.describe(),
                "hyperpod": sandbox.hyperpod_faults.describe(),
                "nodeFaults": node_faults.describe(),
                "jobFaults": training.describe(),
                "removedGrants": sandbox.iam.report()["removedGrants"],
                "iamPropagationSeconds": propagation.propagation_seconds(),
                "iamUnassumable": propagation.unassumable(),
                "ec2PropagationSeconds": ec2_propagation.propagation_seconds(),
                **({"injectedNodeFault": injected} if injected else {}),
            }
        )

    async def iam(request: Request) -> JSONResponse:
        denied = admin_or_error(request)
        return denied or JSONResponse(sandbox.iam.report())

    async def lambdas(request: Request) -> JSONResponse:
        """The functions' execution environments: warm and busy ones, cold starts (with their init
        time) and recycled ones, and where each function's log is written."""
        denied = admin_or_error(request)
        if denied:
            return denied
        if sandbox.lambdas is None:
            return JSONResponse({"executionEnvironments": False})
        return JSONResponse({"executionEnvironments": True, "logDir": str(sandbox.log_dir), **sandbox.lambdas.report()})

    async def calls(request: Request) -> JSONResponse:
        """The call log: every successful mutating AWS call a Launchpod function made, counted per
        action and target (``?action=eks:CreateCluster``), to show no mutation ran twice."""
        denied = admin_or_error(request)
        if denied:
            return denied
        return JSONResponse({"mutations": gate.mutations(request.query_params.get("action"))})

    async def pod_call(request: Request) -> JSONResponse:
        denied = admin_or_error(request)
        if denied:
            return denied
        try:
            body = await request.json()
        except ValueError:
            body = None
        fields = {"cluster", "namespace", "serviceAccount", "service", "operation", "params"}
        if not isinstance(body, dict) or not set(body) <= fields or not fields - {"params"} <= set(body):
            return _error(
                422,
                "VALIDATION_FAILED",
                'Send {"cluster", "namespace", "serviceAccount", "service": "s3", "operation": "PutObject", '
                '"params": {...}}: the call a pod running as that service account makes.',
            )
        return JSONResponse(await run_in_threadpool(_pod_call, sandbox, body))

    async def kube_audit(request: Request) -> JSONResponse:
        denied = admin_or_error(request)
        if denied:
            return denied
        cluster = request.query_params.get("cluster", "")
        try:
            served = sandbox.fleet.call(cluster, lambda emulator: list(emulator.audit))
        except KeyError:
            return _error(404, "NOT_FOUND", f"No Kubernetes API server runs for cluster {cluster!r}.")
        requests = [{"seq": q, "method": m, "path": p} for q, m, p in served]
        return JSONResponse({"cluster": cluster, "requests": requests})

    return [
        Route("/api/sandbox/pods/aws-call", pod_call, methods=["POST"]),
        Route("/api/sandbox/kube-audit", kube_audit, methods=["GET"]),
        Route("/api/sandbox/faults", faults, methods=["GET", "POST"]),
        Route("/api/sandbox/iam", iam, methods=["GET"]),
        Route("/api/sandbox/lambda", lambdas, methods=["GET"]),
        Route("/api/sandbox/calls", calls, methods=["GET"]),
        capacity_route(admin_or_error),
        metrics_route(admin_or_error),  # the Prometheus values KEDA reads (issue 15)
        sns_route(admin_or_error),  # what SNS was asked to deliver, and e-mail confirmations (issue 34)
        mlflow_route(admin_or_error),  # the runs jobs logged to MLflow (issue 14)
        pod_log_route(admin_or_error, sandbox),  # what a sidecar container prints (issue 14)
        *mlflow_api_routes(),  # the tracking servers' MLflow REST API (issue 14)
    ]


def _pod_call(sandbox: Any, body: dict[str, Any]) -> dict[str, Any]:
    """Authorize the call as the pod's role, then let moto serve it (outside any Lambda's identity)."""
    import boto3
    from botocore.exceptions import ClientError, ParamValidationError
    from botocore.model import OperationNotFoundError

    from sandbox.aws.eks import find_cluster
    from sandbox.aws.iam import authz, pods

    cluster = find_cluster(str(body["cluster"]))
    if cluster is None:
        return {"allowed": False, "message": f"No EKS cluster {body['cluster']}."}
    namespace, name = str(body["namespace"]), str(body["serviceAccount"])
    try:
        account_object = sandbox.fleet.call(
            cluster.name, lambda emu: emu.get_object("v1/serviceaccounts", namespace, name)
        )
    except KeyError:
        account_object = None
    account, region = cluster.arn.split(":")[4], cluster.arn.split(":")[3]
    try:
        identity = pods.identity_of(cluster, account, account_object, namespace, name)
    except pods.NoCredentials as exc:
        return {"allowed": False, "message": str(exc)}
    params = dict(body.get("params") or {})
    service = str(body["service"])
    client = boto3.client(service, region_name=region)
    model = client.meta.service_model
    call = authz.Call(
        prefix=model.signing_name or model.endpoint_prefix,
        operation=str(body["operation"]),
        params=params,
        region=region,
        account=account,
    )
    refused = pods.authorize(identity, call)
    out: dict[str, Any] = {"principal": identity.principal, "via": identity.via, "roleArn": identity.role_arn}
    if refused:
        return out | {"allowed": False, "message": refused}
    try:
        model.operation_model(call.operation)
        result = getattr(client, _snake(call.operation))(**params)
    except (OperationNotFoundError, ParamValidationError, ClientError) as exc:
        return out | {"allowed": True, "error": str(exc)}
    result.pop("ResponseMetadata", None)
    if hasattr(result.get("Body"), "read"):
        result["Body"] = result["Body"].read().decode(errors="replace")
    return out | {"allowed": True, "result": json.loads(json.dumps(result, default=str))}


def _snake(operation: str) -> str:
    from botocore import xform_name

    return str(xform_name(operation))
