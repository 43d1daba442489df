"""The schemas an agent reads: each tool's input schema, compact, and the output schemas a client asks for.

An agent pays for every character of ``tools/list`` before its first call, so the input schema is the REST
request model's JSON schema with what only a validator or a form builder reads taken out: pydantic's
``title`` on every property and model, ``additionalProperties: false``, the ``{"type": "null"}`` branch of
a field whose default is null (leaving it out is the same request), and the model's docstring (the tool's
description says it). The REST API stays the one validator: what the schema no longer says, it still
answers with a 422 naming the field.

The cluster is called ``cluster`` in every tool: where the REST route names it ``name`` (in its path, or
in the body of the routes that create one), the tool's schema says ``cluster`` and ``to_rest`` puts it back.

Output schemas are not listed unless a client asks (``_meta: {"launchpod/outputSchemas": true}`` on
``tools/list``): every mutating tool answers the same ~5K-character operation schema, and MCP lets a tool
return structured content without one (https://modelcontextprotocol.io/specification/2025-06-18/server/tools
#output-schema).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, cast
from urllib.parse import parse_qsl, unquote

from launchpod.contracts.catalog_ops import CatalogEntry
from launchpod.contracts.errors import ErrorCode, ErrorDetail, ErrorView
from launchpod.contracts.naming import without_older_spellings
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from pydantic import TypeAdapter

from mcp_gateway.rest import RestError

CLUSTER = "cluster"
OUTPUT_SCHEMAS_META = "launchpod/outputSchemas"
_REST_NAME = "name"
_WHERE = ("body", "path", "query")
# A string's pattern and length bounds, where a description or an example already shows the format: the REST
# API checks them and its 422 says the rule in words ("must be 1-63 letters, digits and hyphens").
_FORMAT_ONLY = ("pattern", "minLength", "maxLength")
# An error detail naming the call that fixes it (launchpod.domain.errors.next_step): ``METHOD /api/... [JSON body]``.
NEXT_STEP = "next_step"


def cluster_field(entry: CatalogEntry) -> str | None:
    """The REST field that holds the cluster's name under another name than ``cluster``, if the route has one."""
    if entry.path.startswith("/api/clusters") and _REST_NAME in entry.input.model_fields:
        return _REST_NAME
    return None


def compact(schema: Any) -> Any:
    """``schema`` without titles, ``additionalProperties: false``, null branches of null defaults, and a
    string's format bounds where its description or example shows the format."""
    if isinstance(schema, list):
        return [compact(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("title", "additionalProperties") and not isinstance(value, dict):
            continue
        if key in _FORMAT_ONLY and ("description" in schema or "examples" in schema):
            continue
        if key in ("properties", "$defs", "patternProperties"):
            # keys of these maps are names, not keywords: a property called "title" stays
            out[key] = {name: compact(sub) for name, sub in value.items()}
        else:
            out[key] = compact(value)
    branches = out.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches and "default" in out and out["default"] is None:
        rest = [b for b in branches if b != {"type": "null"}]
        del out["anyOf"], out["default"]
        out = {**rest[0], **out} if len(rest) == 1 else {"anyOf": rest, **out}
    return out


def input_schema_of(entry: CatalogEntry) -> dict[str, Any]:
    """The tool's input: the REST request model's schema, compact, with the cluster called ``cluster``."""
    schema = without_older_spellings(entry.input.model_json_schema())  # deprecated spellings: REST only
    schema.pop("description", None)
    properties: dict[str, Any] = schema.get("properties", {})
    field = cluster_field(entry)
    if field is not None or (CLUSTER in properties and entry.path.startswith("/api/clusters")):
        # the server's instructions say once that `cluster` is the cluster's name, for every tool (a body that
        # names a new cluster calls it `cluster` already: launchpod.contracts.naming)
        properties.pop(field or CLUSTER)
        properties = {CLUSTER: {"type": "string"}, **properties}
        schema["required"] = [CLUSTER if r == field else r for r in schema.get("required", [])]
    if "dryRun" in properties:
        # the server's instructions say once what dryRun does, for every tool that takes it
        properties["dryRun"] = {"type": "boolean"}
    schema["properties"] = properties
    return cast(dict[str, Any], compact(schema))


def output_schema_of(entry: CatalogEntry) -> dict[str, Any]:
    """The REST response model's schema. A mutation may also answer 200 NOOP (DESIGN §3, empty plan), and
    one that takes dryRun 200 with the plan."""
    if not entry.mutates:
        return entry.response.model_json_schema(mode="serialization")
    answers = cast(Any, entry.response) | NoopView
    if "dryRun" in entry.query:
        answers = answers | PlanView
    schema = TypeAdapter[Any](answers).json_schema(mode="serialization")
    # MCP requires an object at the root of an output schema; both branches are objects.
    return {"type": "object", **schema}


def to_rest(entry: CatalogEntry, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool's arguments as the REST route names them. ``name`` is still taken where the route calls the
    cluster so (a diagnosis's suggested command may say it), but not together with a different ``cluster``."""
    field = cluster_field(entry)
    if field is None or CLUSTER not in arguments:
        return arguments
    rest = dict(arguments)
    cluster = rest.pop(CLUSTER)
    if rest.get(field) not in (None, cluster):
        raise RestError.of(
            422,
            ErrorCode.VALIDATION_FAILED,
            f"{CLUSTER} and {field} name different clusters; give the cluster once, as {CLUSTER}.",
            [ErrorDetail(field=CLUSTER, rule="conflict", message=f"give {CLUSTER} only")],
        )
    rest[field] = cluster
    return rest


def tool_error_view(entry: CatalogEntry, error: ErrorView) -> ErrorView:
    """The REST error with the cluster's field called as the tool calls it (``body.name`` → ``cluster``)."""
    field = cluster_field(entry)
    if field is None:
        return error
    spots = {f"{where}.{field}" for where in _WHERE} | {field}
    details = [
        d.model_copy(update={"field": CLUSTER, "message": re.sub(rf"^{field}\b", CLUSTER, d.message)})
        if d.field in spots
        else d
        for d in error.details
    ]
    message = re.sub(rf"\b(?:{'|'.join(_WHERE)})\.{field}\b(?![.\w])", CLUSTER, error.message)
    if details and error.details[0].field in spots:
        message = re.sub(rf"^{field}\b", CLUSTER, message)
    return error.model_copy(update={"message": message, "details": details})


def tool_call_of(call: str, entries: Iterable[CatalogEntry]) -> tuple[str, dict[str, Any]] | None:
    """A next step's REST call (``METHOD /api/path[?query] [JSON body]``) as the tool that makes it and its
    arguments in the tool's words (the cluster as ``cluster``); None when no tool has that route."""
    method, _, rest = call.strip().partition(" ")
    target, _, body = rest.partition(" ")
    path, _, query = target.partition("?")
    try:
        arguments: Any = json.loads(body) if body.strip() else {}
    except ValueError:
        return None
    if not isinstance(arguments, dict):
        return None
    # literal segments before templated ones: POST /api/clusters/import is not POST /api/clusters/{name}
    for entry in sorted(entries, key=lambda e: len(e.path_params)):
        route = re.sub(r"\\{(\w+)\\}", r"(?P<\1>[^/]+)", re.escape(entry.path))
        found = re.fullmatch(route, path) if entry.method.upper() == method.upper() else None
        if found is None:
            continue
        given: dict[str, Any] = {k: unquote(v) for k, v in found.groupdict().items()}
        given |= {k: {"true": True, "false": False}.get(v, v) for k, v in parse_qsl(query)}
        given |= arguments
        field = cluster_field(entry)
        if field is not None and field in given:
            given = {CLUSTER: given.pop(field), **given}
        return entry.id, given
    return None


def with_tool_steps(error: ErrorView, entries: Iterable[CatalogEntry]) -> ErrorView:
    """The REST error with each next step named as the tool call that makes it, not as a REST path."""
    if not any(d.rule == NEXT_STEP for d in error.details):
        return error
    known = tuple(entries)
    details = []
    for detail in error.details:
        found = tool_call_of(detail.message, known) if detail.rule == NEXT_STEP else None
        if found is not None:
            tool, arguments = found
            detail = detail.model_copy(update={"message": f"call {tool} with {json.dumps(arguments)}"})
        details.append(detail)
    return error.model_copy(update={"details": details})
