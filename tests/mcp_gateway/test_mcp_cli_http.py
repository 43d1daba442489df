"""The standalone HTTP server (`launchpod mcp --http`): health check, and tools over streamable HTTP."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import httpx

from mcp_gateway.tools import WAIT_TOOL
from tests.mcp_gateway.support import Live, mcp_session


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
        deadline = time.monotonic() + 20
        while True:
            try:
                health = httpx.get(f"{url}/healthz", timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline, "the gateway did not start"
                time.sleep(0.1)
        assert health.json()["status"] == "ok"
        async with mcp_session(url, live.tokens["operator"]) as session:
            tools = {t.name for t in (await session.list_tools()).tools}
            result = await session.call_tool("list_operations", {"limit": 5})
        assert WAIT_TOOL in tools and result.isError is False
        assert ("GET", "/api/operations", "Bearer operator-token") in live.fake.calls
    finally:
        process.terminate()
        process.wait(10)
