"""What several entrypoint tests hand the handlers: a REST proxy event, and Step Functions as far as
waking a parked task goes."""

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


class RecordingWorkflows:
    """Step Functions as far as waking a task goes: which tokens were sent back, and with what."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def send_task_success(self, token: str, output: dict[str, Any]) -> bool:
        self.sent.append((token, output))
        return True
