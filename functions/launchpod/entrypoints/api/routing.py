"""What the routers share: the ``route`` decorator that names a handler's catalog operation, the OpenAPI
responses every route declares, and the answers of mutating routes. The resolver registers the routes from
the catalog's table (lazy_routes.py) and imports a router module on the first call of one of its routes."""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, get_type_hints

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter
from pydantic import BaseModel

from launchpod.contracts.common import ClusterName, K8sName, openai_compatible
from launchpod.contracts.errors import ErrorView
from launchpod.contracts.inference import EndpointName
from launchpod.contracts.naming import canonical_of
from launchpod.contracts.operations import NoopView, OperationAcceptedView, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.refusals import REFUSALS
from launchpod.domain.errors import InvalidInput
from launchpod.domain.plan import Plan
from launchpod.usecases.proposal import Proposal, at_once

if TYPE_CHECKING:
    from launchpod.entrypoints.api.lazy_routes import RouteFacts

InputT = TypeVar("InputT", bound=BaseModel)
T = TypeVar("T")
Applied = TypeVar("Applied", bound=BaseModel)
Model = TypeVar("Model", bound=BaseModel)


def input_of(model: type[InputT], body: BaseModel, **path: Any) -> InputT:
    """The use case's input: the path's values and only the body fields the caller sent (nested too), so a
    default the body schema filled in never reads as sent to a rule that checks ``model_fields_set``."""
    return model(**path, **body.model_dump(exclude_unset=True, exclude_none=True))


_ERRORS = {
    400: "The body cannot be read (not UTF-8 text)",
    401: "No token, or not a valid one",
    403: "Your role does not allow this",
    404: "Not found",
    409: "The cluster is busy, or the operation is in the wrong state",
    415: "The body is not JSON",
    422: "The request breaks a rule; details name the field and the rule. Beyond what the schema states, only "
    "these rules (what state decides, or a rule across fields): " + ", ".join(sorted(REFUSALS)),
    503: "AWS is throttling or unavailable; retry after Retry-After seconds",
}


_LOCATION = {
    "description": "the operation's status URL (statusUrl): GET it to follow the operation",
    "schema": {"type": "string"},
}

_SSE = (
    "with stream true: one `data: {chat.completion.chunk}` event per chunk (ChatCompletionChunkView), then"
    " `data: [DONE]`"
)


# operation id -> the router function that serves it (``route`` fills it as router modules are imported).
HANDLERS: dict[str, Callable[..., Any]] = {}


def route(router: APIGatewayRouter, op_id: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Names the catalog operation ``op_id`` that the decorated function serves. Path, method, role and
    OpenAPI words are the catalog's: lazy_routes registers the route from its table, and this function is
    its handler once the router module is imported (``router`` holds the request's context then)."""

    def declare(handler: Callable[..., Any]) -> Callable[..., Any]:
        HANDLERS[op_id] = handler
        return handler

    return declare


def handler_of(facts: RouteFacts) -> Callable[..., Any]:
    """The function that serves a route, as powertools calls it: a mutating route that does not plan itself
    gets its ``dryRun`` query parameter declared (lazy_routes' dry-run middleware answers it)."""
    handler = HANDLERS[facts.id]
    return _declaring_dry_run(handler) if facts.mutates and not facts.own_plan else handler


def responses_of(facts: RouteFacts) -> dict[int, Any]:
    """The route's OpenAPI responses: its answer, 202's Location, the NOOP and dry-run answers, the errors."""
    module, _, name = facts.response.partition(":")
    answer: Any = getattr(importlib.import_module(module), name)
    success = 202 if facts.accepted else 200
    responses: dict[int, Any] = {
        success: {"description": "OK", "content": {"application/json": {"model": answer}}},
    }
    if facts.accepted:  # every 202 is answered by accepted(), which sets Location
        responses[202]["headers"] = {"Location": _LOCATION}
    if facts.immediate and facts.own_plan:  # a write done at once, planned first: its answer, NOOP or the plan
        responses[200] = {
            "description": "Applied; or no changes, or the plan of a dry run",
            "content": {"application/json": {"model": answer | NoopView | PlanView}},
        }
    if facts.accepted:  # NOOP: the request already matches the real state; PLANNED: ?dryRun=true. Nothing starts.
        responses[200] = {
            "description": "No changes, or the plan of a dry run",
            "content": {"application/json": {"model": NoopView | PlanView}},
        }
    error_view: Any = ErrorView
    if openai_compatible(facts.path):
        from launchpod.contracts.chat import OpenAIErrorView

        error_view = OpenAIErrorView
        if facts.method == "POST":  # stream true: OpenAI's chunks as server-sent events
            responses[200]["content"]["text/event-stream"] = {"schema": {"type": "string", "description": _SSE}}
    if facts.role is not None:
        for status, text in _ERRORS.items():
            if status == 409 and not facts.mutates and "{name}" not in facts.path:
                continue  # reads of a cluster answer 409 too, while it is not ready for them
            if status in (400, 415) and facts.method not in ("POST", "PUT", "PATCH"):
                continue
            responses[status] = {"description": text, "content": {"application/json": {"model": error_view}}}
    return responses


def _declaring_dry_run(handler: Callable[..., Any]) -> Callable[..., Any]:
    """The handler with a ``dryRun`` query parameter in its signature, so the OpenAPI document (and the
    web client made from it) shows the dry run the middleware answers; the handler never sees it."""
    hints = get_type_hints(handler, include_extras=True)
    signature = inspect.signature(handler)
    params = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in signature.parameters.values()]
    params.append(inspect.Parameter("dryRun", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=DryRunQuery))

    @functools.wraps(handler)
    def declared(*args: Any, dryRun: bool = False, **kwargs: Any) -> Any:  # dryRun: the middleware read it
        return handler(*args, **kwargs)

    declared.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=hints.get("return", signature.return_annotation)
    )
    return declared


# The dryRun query parameter of every mutating route, as OpenAPI describes it.
DryRunQuery = Annotated[bool, Query(description="answer the plan (each step with its reason) and change nothing")]

# The parameters many routes declare, each named once.
ClusterPath = Annotated[ClusterName, Path()]
EndpointPath = Annotated[EndpointName, Path()]
K8sNamePath = Annotated[K8sName, Path()]  # a job's, space's or storage's name
NamespaceQuery = Annotated[K8sName, Query()]
ConfirmQuery = Annotated[str, Query()]  # the name typed again to confirm a delete
NextTokenQuery = Annotated[str | None, Query(max_length=2048)]
JsonBody = Annotated[Model, Body()]  # JsonBody[CreateClusterRequest]: the request's JSON body

# The answer of a planned write (``planned``, proposal.at_once): what the write returns or the operation it
# started, NOOP, or the plan of a dry run.
Planned = Response[Applied | NoopView | PlanView]


def planned(plan: Plan, dry_run: bool, start: Callable[[], OperationView], noop: str | None = None) -> Response[Any]:
    """The planner's answer, the same on every mutating route (proposal.at_once): an empty plan is 200 NOOP
    and starts nothing; ``dryRun`` answers 200 with the plan and starts nothing; otherwise ``start()``
    records the operation (with the plan) and starts its workflow: 202."""
    result = at_once(plan, dry_run, noop or f"{plan.target} already matches the request; no changes.", start)
    if not isinstance(result, OperationView):
        return json_response(result)
    return accepted(result, plan.warnings)


def accepted(started: OperationView | OperationAcceptedView, warnings: Sequence[str] = ()) -> Response[Any]:
    """The one 202 answer of every route that starts an operation: the operation (or a view that extends the
    accepted one), with Location set to the operation's status URL. A 202 "ought to describe the request's
    current status and point to (or embed) a status monitor" (RFC 9110, 15.3.3 202 Accepted,
    https://www.rfc-editor.org/rfc/rfc9110#name-202-accepted); Location is where a client polls."""
    view = (
        started
        if isinstance(started, OperationAcceptedView)
        else OperationAcceptedView(operation=started, statusUrl=started.statusUrl, warnings=list(warnings))
    )
    return json_response(view, 202, {"Location": view.statusUrl})


def started_or_noop(done: OperationView | OperationAcceptedView | NoopView) -> Response[Any]:
    """The answer of a change its use case compared with the real state itself: 200 NOOP when nothing
    differed, else the 202 of the operation it started (``accepted``)."""
    return json_response(done) if isinstance(done, NoopView) else accepted(done)


def answer(proposal: Proposal, dry_run: bool) -> Response[Any]:
    """A use case's proposal answered as every mutating route answers (see ``planned``)."""
    return planned(proposal.plan, dry_run, proposal.start, proposal.noop)


def json_response(model: BaseModel, status: int = 200, headers: dict[str, str] | None = None) -> Response[Any]:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=model, headers=headers or {})


def older_spelling(canonical: str, **constraints: Any) -> Query:
    """The ``Query`` of a query parameter's older spelling (launchpod.contracts.naming): still taken, marked
    deprecated in the document (OpenAPI 3.1 Parameter Object, ``deprecated``)."""
    text = f"deprecated: the older spelling of {canonical}; send {canonical}"
    return Query(deprecated=True, description=text, **constraints)


def one_spelling(canonical: str, value: T | None, old: str, old_value: T | None) -> T | None:
    """A renamed query parameter's value, from its canonical name or its older spelling, never both."""
    if canonical_of(old) != canonical:
        raise ValueError(f"{old} is not an older spelling of {canonical} in launchpod.contracts.naming")
    if value is not None and old_value is not None:
        raise InvalidInput(
            f"{old} and {canonical} are one parameter: send {canonical} only ({old} is its older spelling).",
            field=f"query.{old}",
            rule="one_spelling",
        )
    return value if value is not None else old_value
