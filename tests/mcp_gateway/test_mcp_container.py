"""The container image: slim, non-root, health-checked, and its file set is enough to run the gateway.

No Docker engine runs in CI, so the image's layout is rebuilt in a temporary directory from the
Dockerfile's own COPY lines and imported with only the pinned packages on the path.
"""

from __future__ import annotations

import re
import shutil
import site
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

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


@pytest.mark.parametrize("package", ["mcp", "httpx", "pydantic", "starlette", "uvicorn", "mangum"])
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
