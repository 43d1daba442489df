"""The API's routes, registered at import from a table and each loaded on its first call.

A Lambda cold start runs the handler module's imports before the first request ("Lambda execution
environment lifecycle", Init phase: https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html),
and importing every router would import every route's contracts, use cases and adapters (most of the API's
cold start over a bare powertools resolver, bench/api_cold_start.py). Instead, the resolver gets every route
at import from ``route_table.json`` (path, method, operation id, OpenAPI words, role and dry-run rules: what
the catalog says of the route, and which router function serves it), with a stand-in handler. powertools
reads a route's handler only when it first validates a request for it or writes the OpenAPI document (its
``Route.dependant`` is built on first use); the stand-in then imports the route's router module, and with it
only that route's contracts and use cases, and fills in the route's OpenAPI responses. Callers see the same
resolver: the same validation, middlewares, answers and OpenAPI document.

``python -m launchpod.entrypoints.api.lazy_routes`` writes the table from the catalog and the routers;
tests/entrypoints/test_lazy_routes.py fails while it is out of date.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from launchpod.contracts.common import Role
from launchpod.domain.errors import InvalidInput
from launchpod.entrypoints.api.auth import require

TABLE = Path(__file__).with_name("route_table.json")
ROUTERS_PACKAGE = "launchpod.entrypoints.api.routers"
# The routers in the order the resolver matches their routes (the first match wins; static paths first).
ROUTERS = (
    "health",
    "catalog",
    "training_plans",
    "clusters",
    "hyperpod",
    "dependencies",
    "phases",
    "operations",
    "preferences",
    "storage",
    "instance_groups",
    "autoscaling",
    "features",
    "task_governance",
    "nodes",
    "incidents",
    "notifications",
    "diagnostics",
    "inference",
    "jobs",
    "models",
    "mlflow",
    "spaces",
    "metrics",
)


class RouteFacts(NamedTuple):
    """What registering a route needs, as the catalog entry and the router declare it."""

    id: str
    method: str
    path: str
    role: str | None  # None: no token needed (health only)
    mutates: bool
    own_plan: bool  # the route's own code answers dryRun
    accepted: bool  # answers 202 with an operation
    immediate: bool  # a write complete when the call returns
    summary: str
    description: str
    tags: tuple[str, ...]
    response: str  # "module:qualname" of the model the route answers with
    router: str  # the router module under launchpod.entrypoints.api.routers
    handler: str  # the function in it


@functools.cache
def routes() -> tuple[RouteFacts, ...]:
    rows = json.loads(TABLE.read_text(encoding="utf-8"))
    return tuple(RouteFacts(**{**row, "tags": tuple(row["tags"])}) for row in rows)


@functools.cache
def by_id() -> dict[str, RouteFacts]:
    return {facts.id: facts for facts in routes()}


class LazyHandler:
    """A route's handler, imported with its router module on first use. powertools reads the handler's
    signature (``inspect.signature`` follows ``__wrapped__``), its ``__globals__`` (to resolve the string
    annotations), its ``__annotations__`` and calls it; each of these loads it first."""

    def __init__(self, facts: RouteFacts, app: APIGatewayRestResolver, responses: dict[int, Any]) -> None:
        self.facts = facts
        self._app = app
        self._responses = responses  # the dict the route holds: filled when the handler loads
        self.__name__ = self.__qualname__ = facts.handler
        self.__module__ = f"{ROUTERS_PACKAGE}.{facts.router}"

    @functools.cached_property
    def __wrapped__(self) -> Callable[..., Any]:
        from launchpod.entrypoints.api import routing

        module = importlib.import_module(self.__module__)
        # What include_router does for a router: its context and current event are the resolver's.
        module.router.api_resolver = self._app
        self._responses.update(routing.responses_of(self.facts))
        return routing.handler_of(self.facts)

    @property
    def __globals__(self) -> dict[str, Any]:
        return self.__wrapped__.__globals__

    @property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        return self.__wrapped__.__annotations__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped__(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<route {self.facts.id}: {self.__module__}.{self.__name__}>"


class LazyResolver(APIGatewayRestResolver):
    """powertools' REST resolver with the table's routes; its OpenAPI document first loads every route not
    called yet (the document needs each handler's signature and models)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_handlers: list[LazyHandler] = []

    def include_table(self, prefix: str = "/api") -> None:
        """Every route of the table, in its order, each with its stand-in handler."""
        for facts in routes():
            rest = facts.path.removeprefix(prefix).replace("{", "<").replace("}", ">") or "/"
            responses: dict[int, Any] = {}
            handler = LazyHandler(facts, self, responses)
            self.route(
                rule=prefix if rest == "/" else prefix + rest,
                method=facts.method,
                operation_id=facts.id,
                summary=facts.summary,
                description=facts.description,
                tags=list(facts.tags),
                responses=responses,
                middlewares=[require(Role(facts.role)), _dry_run(facts), in_region] if facts.role else None,
            )(handler)
            self.lazy_handlers.append(handler)

    def get_openapi_schema(self, *args: Any, **kwargs: Any) -> Any:
        for handler in self.lazy_handlers:
            handler.__wrapped__  # noqa: B018 - loading it is the point
        return super().get_openapi_schema(*args, **kwargs)


def in_region(app: APIGatewayRestResolver, next_middleware: Callable[..., Response[Any]]) -> Response[Any]:
    """Every AWS call of a route goes to the Region its request is about (launchpod.usecases.regions): a
    cluster's (``/api/clusters/{name}/...``: the Region its record names), or the one the request asks for (a
    ``region`` query parameter or body field: a cluster to create or import, a catalog question), else the
    deployment's. Runs after validation, which leaves the validated arguments in the context."""
    from pydantic import BaseModel

    from launchpod.usecases import regions

    args = app.context.get("_route_args") or {}
    name = args.get("name") if "/clusters/" in app.current_event.path else None
    if isinstance(name, str):
        with regions.in_cluster_region(name):
            return next_middleware(app)
    asked = args.get("region") or next(
        (getattr(v, "region", None) for v in args.values() if isinstance(v, BaseModel)), None
    )
    with regions.in_region(asked if isinstance(asked, str) else None):
        return next_middleware(app)


_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no", "")


def _dry_run(facts: RouteFacts) -> Callable[[APIGatewayRestResolver, Callable[..., Response[Any]]], Response[Any]]:
    """``?dryRun=true`` on a mutating route whose own code does not plan it (only routes that start a
    workflow: a write applied at once must plan itself, CatalogEntry checks it): the route runs every check
    as usual and answers the workflow's plan where it would have started it (ops.submit raises Planned).
    Never is a dry run carried out as the real request."""

    def middleware(app: APIGatewayRestResolver, next_middleware: Callable[..., Response[Any]]) -> Response[Any]:
        if not facts.mutates or facts.own_plan:
            return next_middleware(app)
        said = str((app.current_event.query_string_parameters or {}).get("dryRun", "")).lower()
        if said not in _TRUE + _FALSE:
            raise InvalidInput(f"dryRun is true or false, not {said!r}.", field="query.dryRun", rule="boolean")
        if said in _FALSE:
            return next_middleware(app)
        from launchpod.contracts.plans import PlanView
        from launchpod.domain.operations import Planned
        from launchpod.entrypoints.api.routing import json_response

        app.append_context(principal=replace(app.context["principal"], dry_run=True))
        try:
            return next_middleware(app)
        except Planned as plan:
            return json_response(PlanView(target=plan.target, steps=plan.steps, warnings=plan.warnings))

    return middleware


def render() -> str:
    """The table as committed: from the catalog (routes' facts) and the routers (which function serves each)."""
    from launchpod.contracts.catalog_ops import CATALOG
    from launchpod.entrypoints.api import routing

    for name in ROUTERS:
        importlib.import_module(f"{ROUTERS_PACKAGE}.{name}")
    # Router by router in ROUTERS' order; within one, in the order its module declares them (sorted is stable).
    rank = {f"{ROUTERS_PACKAGE}.{name}": i for i, name in enumerate(ROUTERS)}
    order = sorted(routing.HANDLERS, key=lambda op: rank[routing.HANDLERS[op].__module__])
    served, declared = set(order), {e.id for e in CATALOG}
    if served != declared:
        raise SystemExit(f"routes without a catalog entry: {served - declared}; without a route: {declared - served}")
    entries = {e.id: e for e in CATALOG}
    rows = []
    for op in order:
        e, handler = entries[op], routing.HANDLERS[op]
        facts = RouteFacts(
            id=e.id,
            method=e.method,
            path=e.path,
            role=e.role.value if e.role else None,
            mutates=e.mutates,
            own_plan=e.own_plan,
            accepted=e.accepted,
            immediate=e.immediate,
            summary=e.summary,
            description=e.description,
            tags=e.tags,
            response=f"{e.response.__module__}:{e.response.__qualname__}",
            router=handler.__module__.removeprefix(ROUTERS_PACKAGE + "."),
            handler=handler.__name__,
        )
        rows.append(facts._asdict())
    return json.dumps(rows, indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    TABLE.write_text(render(), encoding="utf-8")
    print(f"wrote {TABLE}")
