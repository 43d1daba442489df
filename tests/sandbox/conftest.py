"""The running sandbox, as a user starts it: ``launchpod sandbox`` in its own process.

A separate process keeps moto's and kmock's process-wide state away from the unit tests, and it
proves what a newcomer runs actually works. Time is scaled so an EKS cluster takes ~3 s.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import boto3
import httpx
import pytest
from kubernetes import client as k8s
from launchpod.adapters.aws.propagation import retry_fresh_ids

from sandbox.runtime import free_port
from tests.sandbox.clusters import ZONES
from tests.sandbox.http_support import TLS, wait_operation

ROOT = Path(__file__).resolve().parents[2]
KUBE_ROLE_ARN = "arn:aws:iam::123456789012:role/launchpod-kube-access"
TIME_SCALE = "0.005"


@dataclass
class RunningSandbox:
    url: str
    aws_url: str
    tokens: dict[str, str]
    log: Path

    def headers(self, role: str = "admin") -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[role]}"}

    def client(self, role: str | None = "admin") -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=self.headers(role) if role else {}, timeout=30, verify=TLS)

    def role_names(self) -> list[str]:
        """Every IAM role's name: ListRoles pages at 100, and a full run makes more than that."""
        pages = self.aws("iam").get_paginator("list_roles").paginate()
        return [r["RoleName"] for page in pages for r in page["Roles"]]

    def aws(self, service: str):
        """A boto3 client on the sandbox's moto server, as the aws CLI would use it.

        An EC2 client retries an id it just created while EC2 still answers NotFound, as AWS tells every
        EC2 client to (the sandbox models that eventual consistency).
        """
        made = boto3.client(
            service,
            endpoint_url=self.aws_url,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        if service == "ec2":
            retry_fresh_ids(made)
        return made

    def kube_token(self, cluster: str, role_arn: str = KUBE_ROLE_ARN) -> str:
        """An EKS token for ``cluster`` as ``role_arn`` (default: the kube-access role, the principal
        Launchpod gives an access entry), minted as a user who assumed that role would."""
        from sandbox.kube import mint_token

        creds = self.aws("sts").assume_role(RoleArn=role_arn, RoleSessionName="e2e")["Credentials"]
        return mint_token(
            cluster,
            access_key_id=creds["AccessKeyId"],
            secret_access_key=creds["SecretAccessKey"],
            session_token=creds["SessionToken"],
        )

    def kube(self, cluster: str, role_arn: str = KUBE_ROLE_ARN) -> k8s.ApiClient:
        """A kubernetes client on the cluster's API server, authenticated as ``role_arn``."""
        return k8s.ApiClient(self.configuration(cluster, self.kube_token(cluster, role_arn)))

    def configuration(self, cluster: str, token: str) -> k8s.Configuration:
        """The cluster's endpoint with ``token``; HTTPS, verified against the cluster's certificateAuthority
        as EKS's clients do."""
        described = self.aws("eks").describe_cluster(name=cluster)["cluster"]
        config = k8s.Configuration()
        config.host = described["endpoint"]
        config.api_key = {"authorization": "Bearer " + token}
        with tempfile.NamedTemporaryFile("wb", delete=False, suffix=".crt") as handle:
            handle.write(base64.b64decode(described["certificateAuthority"]["data"]))
        config.ssl_ca_cert = handle.name
        return config

    def provision(self, body: dict, timeout: float = 180) -> dict:
        """POST /api/clusters/provision with ``body``: its operation, once it has succeeded."""
        with self.client() as c:
            response = c.post("/api/clusters/provision", json=body)
        assert response.status_code == 202, response.text
        done = self.wait_operation(response.json()["operation"]["id"], timeout=timeout)
        assert done["status"] == "SUCCEEDED", (done.get("message"), done.get("phases"))
        return done

    def create_control_plane(self, name: str) -> dict:
        """POST /api/clusters: ``name``'s EKS control plane in the sandbox's two zones, once it has succeeded."""
        with self.client() as c:
            response = c.post("/api/clusters", json={"name": name, "availabilityZones": ZONES})
        assert response.status_code == 202, response.text
        done = self.wait_operation(response.json()["operation"]["id"])
        assert done["status"] == "SUCCEEDED", (done.get("message"), done.get("phases"))
        return done

    def faults(self, **body: object) -> dict:
        with self.client() as c:
            response = c.post("/api/sandbox/faults", json=body)
            response.raise_for_status()
            return dict(response.json())

    def install_dependencies(self, cluster: str, include_optional: bool = False) -> dict:
        """reconcile-dependencies on ``cluster``, as AWS asks before a HyperPod cluster is created."""
        with self.client() as c:
            body = {"includeOptional": True} if include_optional else {}
            response = c.post(f"/api/clusters/{cluster}/dependencies", json=body)
        if response.status_code == 200 and response.json().get("status") == "NOOP":
            return dict(response.json())  # already installed as pinned
        assert response.status_code == 202, response.text
        done = self.wait_operation(response.json()["operation"]["id"])
        assert done["status"] == "SUCCEEDED", done
        return done

    def lustre_file_system(self) -> dict:
        """A PERSISTENT_2 FSx for Lustre file system in the sandbox's first subnet, as DescribeFileSystems shows it."""
        subnet = self.aws("ec2").describe_subnets()["Subnets"][0]["SubnetId"]
        return dict(
            self.aws("fsx").create_file_system(
                FileSystemType="LUSTRE",
                StorageCapacity=1200,
                SubnetIds=[subnet],
                LustreConfiguration={"DeploymentType": "PERSISTENT_2", "PerUnitStorageThroughput": 125},
            )["FileSystem"]
        )

    def wait_operation(self, operation_id: str, timeout: float = 180) -> dict:
        with self.client("viewer") as c:

            def read() -> dict:
                response = c.get(f"/api/operations/{operation_id}")
                assert response.status_code == 200, f"GET /api/operations/{operation_id}: {response.text}"
                return dict(response.json())

            view = wait_operation(self.url, self.tokens["viewer"], operation_id, read, timeout)
        # shown with a failing test's captured output: why the operation ended as it did
        print(f"operation {operation_id} ({view.get('kind')}): {view['status']}: {view.get('message')}")
        return view


@contextlib.contextmanager
def start_sandbox(time_scale: str = TIME_SCALE) -> Iterator[RunningSandbox]:
    """A sandbox in its own process (as ``make sandbox`` runs it), stopped on exit.

    Its ports are picked free just before it binds them; another worker's sandbox starting in that
    instant can take one first, so a start that fails with 'address already in use' is tried again.
    """
    for attempt in range(3):
        with _sandbox_process(time_scale, last_try=attempt == 2) as running:
            if running is not None:
                yield running
                return


@contextlib.contextmanager
def _sandbox_process(time_scale: str, last_try: bool) -> Iterator[RunningSandbox | None]:
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="launchpod-sandbox-"))
    tokens_file, log = workdir / "tokens.json", workdir / "sandbox.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sandbox.cli",
                "sandbox",
                "--port",
                str(port),
                "--time-scale",
                time_scale,
                "--tokens-file",
                str(tokens_file),
                "--log-dir",
                str(workdir / "lambda"),
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    # A quiet machine starts it in ~10 s; beside a CPU-bound process on two cores it took 57-92 s.
    deadline = time.monotonic() + 240
    while not tokens_file.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            said = log.read_text()
            if not last_try and "address already in use" in said.lower():
                shutil.rmtree(workdir, ignore_errors=True)
                yield None
                return
            pytest.fail(f"the sandbox did not start:\n{said[-4000:]}")
        time.sleep(0.1)
    info = json.loads(tokens_file.read_text())
    running = RunningSandbox(
        url=info["url"],
        aws_url=info["awsUrl"],
        tokens={k: info[k] for k in ("admin", "operator", "viewer")},
        log=log,
    )
    try:
        yield running
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
    shutil.rmtree(workdir, ignore_errors=True)  # not reached when a failure passes through: its logs stay


# The worker's shared sandbox, while it runs: stopped when the session ends, or before the first unit test (see
# stop_shared_sandbox).
_shared: list[contextlib.ExitStack] = []


def _no_token_in_log(running: RunningSandbox) -> None:
    """After every test that used it: no token the tests sent (REST, WebSocket, MCP) reached the sandbox's log."""
    log = running.log.read_text()
    leaked = [role for role, token in running.tokens.items() if token in log]
    if leaked:
        pytest.fail(f"the sandbox's log holds the {', '.join(leaked)} token(s): {running.log}")


@pytest.fixture(scope="session")
def sandbox() -> Iterator[RunningSandbox]:
    stack = contextlib.ExitStack()
    running = stack.enter_context(start_sandbox())
    stack.callback(_no_token_in_log, running)  # first, while the sandbox still runs
    _shared.append(stack)
    yield running
    stop_shared_sandbox()


def stop_shared_sandbox() -> None:
    """Stop the worker's shared sandbox now, if it runs.

    tests/conftest.py calls this before a worker's first unit test: the unit tests are handed out last, after every
    group that uses the sandbox, which by then is idle. Left running, its clusters' simulated controllers and
    HyperPod's clock keep a core busy while the unit tests run beside it."""
    while _shared:
        _shared.pop().close()


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "iam_denies: the test removes IAM grants and expects denied calls")


@pytest.fixture(autouse=True)
def _no_iam_denies(request):
    """Every end-to-end flow runs with zero IAM denies: a call AWS would refuse fails the test that
    caused it, naming the function, action and resource (tests that remove grants are marked)."""
    if "sandbox" not in request.fixturenames or request.node.get_closest_marker("iam_denies"):
        yield
        return
    running = request.getfixturevalue("sandbox")
    with running.client("admin") as c:
        before = c.get("/api/sandbox/iam").json()["totals"]["denied"]
    yield
    with running.client("admin") as c:
        report = c.get("/api/sandbox/iam").json()
    new = report["totals"]["denied"] - before
    denies = report["denies"][-new:] if new else []
    assert denies == [], "calls AWS would deny:\n" + "\n".join(
        f"{d['function']} {d['operation']}: {d['message']}" for d in denies
    )
