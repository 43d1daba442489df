"""WebSocket $connect authorizer: browsers cannot set headers on a WebSocket, so the Cognito ID
token arrives as ?token=; it is verified here and the caller's identity handed to $connect."""

from __future__ import annotations

from typing import Any

from launchpod.domain.access import role_from_groups
from launchpod.domain.errors import Unauthorized
from launchpod.entrypoints.observability import logger
from launchpod.usecases import identity


def _policy(principal: str, effect: str, resource: str, context: dict[str, str] | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "principalId": principal,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": resource}],
        },
    }
    if context:
        answer["context"] = context
    return answer


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    token = (event.get("queryStringParameters") or {}).get("token") or ""
    try:
        claims = identity.claims_of(token, ports=identity.real())
    except Unauthorized as exc:
        logger.info("websocket connection refused", extra={"reason": exc.message})
        # API Gateway answers 401 for the literal "Unauthorized"; a Deny policy would be a 403.
        raise Exception("Unauthorized") from exc
    role = role_from_groups(claims.get("cognito:groups"))
    subject = str(claims.get("cognito:username") or claims["sub"])
    return _policy(
        subject, "Allow", event["methodArn"], {"role": role.value if role else "", "sub": str(claims["sub"])}
    )
