"""What several entrypoint tests hand the handlers: a REST proxy event."""

from __future__ import annotations

from typing import Any


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
