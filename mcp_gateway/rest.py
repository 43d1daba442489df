"""The gateway's only way to act: one HTTP call to the Launchpod REST API per tool call.

A catalog entry says where the call goes. Fields named in the path template fill the path; the rest go
in the query string (GET, DELETE) or the JSON body (POST, PUT, PATCH). Arguments are passed through
unvalidated on purpose: the REST API is the one validator, so an agent gets exactly the 422 a browser
would. Every non-2xx answer becomes a ``RestError`` carrying the REST error envelope.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
from launchpod.contracts.catalog_ops import CatalogEntry
from launchpod.contracts.errors import ErrorCode, ErrorDetail, ErrorView

from mcp_gateway import __version__

# Built once per process: httpx otherwise builds a TLS context for every client, loading certifi's CA bundle, about
# 20 ms of CPU on each tool call.
_TLS = httpx.create_ssl_context()

USER_AGENT = f"launchpod-mcp-gateway/{__version__}"
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


@dataclass
class RestError(Exception):
    """A REST call that did not succeed, with the envelope the API answered (or one made up for it)."""

    status: int
    error: ErrorView
    retry_after: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, status: int, code: ErrorCode, message: str, details: list[ErrorDetail] | None = None) -> RestError:
        """An error the gateway answers itself, in the API's envelope."""
        return cls(status, ErrorView(code=code, message=message, details=details or []))

    def __str__(self) -> str:
        return self.text()

    def text(self) -> str:
        """The message an agent reads: the API's own words first, then each field and what to do."""
        lines = [self.error.message]
        lines += [
            f"- next step: {d.message}"
            if d.rule == "next_step"
            else f"- {d.field or '(request)'}: {d.message} [{d.rule}]"
            for d in self.error.details
        ]
        trailer = f"HTTP {self.status} {self.error.code}"
        if self.error.requestId:
            trailer += f", request id {self.error.requestId}"
        if self.retry_after:
            trailer += f"; retry after {self.retry_after} s"
        lines.append(f"({trailer})")
        return "\n".join(lines)

    def envelope(self) -> dict[str, Any]:
        return {"status": self.status, "error": self.error.model_dump(mode="json")}


def unauthenticated(how: str) -> RestError:
    return RestError.of(
        401, ErrorCode.UNAUTHORIZED, f"No bearer token: Launchpod refuses every call without one. {how}"
    )


def _envelope_from(response: httpx.Response) -> ErrorView:
    try:
        return ErrorView.model_validate(response.json())
    except ValueError:
        # Not Launchpod's envelope (a proxy's 502 page, API Gateway's own 403): keep its words, bounded.
        text = response.text.strip()[:500] or response.reason_phrase
        return ErrorView(code=_code_for(response.status_code), message=f"HTTP {response.status_code}: {text}")


def _code_for(status: int) -> ErrorCode:
    """The code a response that is not Launchpod's envelope gets, from its status alone."""
    known = {
        401: ErrorCode.UNAUTHORIZED,
        403: ErrorCode.FORBIDDEN,
        404: ErrorCode.NOT_FOUND,
        405: ErrorCode.METHOD_NOT_ALLOWED,
        415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        409: ErrorCode.CONFLICT,
        422: ErrorCode.VALIDATION_FAILED,
        429: ErrorCode.RETRYABLE,
        503: ErrorCode.RETRYABLE,
    }
    if status in known:
        return known[status]
    return ErrorCode.UPSTREAM_UNAVAILABLE if status >= 500 else ErrorCode.BAD_REQUEST


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return [_query_value(v) for v in value]
    return value


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    params: dict[str, Any] | None
    json: dict[str, Any] | None


def build_request(entry: CatalogEntry, arguments: dict[str, Any]) -> Request:
    """Split tool arguments into path, query and body as the catalog entry says."""
    rest = dict(arguments)
    path = entry.path
    missing = []
    for name in entry.path_params:
        value = rest.pop(name, None)
        if value is None or value == "":
            missing.append(name)
            continue
        path = path.replace("{" + name + "}", quote(str(value), safe=""))
    if missing:
        # The URL cannot even be built; answer in the API's own shape instead of calling a wrong path.
        raise RestError.of(
            422,
            ErrorCode.VALIDATION_FAILED,
            f"{', '.join(missing)} is required",
            [ErrorDetail(field=f"path.{name}", rule="missing", message=f"give {name}") for name in missing],
        )
    if entry.method.upper() in BODY_METHODS:
        query = {k: _query_value(rest.pop(k)) for k in entry.query if rest.get(k) is not None}
        return Request(entry.method.upper(), path, query or None, rest)
    params = {k: _query_value(v) for k, v in rest.items() if v is not None}
    return Request(entry.method.upper(), path, params or None, None)


def api_root(url: str) -> str:
    """The URL every REST path (``/api/...``) is under: an API stage's (``https://…/v1``) or the sandbox's root.
    A URL that already ends in ``/api``, as the REST line of the sandbox's banner does, is taken as that root:
    every route starts with ``/api``, so ``…/api/api/clusters`` could only be a path that does not exist."""
    return url.rstrip("/").removesuffix("/api")


class RestClient:
    """Calls the REST API with one caller's bearer token. Cheap to build: one per tool call. The ``launchpod``
    command line (``cli/``) calls the API through it too, under its own user agent."""

    def __init__(
        self,
        base_url: str,
        token: str | None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 30.0,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.base_url = api_root(base_url)
        self.token = token
        self._transport = transport
        self._timeout = timeout
        self._user_agent = user_agent

    async def call(self, entry: CatalogEntry, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one catalog operation; the decoded JSON answer, or ``RestError``."""
        if not self.token:
            raise unauthenticated(
                "Over HTTP send 'Authorization: Bearer <token>' with each MCP request; over stdio start the"
                " gateway with --token or LAUNCHPOD_TOKEN."
            )
        request = build_request(entry, arguments)
        headers = {
            "Authorization": f"Bearer {self.token}",
            "User-Agent": self._user_agent,
            "Accept": "application/json",
        }
        async with httpx.AsyncClient(
            base_url=self.base_url, transport=self._transport, timeout=self._timeout, verify=_TLS
        ) as client:
            try:
                response = await client.request(
                    request.method, request.path, params=request.params, json=request.json, headers=headers
                )
            except httpx.TimeoutException as exc:
                raise RestError.of(
                    504,
                    ErrorCode.UPSTREAM_TIMEOUT,
                    f"The Launchpod API at {self.base_url} did not answer in {self._timeout:.0f} s; try again, and"
                    " for a mutation check list_operations first so it is not repeated.",
                ) from exc
            except httpx.HTTPError as exc:
                raise RestError.of(
                    503,
                    ErrorCode.UPSTREAM_UNAVAILABLE,
                    f"The Launchpod API at {self.base_url} is unreachable ({exc.__class__.__name__}: {exc}); check"
                    " the API URL it was given.",
                ) from exc
        if response.is_success:
            if response.status_code == 204 or not response.content:
                return {}
            try:
                body = response.json()
            except ValueError as exc:
                raise RestError.of(
                    502, ErrorCode.UPSTREAM_NOT_JSON, f"The API answered {response.status_code} without JSON."
                ) from exc
            return body if isinstance(body, dict) else {"items": body}
        raise RestError(response.status_code, _envelope_from(response), response.headers.get("Retry-After"))
