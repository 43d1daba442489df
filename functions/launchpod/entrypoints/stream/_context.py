"""What a WebSocket event's requestContext tells: the connection, its management endpoint, the caller."""

from __future__ import annotations

from typing import Any


def connection_id(event: dict[str, Any]) -> str:
    return str(event["requestContext"]["connectionId"])


def management_endpoint(event: dict[str, Any]) -> str:
    """Derived from the event, never configured: the same code serves every stage and domain."""
    context = event["requestContext"]
    return f"https://{context['domainName']}/{context['stage']}"


def subject(event: dict[str, Any]) -> str | None:
    authorizer = event["requestContext"].get("authorizer") or {}
    claims = authorizer.get("claims") or {}
    return authorizer.get("principalId") or claims.get("cognito:username") or claims.get("sub")
