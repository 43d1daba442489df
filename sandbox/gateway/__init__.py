"""The sandbox front door: one ASGI app playing API Gateway (REST + WebSocket), MCP and the static site.

``build_gateway`` (``app``) returns a Starlette app that uvicorn serves on 127.0.0.1:3099:

- ``/api/*`` (``rest``) becomes an API Gateway REST v1 proxy event for the ``launchpod-api`` Lambda,
  with a Cognito-authorizer-like check of the sandbox bearer tokens; ``proxy`` invokes the Lambda and
  turns a failure into the project's error envelope, never a stack trace.
- ``/ws`` (``websocket``) is an API Gateway WebSocket API: ``$connect``, ``$default`` and
  ``$disconnect`` go to their Lambdas, and moto's API Gateway Management API is patched
  (``connections``) so ``post_to_connection`` from any Lambda handler reaches the live socket, or
  raises ``GoneException`` (410) for an unknown connection.
- ``/api/sandbox/*`` (``admin``) are the sandbox's own controls, answered by the gateway itself.
- ``/mcp`` (``mcp``) is the mounted MCP app, and everything else (``static``) is the web UI with
  single-page-app fallback.
"""

from sandbox.gateway.app import build_gateway
from sandbox.gateway.connections import ConnectionRegistry, GoneException, connections, new_connection_id
from sandbox.gateway.proxy import error_envelope
from sandbox.gateway.rest import PUBLIC_REST_PATHS

__all__ = [
    "PUBLIC_REST_PATHS",
    "ConnectionRegistry",
    "GoneException",
    "build_gateway",
    "connections",
    "error_envelope",
    "new_connection_id",
]
