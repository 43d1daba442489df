"""``/api/*``: an API Gateway REST API (v1) with a ``{proxy+}`` resource and a Lambda proxy integration.

Each request becomes the proxy event of the ``launchpod-api`` function, with a Cognito-authorizer-like
check of the sandbox's bearer tokens; the function's answer becomes the HTTP response ("Set up Lambda
proxy integrations in API Gateway", "Input format of a Lambda function for proxy integration").
"""

from __future__ import annotations

import base64
import json
import logging
import time
import urllib.parse
import uuid
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from sandbox.auth import SandboxTokens
from sandbox.gateway.proxy import (
    Invoker,
    body_of,
    error_envelope,
    lambda_error,
    multi,
    request_time,
    short_id,
    token_from,
)

log = logging.getLogger("sandbox.gateway")

REST_FUNCTION = "launchpod-api"
ACCOUNT_ID = "123456789012"
REST_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
INVALID_TOKEN_MESSAGE = "The token is not valid. Use one printed by `make sandbox`."
# Routes deployed without an authorizer (cdk/launchpod_cdk/api.py PUBLIC_PATHS): API Gateway does not
# look at their Authorization header at all, so a stale token does not stop a health check.
PUBLIC_REST_PATHS = frozenset({"/api/health", "/api/openapi.json", "/api/docs"})
# Headers the gateway computes itself; a Lambda's values for them would corrupt the framing.
_HOP_BY_HOP = {"content-length", "transfer-encoding", "connection", "keep-alive"}


@dataclass(frozen=True)
class Stage:
    """Where the API is deployed: what the events' requestContext names."""

    api_id: str
    stage: str
    region: str

    @property
    def domain_name(self) -> str:
        return f"{self.api_id}.execute-api.{self.region}.amazonaws.com"


class RestApi:
    """The ``/api`` endpoint: token check, proxy event, invocation, proxy response."""

    def __init__(self, invoke: Invoker, tokens: SandboxTokens, stage: Stage) -> None:
        self._invoke, self._tokens, self._stage = invoke, tokens, stage

    async def __call__(self, request: Request) -> Response:
        request_id = str(uuid.uuid4())
        method = request.method.upper()
        if method not in REST_METHODS:
            return error_envelope(
                405,
                "METHOD_NOT_ALLOWED",
                f"Method {method} is not supported.",
                request_id,
                headers={"Allow": ", ".join(REST_METHODS)},
            )
        claims = None
        authorization = request.headers.get("authorization")
        if authorization is not None and request.url.path not in PUBLIC_REST_PATHS:
            claims = self._tokens.claims_for(token_from(authorization))
            if claims is None:
                return error_envelope(401, "UNAUTHORIZED", INVALID_TOKEN_MESSAGE, request_id)
        event = await self._event(request, request_id, claims)
        try:
            result = await self._invoke(REST_FUNCTION, event)
        except Exception:
            log.exception("Lambda %s failed for %s %s", REST_FUNCTION, method, request.url.path)
            return error_envelope(502, "INTERNAL", "The API function failed; see the sandbox log.", request_id)
        problem = lambda_error(result)
        if problem is not None:
            log.error(
                "Lambda %s gave an unusable response for %s %s: %s %r",
                REST_FUNCTION,
                method,
                request.url.path,
                problem,
                result if isinstance(result, dict) else type(result),
            )
            return error_envelope(
                502, "INTERNAL", f"The API function failed ({problem}); see the sandbox log.", request_id
            )
        return rest_response(result, request_id, head=method == "HEAD")

    async def _event(self, request: Request, request_id: str, claims: dict[str, Any] | None) -> dict[str, Any]:
        path = request.url.path
        query, multi_query = multi(urllib.parse.parse_qsl(request.url.query, keep_blank_values=True))
        client_ip = request.client.host if request.client else "127.0.0.1"
        header_items = [(k, v) for k, v in request.headers.items() if k != "host"]
        header_items += [
            ("host", self._stage.domain_name),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-port", "443"),
            ("x-forwarded-for", client_ip),
        ]
        headers, multi_headers = multi(header_items)
        body, is_base64 = body_of(await request.body())
        proxy = path.removeprefix("/api").lstrip("/")
        # HEAD is answered by the GET route without a body, as API Gateway integrations commonly are.
        method = "GET" if request.method.upper() == "HEAD" else request.method.upper()
        context = self._context(request, request_id, method, client_ip)
        if claims is not None:
            context["authorizer"] = {"claims": claims}
        return {
            "resource": "/{proxy+}",
            "path": path,
            "httpMethod": method,
            "headers": headers,
            "multiValueHeaders": multi_headers,
            "queryStringParameters": query,
            "multiValueQueryStringParameters": multi_query,
            "pathParameters": {"proxy": proxy} if proxy else None,
            "stageVariables": None,
            "requestContext": context,
            "body": body,
            "isBase64Encoded": is_base64,
        }

    def _context(self, request: Request, request_id: str, method: str, client_ip: str) -> dict[str, Any]:
        now, stage = time.time(), self._stage
        return {
            "resourceId": "proxy",
            "resourcePath": "/{proxy+}",
            "httpMethod": method,
            "extendedRequestId": short_id(),
            "requestTime": request_time(now),
            "path": f"/{stage.stage}{request.url.path}",
            "accountId": ACCOUNT_ID,
            "protocol": f"HTTP/{request.scope.get('http_version', '1.1')}",
            "stage": stage.stage,
            "domainPrefix": stage.api_id,
            "requestTimeEpoch": int(now * 1000),
            "requestId": request_id,
            "identity": _identity(client_ip, request.headers.get("user-agent")),
            "domainName": stage.domain_name,
            "apiId": stage.api_id,
        }


def _identity(source_ip: str, user_agent: str | None) -> dict[str, Any]:
    return {
        "cognitoIdentityPoolId": None,
        "accountId": None,
        "cognitoIdentityId": None,
        "caller": None,
        "sourceIp": source_ip,
        "principalOrgId": None,
        "accessKey": None,
        "cognitoAuthenticationType": None,
        "cognitoAuthenticationProvider": None,
        "userArn": None,
        "userAgent": user_agent,
        "user": None,
    }


def rest_response(result: dict[str, Any], request_id: str, *, head: bool) -> Response:
    """The HTTP response for a function's proxy answer."""
    status = int(result["statusCode"])
    body = result.get("body") or ""
    if result.get("isBase64Encoded"):
        content = base64.b64decode(body)
    else:
        content = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode("utf-8")
    pairs: list[tuple[str, str]] = []
    single = result.get("headers") or {}
    multi_headers = result.get("multiValueHeaders") or {}
    for key, value in single.items():
        if key.lower() not in {k.lower() for k in multi_headers}:
            pairs.append((key, str(value)))
    for key, values in multi_headers.items():
        pairs += [(key, str(v)) for v in values or []]
    pairs = [(k, v) for k, v in pairs if k.lower() not in _HOP_BY_HOP]
    if not any(k.lower() == "content-type" for k, _ in pairs):
        pairs.append(("content-type", "application/json"))  # API Gateway's default
    pairs.append(("x-amzn-RequestId", request_id))
    response = Response(content=b"" if head else content, status_code=status)
    if head:
        response.raw_headers = [(b"content-length", str(len(content)).encode())]
    # HTTP header values are latin-1; replace what cannot be sent rather than fail the response.
    response.raw_headers += [(k.lower().encode("latin-1", "replace"), v.encode("latin-1", "replace")) for k, v in pairs]
    return response
