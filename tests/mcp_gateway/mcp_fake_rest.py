"""A small stand-in for the Launchpod REST API, routed from the catalog, for the gateway's own tests.

It speaks the real contracts: the error envelope, 401 without a token, 403 below the entry's role, 422
from the entry's input model with the field path, and a create that answers 202 with an operation that
goes RUNNING and then SUCCEEDED. Every answer is validated against the entry's response model, so the
fake cannot drift from the contracts it mimics. The real sandbox replaces it in tests/sandbox/.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from launchpod.contracts.catalog_ops import CATALOG, CatalogEntry
from launchpod.contracts.common import Role
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

TOKENS = {"admin-token": Role.ADMIN, "operator-token": Role.OPERATOR, "viewer-token": Role.VIEWER}
PHASES = [
    ("Network", "Create the network"),
    ("CreateCluster", "Create the EKS cluster"),
    ("WaitActive", "Wait ACTIVE"),
]


class Problem(Exception):
    def __init__(self, status: int, code: str, message: str, details: list[dict[str, Any]] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details or []


def _now() -> str:
    return datetime.now(UTC).isoformat()


class FakeLaunchpod:
    """State and handlers; ``operation_seconds`` is how long a create runs before it SUCCEEDS."""

    def __init__(self, operation_seconds: float = 0.6) -> None:
        self.operation_seconds = operation_seconds
        self.clusters: dict[str, dict[str, Any]] = {}
        self.operations: dict[str, dict[str, Any]] = {}
        self.started: dict[str, float] = {}
        self.calls: list[tuple[str, str, str | None]] = []  # (method, path, Authorization)
        self.ids = itertools.count(10_000_001)

    # -- the operation lifecycle -------------------------------------------------------------
    def _advance(self, op: dict[str, Any]) -> dict[str, Any]:
        if op["status"] in ("SUCCEEDED", "FAILED", "CANCELLED"):
            return op
        elapsed = time.monotonic() - self.started[op["id"]]
        share = self.operation_seconds / len(op["phases"])
        for i, phase in enumerate(op["phases"]):
            if elapsed >= share * (i + 1):
                phase.update(status="SUCCEEDED", endedAt=_now(), attempts=1)
            elif elapsed >= share * i:
                phase.update(status="RUNNING", startedAt=phase["startedAt"] or _now(), attempts=1)
        op["status"] = "SUCCEEDED" if all(p["status"] == "SUCCEEDED" for p in op["phases"]) else "RUNNING"
        op["updatedAt"] = _now()
        if op["status"] == "SUCCEEDED":
            self.clusters[op["target"]]["eks"]["status"] = "ACTIVE"
            self.clusters[op["target"]]["activeOperationId"] = None
        return op

    def _operation(self, op_id: str) -> dict[str, Any]:
        if op_id not in self.operations:
            raise Problem(404, "NOT_FOUND", f"Operation {op_id} does not exist; list_operations shows the known ones.")
        return self._advance(self.operations[op_id])

    # -- handlers, by catalog id ---------------------------------------------------------------
    async def health(self, _: dict[str, Any]) -> dict[str, Any]:
        return {"status": "ok", "version": "0.1.0"}

    async def list_availability_zones(self, _: dict[str, Any]) -> dict[str, Any]:
        zones = [("us-east-1a", "use1-az6"), ("us-east-1b", "use1-az1"), ("us-east-1c", "use1-az2")]
        return {
            "region": "us-east-1",
            "items": [{"name": n, "zoneId": z, "state": "available"} for n, z in zones],
        }

    async def list_instance_types(self, args: dict[str, Any]) -> dict[str, Any]:
        items = [
            {"instanceType": "ml.g5.8xlarge", "availabilityZones": ["us-east-1a", "us-east-1b", "us-east-1c"]},
            {"instanceType": "ml.p5.48xlarge", "availabilityZones": ["us-east-1a", "us-east-1b"]},
        ]
        if args.get("availabilityZone"):
            items = [i for i in items if args["availabilityZone"] in i["availabilityZones"]]
        return {"region": "us-east-1", "items": items}

    async def list_clusters(self, _: dict[str, Any]) -> dict[str, Any]:
        for op in self.operations.values():
            self._advance(op)
        return {"items": list(self.clusters.values())}

    async def get_cluster(self, args: dict[str, Any]) -> dict[str, Any]:
        await self.list_clusters({})
        if args["name"] not in self.clusters:
            raise Problem(404, "NOT_FOUND", f"Cluster {args['name']} does not exist; list_clusters shows yours.")
        return self.clusters[args["name"]]

    async def provision_cluster(self, args: dict[str, Any]) -> dict[str, Any]:
        return await self.create_cluster(args, kind="provision-cluster")

    async def create_cluster(self, args: dict[str, Any], kind: str = "create-control-plane") -> dict[str, Any]:
        name = args["cluster"]
        if name in self.clusters:
            raise Problem(409, "CONFLICT", f"Cluster {name} already exists; pick another name.")
        op_id = f"op-{next(self.ids)}"
        self.clusters[name] = {
            "name": name,
            "region": "us-east-1",
            "eks": {"status": "CREATING"},
            "hyperpod": {"status": "NOT_CREATED"},
            "activeOperationId": op_id,
        }
        op = {
            "id": op_id,
            "kind": kind,
            "target": name,
            "status": "PENDING",
            "phases": [{"name": n, "title": t, "status": "PENDING", "startedAt": None} for n, t in PHASES],
            "request": args,
            "createdAt": _now(),
            "updatedAt": _now(),
            "statusUrl": f"/api/operations/{op_id}",
        }
        self.operations[op_id] = op
        self.started[op_id] = time.monotonic()
        return {
            "status": "ACCEPTED",
            "operation": op,
            "statusUrl": op["statusUrl"],
            "statusTool": "get_operation",
        }

    async def list_operations(self, args: dict[str, Any]) -> dict[str, Any]:
        items = [self._advance(op) for op in self.operations.values()]
        items = [o for o in items if args.get("cluster") in (None, o["target"])]
        return {"items": list(reversed(items))[: args.get("limit", 50)]}

    async def get_operation(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._operation(args["operationId"])

    async def cancel_operation(self, args: dict[str, Any]) -> dict[str, Any]:
        op = self._operation(args["operationId"])
        if op["status"] in ("SUCCEEDED", "FAILED", "CANCELLED"):
            raise Problem(409, "INVALID_STATE", f"Operation {op['id']} is already {op['status']}.")
        op["status"] = "CANCELLED"
        return op


def _validation_problem(exc: ValidationError, entry: CatalogEntry) -> Problem:
    where = "body" if entry.method in ("POST", "PUT", "PATCH") else "query"
    details = []
    for err in exc.errors():
        loc = [str(p) for p in err["loc"]]
        prefix = "path" if loc and loc[0] in entry.path_params else where
        field = ".".join([prefix, *loc]) if loc else where
        details.append({"field": field, "rule": err["type"], "message": err["msg"]})
    first = details[0]
    return Problem(422, "VALIDATION_FAILED", f"{first['field']}: {first['message']}", details)


def _route(fake: FakeLaunchpod, entry: CatalogEntry) -> Route:
    handler: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = getattr(fake, entry.id, None)

    async def endpoint(request: Request) -> JSONResponse:
        auth = request.headers.get("authorization")
        fake.calls.append((request.method, request.url.path, auth))
        try:
            if entry.role is not None:
                scheme, _, token = (auth or "").partition(" ")
                role = TOKENS.get(token) if scheme.lower() == "bearer" else None
                if role is None:
                    raise Problem(401, "UNAUTHORIZED", "Sign in: send a valid bearer token.")
                if not role.allows(entry.role):
                    raise Problem(403, "FORBIDDEN", f"{entry.id} needs the {entry.role} role; you are {role}.")
            if entry.method in ("POST", "PUT", "PATCH"):
                raw: dict[str, Any] = await request.json() if await request.body() else {}
            else:
                raw = dict(request.query_params)
            raw.update(request.path_params)
            try:
                args = entry.input.model_validate(raw).model_dump(mode="json", exclude_none=True)
            except ValidationError as exc:
                raise _validation_problem(exc, entry) from exc
            if handler is None:
                raise Problem(501, "NOT_IMPLEMENTED", f"{entry.id} is not in the fake")
            body = await handler(args)
            body = entry.response.model_validate(body).model_dump(mode="json", exclude_none=True)
            return JSONResponse(body, 202 if entry.accepted else 200)
        except Problem as p:
            envelope = {"code": p.code, "message": p.message, "details": p.details, "requestId": "req-fake-1"}
            return JSONResponse(envelope, p.status)

    return Route(entry.path, endpoint, methods=[entry.method])


def routes(fake: FakeLaunchpod) -> list[Route]:
    return [_route(fake, entry) for entry in CATALOG]
