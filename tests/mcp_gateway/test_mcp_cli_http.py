"""The standalone HTTP server (`launchpod mcp --http`): health check, and tools over streamable HTTP."""

from __future__ import annotations

import socket
import subprocess
import sys

import httpx

from mcp_gateway.tools import WAIT_TOOL
from tests.mcp_gateway.support import Live, mcp_session
from tests.sandbox.aws.support import wait_until


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_standalone_http_gateway_serves_health_and_forwards_the_callers_token(live: Live) -> None:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_gateway.cli", "--http", "--port", str(port), "--api-url", live.url],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:

        def healthy() -> httpx.Response | None:
            assert process.poll() is None, f"the gateway exited: {process.stderr.read() if process.stderr else ''}"
            try:
                return httpx.get(f"{url}/healthz", timeout=1)
            except httpx.TransportError:
                return None

        # a new Python process importing the MCP SDK: seconds on a quiet machine, a minute beside a loaded one
        health = wait_until(healthy, timeout=120, interval=0.1, reason="the gateway did not start")
        assert health.json()["status"] == "ok"
        async with mcp_session(url, live.tokens["operator"]) as session:
            tools = {t.name for t in (await session.list_tools()).tools}
            result = await session.call_tool("list_operations", {"limit": 5})
        assert WAIT_TOOL in tools and result.isError is False
        assert ("GET", "/api/operations", "Bearer operator-token") in live.fake.calls
    finally:
        process.terminate()
        process.wait(10)
