"""The container image: slim, non-root, health-checked, and its file set is enough to run the gateway.

No Docker engine runs in CI, so the image's layout is rebuilt in a temporary directory from the
Dockerfile's own COPY lines and imported with only the pinned packages on the path.
"""

from __future__ import annotations

import json
import re
import shutil
import site
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "mcp_gateway" / "Dockerfile").read_text()
REQUIREMENTS = dict(
    line.split("==")
    for line in (ROOT / "mcp_gateway" / "requirements.txt").read_text().splitlines()
    if line and not line.startswith("#")
)


def test_base_is_slim_python_and_user_is_not_root() -> None:
    assert re.search(r"^FROM python:3\.\d+-slim\b", DOCKERFILE, re.M)
    users = re.findall(r"^USER\s+(\S+)", DOCKERFILE, re.M)
    assert users and users[-1] not in ("root", "0")


def test_health_check_probes_healthz() -> None:
    assert re.search(r"^HEALTHCHECK .*\n.*/healthz", DOCKERFILE, re.M)


def test_entrypoint_serves_http_or_lambda() -> None:
    entrypoint = (ROOT / "mcp_gateway" / "docker-entrypoint.sh").read_text()
    assert "AWS_LAMBDA_RUNTIME_API" in entrypoint
    assert "awslambdaric mcp_gateway.lambda_handler.handler" in entrypoint
    assert "mcp_gateway.cli --http" in entrypoint
    assert (ROOT / "mcp_gateway" / "docker-entrypoint.sh").stat().st_mode & 0o111


@pytest.mark.parametrize("package", ["mcp", "httpx", "pydantic", "starlette", "uvicorn", "mangum", "boto3"])
def test_image_pins_the_versions_the_tests_run(package: str) -> None:
    assert REQUIREMENTS[package] == version(package)


def test_image_file_set_runs_the_gateway_without_the_rest_of_launchpod(tmp_path: Path) -> None:
    copies = re.findall(r"^COPY (?:--chmod=\S+ )?(\S+) (\S+)$", DOCKERFILE, re.M)
    for source, target in copies:
        dest = tmp_path / target.removeprefix("/app/").lstrip("/")
        matches = sorted(ROOT.glob(source.rstrip("/"))) if "*" in source else [ROOT / source.rstrip("/")]
        assert matches, f"COPY {source}: nothing to copy"
        for path in matches:
            if path.is_dir():
                shutil.copytree(path, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                out = dest / path.name if target.endswith("/") else dest
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, out)
    # -S: no .pth files, so the editable install of the whole project is out of reach, as in the image.
    paths = [str(tmp_path), *site.getsitepackages()]
    probe = (
        "import mcp_gateway.server, mcp_gateway.cli, mcp_gateway.lambda_handler, launchpod, sys;"
        "assert launchpod.__file__.startswith(sys.argv[1]), launchpod.__file__;"
        "assert not any(m.startswith(('launchpod.domain', 'launchpod.adapters', 'launchpod.runtime', 'boto'))"
        " for m in sys.modules), 'the gateway pulled in more than the contracts';"
        "print(len(mcp_gateway.server.list_tools()))"
    )
    run = subprocess.run(
        [sys.executable, "-S", "-c", probe, str(tmp_path)],
        env={"PYTHONPATH": ":".join(paths)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) >= 2
    assert (tmp_path / "mcp_gateway" / "skills" / "create-cluster.md").exists()


class _FakeRuntimeApi(BaseHTTPRequestHandler):
    """The Lambda Runtime API, as much of it as awslambdaric uses: hand out events, collect answers."""

    protocol_version = "HTTP/1.1"
    events: list[tuple[str, dict[str, Any]]] = []
    answers: dict[str, dict[str, Any]] = {}
    drained = threading.Event()

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if not self.events:
            self.drained.set()
            time.sleep(30)  # the next invocation never comes; the test kills the runtime
            return
        request_id, event = self.events.pop(0)
        body = json.dumps(event).encode()
        self.send_response(200)
        self.send_header("Lambda-Runtime-Aws-Request-Id", request_id)
        self.send_header("Lambda-Runtime-Deadline-Ms", str(int(time.time() * 1000) + 60_000))
        self.send_header("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:mcp")
        self.send_header("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.answers[self.path] = json.loads(data or b"{}")
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()


def test_container_entrypoint_serves_lambda_invocations_through_the_runtime_api() -> None:
    import awslambdaric  # noqa: F401 - the image's runtime client (requirements.txt), in the dev extras too

    from tests.mcp_gateway.support import INITIALIZE_PARAMS
    from tests.mcp_gateway.test_mcp_lambda import _event, _rpc

    _FakeRuntimeApi.events = [
        ("inv-1", _event(_rpc("initialize", INITIALIZE_PARAMS), "t")),
        ("inv-2", _event(_rpc("tools/list", id_=2), "t")),
        ("inv-3", _event(_rpc("tools/list", id_=3), None)),
    ]
    _FakeRuntimeApi.answers = {}
    _FakeRuntimeApi.drained = threading.Event()
    runtime = ThreadingHTTPServer(("127.0.0.1", 0), _FakeRuntimeApi)
    threading.Thread(target=runtime.serve_forever, daemon=True).start()
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "AWS_LAMBDA_RUNTIME_API": f"127.0.0.1:{runtime.server_address[1]}",
        "LAUNCHPOD_API_URL": "https://launchpod.example.test",
    }
    process = subprocess.Popen(
        ["sh", str(ROOT / "mcp_gateway" / "docker-entrypoint.sh")], env=env, cwd=ROOT, stderr=subprocess.PIPE
    )
    try:
        assert _FakeRuntimeApi.drained.wait(60), "the runtime did not ask for the next invocation"
    finally:
        process.kill()
        stderr = process.communicate()[1].decode()
        runtime.shutdown()
    answers = _FakeRuntimeApi.answers
    assert set(answers) == {f"/2018-06-01/runtime/invocation/inv-{i}/response" for i in (1, 2, 3)}, stderr
    init = answers["/2018-06-01/runtime/invocation/inv-1/response"]
    assert json.loads(init["body"])["result"]["serverInfo"]["name"] == "launchpod"
    listed = json.loads(answers["/2018-06-01/runtime/invocation/inv-2/response"]["body"])
    assert {t["name"] for t in listed["result"]["tools"]} >= {"create_cluster", "wait_for_operation"}
    assert answers["/2018-06-01/runtime/invocation/inv-3/response"]["statusCode"] == 401
