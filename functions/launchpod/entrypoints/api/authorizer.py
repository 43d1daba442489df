"""REST API Lambda authorizer, used instead of the Cognito authorizer when the stack is given your
own OIDC issuer: it verifies the ``Authorization: Bearer`` ID token and hands the caller's identity to
the api function. The Allow covers the whole API so API Gateway's cached answer serves every route;
roles are still enforced per route by the api function (``entrypoints/api/auth.py``)."""

from __future__ import annotations

from typing import Any

from launchpod.domain.errors import Unauthorized
from launchpod.entrypoints.observability import logger
from launchpod.usecases import identity


def _whole_api(method_arn: str) -> str:
    # arn:aws:execute-api:region:account:api-id/stage/VERB/path -> arn:...:api-id/stage/*
    prefix, _, path = method_arn.partition(":execute-api:")
    head = path.split("/")
    return f"{prefix}:execute-api:{'/'.join(head[:2])}/*"


def _groups(raw: Any) -> str:
    if isinstance(raw, list | tuple):
        return " ".join(str(g) for g in raw)
    return str(raw or "")


def _bearer(event: dict[str, Any]) -> str:
    raw = event.get("authorizationToken")
    if raw is None:  # REQUEST authorizer: the header itself
        headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
        raw = headers.get("authorization")
    scheme, _, token = str(raw or "").strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        claims = identity.claims_of(_bearer(event), ports=identity.real())
    except Unauthorized as exc:
        logger.info("request refused", extra={"reason": exc.message})
        # API Gateway answers 401 for the literal "Unauthorized"; a Deny policy would be a 403.
        raise Exception("Unauthorized") from exc
    subject = str(claims.get("cognito:username") or claims.get("preferred_username") or claims["sub"])
    return {
        "principalId": subject,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [
                {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": _whole_api(event["methodArn"])}
            ],
        },
        # Context values must be strings, numbers or booleans: groups travel space-separated.
        "context": {
            "cognito:username": subject,
            "sub": str(claims["sub"]),
            "cognito:groups": _groups(claims.get("cognito:groups")),
        },
    }
