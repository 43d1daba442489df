"""Command line: run the gateway over stdio (local agents) or streamable HTTP (standalone server).

``launchpod mcp --stdio --api-url URL --token TOKEN`` is what an agent's MCP config starts; the token
and URL may come from ``LAUNCHPOD_TOKEN`` and ``LAUNCHPOD_API_URL`` instead, so they stay out of the
config file. Over HTTP the gateway holds no token: each MCP request brings its caller's.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import anyio

from mcp_gateway.help import Parser

DEFAULT_API_URL = "http://127.0.0.1:3099"


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="launchpod mcp",
        description="Launchpod's MCP gateway: the REST API as MCP tools, with playbooks as prompts.",
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true", help="serve one agent over stdin/stdout")
    mode.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp")
    parser.add_argument(
        "--api-url",
        default=os.environ.get("LAUNCHPOD_API_URL", DEFAULT_API_URL),
        help="Launchpod base URL; REST is under /api (env LAUNCHPOD_API_URL, default %(default)s)",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("LAUNCHPOD_TOKEN"),
        help="stdio only: your Launchpod API token (env LAUNCHPOD_TOKEN); HTTP callers send their own",
    )
    parser.add_argument(
        "--output-schemas",
        action="store_true",
        help="list every tool's output schema to every client (by default only to clients that ask, as they"
        " cost each agent tokens)",
    )
    parser.add_argument(
        "--toolsets",
        default="",
        help="toolsets every session starts with, comma-separated, or 'all' (default: none; the core tools and"
        " enable_toolsets, which adds the others); for a client that ignores tools/list_changed",
    )
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="HTTP only: no sessions, any instance answers any request; lists every tool unless a request's"
        " X-MCP-Toolsets header chooses",
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP only (default %(default)s)")
    parser.add_argument("--port", type=int, default=8080, help="HTTP only (default %(default)s)")
    return parser


async def serve_stdio(api_url: str, token: str | None, output_schemas: bool = False, toolsets: str = "") -> None:
    from mcp.server.stdio import stdio_server

    from mcp_gateway.server import build_server

    server = build_server(api_url, lambda _request: token, output_schemas=output_schemas, toolsets=toolsets.split(","))
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    api_url = args.api_url.rstrip("/")
    if args.stdio:
        if not args.token:
            # stdout belongs to the protocol; say it on stderr and let each tool call explain itself.
            print(
                "launchpod mcp: no token (--token or LAUNCHPOD_TOKEN); every tool call will be refused.",
                file=sys.stderr,
            )
        anyio.run(serve_stdio, api_url, args.token, args.output_schemas, args.toolsets)
        return 0
    import uvicorn

    from mcp_gateway.server import build_asgi_app

    uvicorn.run(
        build_asgi_app(
            api_url, output_schemas=args.output_schemas, toolsets=args.toolsets.split(","), stateless=args.stateless
        ),
        host=args.host,
        port=args.port,
        lifespan="on",
        log_level="info",
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
