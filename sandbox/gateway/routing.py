"""Starlette routing pieces the gateway needs to behave like API Gateway: a path convertor that takes any
path, and endpoints that see every HTTP method (so they answer 405 in the project's envelope)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.routing import request_response
from starlette.types import ASGIApp, Receive, Scope, Send


class _AnyPath(Convertor[str]):
    """Starlette's ``path`` convertor stops at a newline (``.*``); API Gateway's ``{proxy+}`` passes
    any decoded path to the function, which answers in the project's envelope."""

    regex = r"[\s\S]*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("anypath", _AnyPath())


class AnyMethod:
    """A request/response endpoint that Starlette routes for every method (it is not a function)."""

    def __init__(self, endpoint: Callable[[Request], Any]) -> None:
        self._app = request_response(endpoint)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)


class Passthrough:
    """An ASGI app behind a Route: every method, path unchanged (plain ASGI functions included)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)
