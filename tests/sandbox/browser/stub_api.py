"""A stand-in for the sandbox gateway, for developing and testing the web UI alone.

It serves web/dist at / and mimics the REST routes, the WebSocket and the fault control of the real
sandbox, validating requests with the real pydantic contracts so 422 answers carry the same field paths.
Workflows are simulated: phases advance on a timer. Run it by hand with
``python tests/sandbox/browser/stub_api.py --port 3098`` (tokens are printed), or let the browser tests
start it when the real sandbox is not available.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import uvicorn
from launchpod.contracts.catalog import AvailabilityZoneListView, InstanceTypeListView
from launchpod.contracts.clusters import ClusterListView, ClusterView, CreateClusterRequest, ProvisionClusterRequest
from launchpod.contracts.errors import ErrorView
from launchpod.contracts.operations import (
    CancelOperationRequest,
    OperationAcceptedView,
    OperationListView,
    OperationView,
)
from launchpod.domain import storage
from launchpod.domain.clusters import provision
from pydantic import ValidationError
from pydantic.json_schema import models_json_schema
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

DIST = Path(__file__).resolve().parents[3] / "web" / "dist"
REGION = "us-east-1"
ZONES = [("us-east-1a", "use1-az6"), ("us-east-1b", "use1-az1"), ("us-east-1c", "use1-az2"), ("us-east-1d", "use1-az4")]
INSTANCE_TYPES = {
    "ml.p5.48xlarge": ["us-east-1a", "us-east-1b"],
    "ml.p4d.24xlarge": ["us-east-1a", "us-east-1c"],
    "ml.g5.8xlarge": ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"],
    "ml.trn1.32xlarge": ["us-east-1d"],
}
PHASES = [
    ("CreateNetwork", "Create the network"),
    ("CreateIamRoles", "Create IAM roles"),
    ("CreateEksCluster", "Create the EKS cluster"),
    ("WaitEksActive", "Wait for EKS to be ACTIVE"),
    ("ConfigureAccess", "OIDC provider and access entry"),
    ("InstallCoreAddons", "Install core add-ons"),
]
ROLES = {"viewer": 0, "operator": 1, "admin": 2}
DEPENDENCIES = [
    ("cert-manager", "addon", True, "v1.18.2-eksbuild.1", "Certificates for the operators' webhooks"),
    ("aws-mountpoint-s3-csi-driver", "addon", True, "v2.1.0-eksbuild.1", "Mounts the shared S3 bucket into pods"),
    ("aws-fsx-csi-driver", "addon", False, "v1.6.0-eksbuild.1", "Mounts FSx for Lustre file systems"),
    ("health-monitoring-agent", "manifest", True, "1.0.819.0_1.0.267.0", "HyperPod's node health agent"),
]
RECONCILE_PHASES = [("Addons", "EKS add-ons"), ("Manifests", "Kubernetes manifests")]
# provision-cluster shows the real workflow's phases (control plane, dependencies, HyperPod, storage)
PROVISION_PHASES = list(provision.PHASES)
STORAGE_PHASES = list(storage.PHASES)
# the real phase names of the control plane, next to the stub's own
CREATE_EKS, WAIT_ACTIVE, CORE_ADDONS = (
    ("CreateEksCluster", "CreateCluster"),
    ("WaitEksActive", "WaitActive"),
    (
        "InstallCoreAddons",
        "CoreAddons",
    ),
)


def now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def error(status: int, code: str, message: str, details: list[dict[str, Any]] | None = None) -> JSONResponse:
    body = ErrorView(code=code, message=message, details=details or [], requestId=secrets.token_hex(8))
    return JSONResponse(body.model_dump(mode="json"), status_code=status)


def openapi_document() -> dict[str, Any]:
    models = [
        CreateClusterRequest,
        ProvisionClusterRequest,
        CancelOperationRequest,
        ClusterView,
        ClusterListView,
        OperationView,
        OperationAcceptedView,
        OperationListView,
        AvailabilityZoneListView,
        InstanceTypeListView,
        ErrorView,
    ]
    _, schemas = models_json_schema(
        [(model, "validation") for model in models], ref_template="#/components/schemas/{model}"
    )
    ref = {"$ref": "#/components/schemas/CreateClusterRequest"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Launchpod (UI stub)", "version": "0.0.0"},
        "paths": {
            "/api/clusters": {"post": {"requestBody": {"content": {"application/json": {"schema": ref}}}}},
            "/api/clusters/provision": {
                "post": {
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/ProvisionClusterRequest"}}
                        }
                    }
                }
            },
        },
        "components": {"schemas": schemas["$defs"]},
    }


def validated(model: type[Any], raw: Any) -> Any:
    """The body as `model`, or the 422 the real API answers, with the same field paths."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        details = [
            {"field": ".".join(["body", *map(str, e["loc"])]), "rule": e["type"], "message": e["msg"]}
            for e in exc.errors()
        ]
        return error(422, "VALIDATION_FAILED", f"The request does not match {model.__name__}.", details)


def accepted(operation: dict[str, Any]) -> JSONResponse:
    return JSONResponse(
        {
            "status": "ACCEPTED",
            "operation": operation,
            "statusUrl": operation["statusUrl"],
            "statusTool": "get_operation",
        },
        202,
    )


class StubBackend:
    """The state of the stub: clusters, operations, faults and WebSocket subscribers."""

    def __init__(self, step_seconds: float = 0.8) -> None:
        self.step_seconds = step_seconds
        self.tokens = {role: f"lp-{role}-stub{secrets.token_hex(6)}" for role in ROLES}
        self.clusters: dict[str, dict[str, Any]] = {}
        self.operations: dict[str, dict[str, Any]] = {}
        self.fail_next_eks_create: str | None = None
        self.subscribers: dict[str, set[WebSocket]] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    # ---- auth --------------------------------------------------------------------------------------
    def role_of(self, token: str | None) -> str | None:
        for role, known in self.tokens.items():
            if token and secrets.compare_digest(known, token):
                return role
        return None

    def authorize(self, request: Request, needed: str) -> str | JSONResponse:
        header = request.headers.get("authorization", "")
        role = self.role_of(header.removeprefix("Bearer ").strip() or None)
        if role is None:
            return error(401, "UNAUTHORIZED", "Sign in: send a valid bearer token.")
        if ROLES[role] < ROLES[needed]:
            return error(403, "FORBIDDEN", f"This needs the {needed} role; you are {role}.")
        return role

    # ---- workflow simulation -------------------------------------------------------------------------
    async def publish(self, operation: dict[str, Any]) -> None:
        topic = f"operation:{operation['id']}"
        message = {"topic": topic, "type": "operation", "data": operation}
        for socket in list(self.subscribers.get(topic, ())):
            try:
                await socket.send_json(message)
            except Exception:  # a closed socket: forget it
                self.subscribers[topic].discard(socket)

    def start(self, operation: dict[str, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self.run(operation))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def touch(self, operation: dict[str, Any]) -> None:
        operation["updatedAt"] = now()
        await self.publish(operation)

    async def run(self, operation: dict[str, Any]) -> None:
        cluster = self.clusters[operation["target"]]
        operation["status"] = "RUNNING"
        await self.touch(operation)
        for phase in operation["phases"]:
            if phase["status"] in ("SUCCEEDED", "SKIPPED"):
                continue
            if operation["status"] == "CANCELLED":
                return
            phase.update(status="RUNNING", startedAt=now(), endedAt=None, error=None, message=None)
            phase["attempts"] += 1
            if phase["name"] in WAIT_ACTIVE:
                phase["message"] = "EKS reports CREATING"
            await self.touch(operation)
            await asyncio.sleep(self.step_seconds)
            if operation["status"] == "CANCELLED":
                return
            if phase["name"] in CREATE_EKS and self.fail_next_eks_create is not None:
                message = self.fail_next_eks_create or (
                    "Cannot create cluster because us-east-1e does not have sufficient capacity; "
                    "retry in us-east-1a, us-east-1b or us-east-1c."
                )
                self.fail_next_eks_create = None
                phase.update(
                    status="FAILED", endedAt=now(), error="UnsupportedAvailabilityZoneException", message=message
                )
                operation.update(status="FAILED", error="UnsupportedAvailabilityZoneException", message=message)
                cluster["activeOperationId"] = None
                cluster["eks"]["status"] = "FAILED"
                await self.touch(operation)
                return
            if phase["name"] in CREATE_EKS:
                cluster["eks"].update(
                    status="CREATING", arn=f"arn:aws:eks:{REGION}:123456789012:cluster/{cluster['name']}"
                )
            if phase["name"] in WAIT_ACTIVE:
                cluster["eks"].update(
                    status="ACTIVE",
                    version=operation["request"]["kubernetesVersion"],
                    endpoint=f"https://{secrets.token_hex(16).upper()}.gr7.{REGION}.eks.amazonaws.com",
                )
                phase["message"] = "EKS reports ACTIVE"
            if phase["name"] in CORE_ADDONS:
                cluster["eks"]["addons"] = {
                    name: "ACTIVE" for name in ("vpc-cni", "coredns", "kube-proxy", "eks-pod-identity-agent")
                }
            if phase["name"] == "WaitInService":
                cluster["hyperpod"].update(
                    status="InService", nodeRecovery=operation["request"]["hyperpod"].get("nodeRecovery", "Automatic")
                )
            phase.update(status="SUCCEEDED", endedAt=now())
            await self.touch(operation)
        done = "is provisioned" if operation["kind"] == "provision-cluster" else "has its EKS control plane ACTIVE"
        operation.update(status="SUCCEEDED", message=f"Cluster {cluster['name']} {done}.")
        cluster["activeOperationId"] = None
        await self.touch(operation)

    async def run_reconcile(self, operation: dict[str, Any]) -> None:
        cluster = self.clusters[operation["target"]]
        operation["status"] = "RUNNING"
        for phase in operation["phases"]:
            phase.update(status="RUNNING", startedAt=now(), attempts=phase["attempts"] + 1)
            await self.touch(operation)
            await asyncio.sleep(self.step_seconds)
            kind = "addon" if phase["name"] == "Addons" else "manifest"
            for name, dep_kind, required, pinned, _ in DEPENDENCIES:
                if dep_kind == kind and (required or operation["request"].get("includeOptional")):
                    cluster["dependencies"][name] = pinned
            phase.update(status="SUCCEEDED", endedAt=now(), message="Installed at the pinned versions")
            await self.touch(operation)
        operation.update(status="SUCCEEDED")
        cluster["activeOperationId"] = None
        await self.touch(operation)

    def new_operation(
        self, kind: str, target: str, request: dict[str, Any], phases: list[tuple[str, str]], role: str
    ) -> dict[str, Any]:
        op_id = "op-" + secrets.token_hex(8)
        operation = {
            "id": op_id,
            "kind": kind,
            "target": target,
            "status": "PENDING",
            "phases": [
                {
                    "name": n,
                    "title": t,
                    "status": "PENDING",
                    "startedAt": None,
                    "endedAt": None,
                    "attempts": 0,
                    "message": None,
                    "error": None,
                }
                for n, t in phases
            ],
            "request": request,
            "createdAt": now(),
            "updatedAt": now(),
            "createdBy": role,
            "attempt": 1,
            "error": None,
            "message": None,
            "statusUrl": f"/api/operations/{op_id}",
            "statusTool": "get_operation",
        }
        self.operations[op_id] = operation
        return operation

    def new_cluster(self, name: str, op_id: str) -> dict[str, Any]:
        self.clusters[name] = {
            "name": name,
            "region": REGION,
            "source": "created",
            "eks": {
                "status": "PENDING",
                "arn": None,
                "version": None,
                "endpoint": None,
                "vpcId": "vpc-0a1b2c3d4e5f60718",
                "subnetIds": [],
                "authenticationMode": "API_AND_CONFIG_MAP",
                "addons": {},
            },
            "hyperpod": {"status": "NOT_CREATED", "arn": None, "nodeRecovery": None, "failureMessage": None},
            "activeOperationId": op_id,
            "createdAt": now(),
            "dependencies": {},
        }
        return self.clusters[name]

    def busy(self, name: str, wanted: dict[str, Any]) -> JSONResponse | None:
        """The same request again gets its operation back; a different one on a busy cluster gets 409."""
        held = (self.clusters.get(name) or {}).get("activeOperationId")
        if not held:
            return None
        if self.operations[held]["request"] == wanted:
            return accepted(self.operations[held])
        return error(409, "CONFLICT", f"Cluster {name} is busy with operation {held}; wait for it or cancel it.")

    # ---- routes ------------------------------------------------------------------------------------
    def app(self) -> Starlette:
        async def health(_: Request) -> Response:
            return JSONResponse({"status": "ok", "version": "stub"})

        async def openapi(_: Request) -> Response:
            return JSONResponse(openapi_document())

        async def zones(request: Request) -> Response:
            denied = self.authorize(request, "viewer")
            if isinstance(denied, JSONResponse):
                return denied
            items = [{"name": n, "zoneId": z, "state": "available"} for n, z in ZONES]
            return JSONResponse({"region": REGION, "items": items})

        async def instance_types(request: Request) -> Response:
            denied = self.authorize(request, "viewer")
            if isinstance(denied, JSONResponse):
                return denied
            zone = request.query_params.get("zone")
            items = [{"instanceType": t, "zones": z} for t, z in INSTANCE_TYPES.items() if not zone or zone in z]
            return JSONResponse({"region": REGION, "items": items})

        async def clusters(request: Request) -> Response:
            if request.method == "GET":
                denied = self.authorize(request, "viewer")
                if isinstance(denied, JSONResponse):
                    return denied
                return JSONResponse(
                    {"items": [{k: v for k, v in c.items() if k != "dependencies"} for c in self.clusters.values()]}
                )
            role = self.authorize(request, "admin")
            if isinstance(role, JSONResponse):
                return role
            body = validated(CreateClusterRequest, await request.json())
            if isinstance(body, JSONResponse):
                return body
            wanted = body.model_dump(mode="json")
            existing = self.clusters.get(body.name)
            if existing:
                held = self.busy(body.name, wanted)
                if held:
                    return held
                if existing["eks"]["status"] == "ACTIVE":
                    return JSONResponse({"status": "NOOP", "message": "No changes"})
            operation = self.new_operation("create-control-plane", body.name, wanted, PHASES, role)
            self.new_cluster(body.name, operation["id"])
            self.start(operation)
            return accepted(operation)

        async def provision_cluster(request: Request) -> Response:
            role = self.authorize(request, "admin")
            if isinstance(role, JSONResponse):
                return role
            body = validated(ProvisionClusterRequest, await request.json())
            if isinstance(body, JSONResponse):
                return body
            zone = body.hyperpod.availabilityZone
            for index, group in enumerate(body.hyperpod.instanceGroups):
                offered = INSTANCE_TYPES.get(group.instanceType, [])
                if zone not in offered:
                    where = ", ".join(offered) or "no zone of this region"
                    message = f"Instance type {group.instanceType} is not offered in {zone}; offered in {where}."
                    field = f"body.hyperpod.instanceGroups.{index}.instanceType"
                    return error(
                        422,
                        "VALIDATION_FAILED",
                        message,
                        [{"field": field, "rule": "offered_in_zone", "message": message}],
                    )
            wanted = body.model_dump(mode="json", exclude_none=True)
            existing = self.clusters.get(body.name)
            if existing:
                held = self.busy(body.name, wanted)
                if held:
                    return held
                if existing["hyperpod"]["status"] == "InService":
                    return JSONResponse(
                        {"status": "NOOP", "message": f"Cluster {body.name} is already provisioned; no changes."}
                    )
            phases = PROVISION_PHASES + (STORAGE_PHASES if body.storage else [])
            operation = self.new_operation("provision-cluster", body.name, wanted, phases, role)
            if existing:
                existing["activeOperationId"] = operation["id"]
            else:
                self.new_cluster(body.name, operation["id"])
            self.start(operation)
            return accepted(operation)

        async def cluster(request: Request) -> Response:
            denied = self.authorize(request, "viewer")
            if isinstance(denied, JSONResponse):
                return denied
            found = self.clusters.get(request.path_params["name"])
            if not found:
                return error(404, "NOT_FOUND", f"No cluster named {request.path_params['name']}.")
            return JSONResponse({k: v for k, v in found.items() if k != "dependencies"})

        async def dependencies(request: Request) -> Response:
            role = self.authorize(request, "viewer" if request.method == "GET" else "admin")
            if isinstance(role, JSONResponse):
                return role
            found = self.clusters.get(request.path_params["name"])
            if not found:
                return error(404, "NOT_FOUND", f"No cluster named {request.path_params['name']}.")
            if request.method == "GET":
                items = [
                    {
                        "name": n,
                        "kind": k,
                        "required": r,
                        "pinned": p,
                        "installed": found["dependencies"].get(n),
                        "state": ("ACTIVE" if k == "addon" else "Applied")
                        if n in found["dependencies"]
                        else "NOT_INSTALLED",
                        "drift": False,
                        "purpose": purpose,
                    }
                    for n, k, r, p, purpose in DEPENDENCIES
                ]
                return JSONResponse({"cluster": found["name"], "manifestVersion": "2026.11.1", "items": items})
            body = await request.json()
            wanted = [n for n, _, r, _, _ in DEPENDENCIES if r or body.get("includeOptional")]
            if all(n in found["dependencies"] for n in wanted):
                return JSONResponse({"status": "NOOP", "message": "No changes"})
            operation = self.new_operation("reconcile-dependencies", found["name"], body, RECONCILE_PHASES, role)
            found["activeOperationId"] = operation["id"]
            task = asyncio.get_running_loop().create_task(self.run_reconcile(operation))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
            return accepted(operation)

        async def operations(request: Request) -> Response:
            denied = self.authorize(request, "viewer")
            if isinstance(denied, JSONResponse):
                return denied
            q = request.query_params
            items = [
                o
                for o in self.operations.values()
                if (not q.get("cluster") or o["target"] == q["cluster"])
                and (not q.get("status") or o["status"] == q["status"])
            ]
            items.sort(key=lambda o: o["createdAt"], reverse=True)
            return JSONResponse({"items": items[: int(q.get("limit", 50))], "nextToken": None})

        def find(request: Request) -> dict[str, Any] | JSONResponse:
            found = self.operations.get(request.path_params["op"])
            return found or error(404, "NOT_FOUND", f"No operation {request.path_params['op']}.")

        async def operation(request: Request) -> Response:
            denied = self.authorize(request, "viewer")
            if isinstance(denied, JSONResponse):
                return denied
            found = find(request)
            return found if isinstance(found, JSONResponse) else JSONResponse(found)

        async def retry(request: Request) -> Response:
            denied = self.authorize(request, "operator")
            if isinstance(denied, JSONResponse):
                return denied
            op = find(request)
            if isinstance(op, JSONResponse):
                return op
            if op["status"] not in ("FAILED", "CANCELLED"):
                return error(
                    409,
                    "CONFLICT",
                    f"Operation {op['id']} is {op['status']}; only FAILED or CANCELLED operations are retried.",
                )
            for phase in op["phases"]:
                if phase["status"] in ("FAILED", "CANCELLED"):
                    phase["status"] = "PENDING"
            op.update(status="PENDING", attempt=op["attempt"] + 1, error=None, message=None, updatedAt=now())
            self.clusters[op["target"]]["activeOperationId"] = op["id"]
            self.start(op)
            return JSONResponse(
                {"status": "ACCEPTED", "operation": op, "statusUrl": op["statusUrl"], "statusTool": "get_operation"},
                202,
            )

        async def cancel(request: Request) -> Response:
            denied = self.authorize(request, "operator")
            if isinstance(denied, JSONResponse):
                return denied
            op = find(request)
            if isinstance(op, JSONResponse):
                return op
            if op["status"] in ("SUCCEEDED", "FAILED", "CANCELLED"):
                return error(409, "CONFLICT", f"Operation {op['id']} already ended ({op['status']}).")
            for phase in op["phases"]:
                if phase["status"] in ("RUNNING", "PENDING"):
                    phase.update(status="CANCELLED", endedAt=now() if phase["status"] == "RUNNING" else None)
            op.update(status="CANCELLED", message="Cancelled by the user.", updatedAt=now())
            self.clusters[op["target"]]["activeOperationId"] = None
            await self.publish(op)
            return JSONResponse(op)

        async def faults(request: Request) -> Response:
            denied = self.authorize(request, "admin")
            if isinstance(denied, JSONResponse):
                return denied
            if request.method == "POST":
                body = await request.json()
                if body.get("clear"):
                    self.fail_next_eks_create = None
                if body.get("failNextEksCreate"):
                    self.fail_next_eks_create = body.get("message") or ""
            return JSONResponse({"eksCreateFailureArmed": self.fail_next_eks_create is not None})

        async def ws(socket: WebSocket) -> None:
            if self.role_of(socket.query_params.get("token")) is None:
                await socket.close(code=4401)
                return
            await socket.accept()
            topics: set[str] = set()
            try:
                while True:
                    message = await socket.receive_json()
                    for topic in message.get("topics", []):
                        if message.get("action") == "unsubscribe":
                            self.subscribers.get(topic, set()).discard(socket)
                            topics.discard(topic)
                        else:
                            self.subscribers.setdefault(topic, set()).add(socket)
                            topics.add(topic)
                    await socket.send_json(
                        {"topic": ",".join(message.get("topics", [])), "type": "subscribed", "data": {}}
                    )
            except (WebSocketDisconnect, RuntimeError, ValueError):
                pass
            finally:
                for topic in topics:
                    self.subscribers.get(topic, set()).discard(socket)

        async def spa(request: Request) -> Response:
            path = request.path_params.get("path", "")
            if path.startswith("api/"):
                return error(404, "NOT_FOUND", f"No route {request.url.path}.")
            candidate = (DIST / path).resolve()
            if path and candidate.is_file() and DIST in candidate.parents:
                return FileResponse(candidate, headers={"Cache-Control": "no-store"} if path == "config.json" else None)
            return FileResponse(DIST / "index.html")

        routes = [
            Route("/api/health", health),
            Route("/api/openapi.json", openapi),
            Route("/api/catalog/availability-zones", zones),
            Route("/api/catalog/instance-types", instance_types),
            Route("/api/clusters", clusters, methods=["GET", "POST"]),
            Route("/api/clusters/provision", provision_cluster, methods=["POST"]),
            Route("/api/clusters/{name}", cluster),
            Route("/api/clusters/{name}/dependencies", dependencies, methods=["GET", "POST"]),
            Route("/api/operations", operations),
            Route("/api/operations/{op}", operation),
            Route("/api/operations/{op}/retry", retry, methods=["POST"]),
            Route("/api/operations/{op}/cancel", cancel, methods=["POST"]),
            Route("/api/sandbox/faults", faults, methods=["GET", "POST"]),
            WebSocketRoute("/ws", ws),
        ]
        if (DIST / "assets").is_dir():
            routes.append(Mount("/assets", StaticFiles(directory=DIST / "assets")))
        routes.append(Route("/{path:path}", spa))
        return Starlette(routes=routes)


class StubServer:
    """The stub on a background thread, with the attributes of the integrator's `sandbox` fixture."""

    def __init__(self, port: int = 0, step_seconds: float = 0.8) -> None:
        self.backend = StubBackend(step_seconds)
        self.tokens = self.backend.tokens
        config = uvicorn.Config(
            self.backend.app(), host="127.0.0.1", port=port, log_level="warning", ws="websockets-sansio"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = ""

    def __enter__(self) -> StubServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the stub API did not start")
            time.sleep(0.05)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        with contextlib.suppress(RuntimeError):
            self.thread.join(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=3098)
    parser.add_argument("--step-seconds", type=float, default=2.0)
    args = parser.parse_args()
    with StubServer(args.port, args.step_seconds) as stub:
        print(f"Launchpod UI stub at {stub.url}")
        for role, token in stub.tokens.items():
            print(f"  {role:8} {token}")
        with contextlib.suppress(KeyboardInterrupt):
            stub.thread.join()


if __name__ == "__main__":
    main()
