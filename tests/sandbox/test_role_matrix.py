"""The role matrix, generated from the catalog: every operation x (no token, a stale token, viewer,
operator, admin), through REST and through MCP, against the running sandbox.

A role below the operation's is refused (403) and one at or above it is never refused (whatever else
its empty input earns: 404, 409, 422); without a valid token every route but health is 401. The MCP
tool, called as its schema says (the cluster as `cluster`), answers with the same status, code and
message as its REST route, the route's `name` of the cluster called `cluster`. Inputs are empty and
names are ones that exist nowhere, so nothing is created.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from launchpod.contracts.catalog_ops import CATALOG, TOOLS, CatalogEntry
from launchpod.contracts.common import Role
from launchpod.contracts.errors import ErrorView

from mcp_gateway.schemas import CLUSTER, cluster_field, tool_error_view
from tests.mcp_gateway.support import mcp_session
from tests.sandbox.http_support import TLS

pytestmark = pytest.mark.e2e

RANK = {Role.VIEWER: 1, Role.OPERATOR: 2, Role.ADMIN: 3}
ROLES = {"viewer": Role.VIEWER, "operator": Role.OPERATOR, "admin": Role.ADMIN}
# A value for each path parameter that is well formed and names nothing that exists.
PATH_VALUES = {
    "name": "matrix-nowhere",
    "operationId": "op-0000000000matrix",
    "storageName": "matrix-nowhere",
    "group": "matrix-nowhere",
    "node": "i-0123456789abcdef0",
    "nodeId": "i-0123456789abcdef0",
    "job": "matrix-nowhere",
    "endpoint": "matrix-nowhere",
    "pool": "matrix-nowhere",
}


def _path(entry: CatalogEntry) -> str:
    path = entry.path
    for param in entry.path_params:
        path = path.replace("{" + param + "}", PATH_VALUES.get(param, "matrix-nowhere"))
    return path


ANSWERS: list[str] = []  # every response this module saw, for the leak check at its end


def _rest(client: httpx.Client, entry: CatalogEntry, token: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    body = {} if entry.method in ("POST", "PATCH", "PUT") else None
    response = client.request(entry.method, _path(entry), headers=headers, json=body)
    ANSWERS.append(str(response.headers) + response.text)
    return response


def _expected(entry: CatalogEntry, role: Role) -> str:
    return "refused" if entry.role and RANK[role] < RANK[entry.role] else "allowed"


def test_without_a_valid_token_every_route_but_health_is_401(sandbox: Any) -> None:
    leaks, wrong = [], []
    with httpx.Client(base_url=sandbox.url, timeout=30, verify=TLS) as client:
        for entry in CATALOG:
            for label, token in (("no token", None), ("stale token", "lp-admin-" + "x" * 32)):
                response = _rest(client, entry, token)
                if entry.role is None:
                    if response.status_code != 200:
                        wrong.append((entry.id, label, response.status_code))
                elif response.status_code != 401:
                    leaks.append((entry.id, label, response.status_code, response.text[:120]))
                elif response.json().get("code") != "UNAUTHORIZED":
                    wrong.append((entry.id, label, response.json()))
    assert leaks == [] and wrong == []


def test_each_role_is_refused_exactly_the_operations_above_it_on_rest(sandbox: Any) -> None:
    unauthorized, wrongful, errors = [], [], []
    with httpx.Client(base_url=sandbox.url, timeout=60, verify=TLS) as client:
        for entry in CATALOG:
            for username, role in ROLES.items():
                response = _rest(client, entry, sandbox.tokens[username])
                status = response.status_code
                if status >= 500:
                    errors.append((entry.id, username, status, response.text[:200]))
                if _expected(entry, role) == "refused":
                    if status != 403 or response.json().get("code") != "FORBIDDEN":
                        unauthorized.append((entry.id, username, status, response.text[:120]))
                elif status in (401, 403):
                    wrongful.append((entry.id, username, status, response.text[:120]))
    assert unauthorized == [], "a role got past a check it should have failed"
    assert wrongful == [], "a role was refused an operation its rank allows"
    assert errors == [], "a server error"


@pytest.mark.parametrize("username", list(ROLES))
async def test_mcp_tools_answer_as_their_rest_routes_for_each_role(sandbox: Any, username: str) -> None:
    mismatches = []
    with httpx.Client(base_url=sandbox.url, timeout=60, verify=TLS) as client:
        async with mcp_session(sandbox.url, sandbox.tokens[username]) as session:
            for entry in TOOLS:
                arguments = {p: PATH_VALUES.get(p, "matrix-nowhere") for p in entry.path_params}
                if cluster_field(entry) in arguments:
                    arguments[CLUSTER] = arguments.pop(str(cluster_field(entry)))
                result = await session.call_tool(entry.id, arguments)
                direct = _rest(client, entry, sandbox.tokens[username])
                data = dict(result.structuredContent or {})
                if direct.status_code >= 400:
                    envelope = tool_error_view(entry, ErrorView.model_validate(direct.json())).model_dump(mode="json")
                    error = data.get("error") or {}
                    same = (
                        result.isError
                        and data.get("status") == direct.status_code
                        and (error.get("code"), error.get("message")) == (envelope.get("code"), envelope.get("message"))
                    )
                else:
                    same = not result.isError
                if not same:
                    mismatches.append((entry.id, direct.status_code, direct.text[:120], json.dumps(data)[:200]))
    assert mismatches == []


def test_no_token_is_ever_answered_or_logged(sandbox: Any) -> None:
    # Runs after the matrix above sent every token to every route (tests in a module run in order).
    assert ANSWERS, "the matrix tests did not run first"
    secrets = list(sandbox.tokens.values())
    log = sandbox.log.read_text()
    assert [t[:12] for t in secrets if t in log] == [], "a token is in the sandbox's log"
    assert [t[:12] for t in secrets if any(t in a for a in ANSWERS)] == [], "a token came back in a response"
    assert not re.search(r"Bearer\s+[A-Za-z0-9._~+/=-]{16,}", log), "an Authorization header was logged"
