"""What several entrypoint tests hand the handlers: a REST proxy event, a workflow phase's input."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.workflows import WorkflowInput


def rest_event(method: str, path: str, claims: dict[str, Any] | None) -> dict[str, Any]:
    """An API Gateway REST proxy event, as the Cognito authorizer passes it on (no claims: no token)."""
    return {
        "resource": "/{proxy+}",
        "path": path,
        "httpMethod": method,
        "headers": {},
        "multiValueHeaders": {},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "body": None,
        "isBase64Encoded": False,
        "requestContext": {"requestId": "t-1", "authorizer": {"claims": claims} if claims else None},
    }


def phase_input(kind: str, request: dict[str, Any], poll: dict[str, int] | None = None) -> WorkflowInput:
    """The document a ``kind`` operation's state machine hands each phase on cluster c1; ``poll`` counts how
    often each waiting phase has been polled already."""
    return WorkflowInput(operationId="op-0123456789", kind=kind, target="c1", request=request, poll=poll or {})
