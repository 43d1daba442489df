"""The sandbox, assembled: moto in-process (plus a moto server for the aws CLI), one emulated
Kubernetes API per EKS cluster, everything provisioned from the registry, and the gateway on one
port serving the web UI at /, REST at /api, WebSocket at /ws and MCP at /mcp.

Production code runs unchanged: handlers are invoked through moto's Lambda, state machines are
the ASL files in statemachines/, and Kubernetes is reached at the endpoint EKS reports.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


@dataclass
class Sandbox:
    host: str = "127.0.0.1"
    port: int = 3099
    time_scale: float = 0.05
    moto_port: int | None = None
    web_dir: Path | None = None
    verbose: bool = False
    # every AWS call a handler makes is authorized against its role (off only to measure its cost)
    iam_evaluation: bool = True
    # each function in execution environments of its own, as Lambda runs it (off only to measure its cost)
    execution_environments: bool = True
    # where the execution environments' logs go (a new folder under the system's temporary one when not given)
    log_dir: Path | None = None
    tokens: Any = None
    faults: Any = None
    function_faults: Any = None
    lambdas: Any = None
    provisioned: Any = None
    _threads: list[threading.Thread] = field(default_factory=list)
    _lambda_client: Any = None
    _lambda_client_lock: threading.Lock = field(default_factory=threading.Lock)
    _started: list[Step] = field(default_factory=list)
    _own_log_dir: bool = False  # log_dir is a temporary folder the sandbox made (and removes when it stops)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def aws_url(self) -> str:
        return f"http://{self.host}:{self.moto_port}"

    def start(self) -> Sandbox:
        """Start every step of ``STEPS`` in its order, each after the steps it needs."""
        check_order(STEPS)
        for step in STEPS:
            step.start(self)
            self._started.append(step)
        return self

    # ------------------------------------------------------------------ the steps, in STEPS's order
    def _set_environment(self) -> None:
        for key, value in {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_SESSION_TOKEN": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1",
            "POWERTOOLS_LOG_LEVEL": "INFO" if self.verbose else "WARNING",
            "POWERTOOLS_METRICS_DISABLED": "true",
        }.items():
            os.environ[key] = value
        os.environ.pop("AWS_PROFILE", None)

    def _install_aws(self) -> None:
        from sandbox import aws
        from sandbox.aws import fsx
        from sandbox.aws import sagemaker as hyperpod
        from sandbox.aws.sagemaker import task_governance

        aws.install(self.time_scale)
        hyperpod.install()
        task_governance.install()  # scheduler configs and compute quotas; after hyperpod's ARN lookup
        fsx.install()
        self.faults = aws.FAULTS
        self.hyperpod_faults = hyperpod.HYPERPOD_FAULTS
        from sandbox.lambda_env.faults import FUNCTION_FAULTS

        self.function_faults = FUNCTION_FAULTS

    def _quiet_logs(self) -> None:
        if not self.verbose:
            # The interpreter logs every Catch as an error; the operation record already says it better.
            logging.getLogger("moto.stepfunctions").setLevel(logging.CRITICAL)
            # The moto server logs every request the execution environments send it.
            logging.getLogger("werkzeug").setLevel(logging.WARNING)

    def _start_moto(self) -> None:
        from moto import mock_aws

        self._mock = mock_aws(
            config={
                "stepfunctions": {"execute_state_machine": True},
                "iam": {"load_aws_managed_policies": True},
            }
        )
        self._mock.start()

    def _start_fleet(self) -> None:
        from sandbox import aws
        from sandbox.aws import sagemaker as hyperpod
        from sandbox.aws.eks.authorizer import authorize
        from sandbox.controllers import model_server
        from sandbox.kube import KubeFleet

        # Every request to a cluster's API server is authenticated and authorized as EKS does it.
        self.fleet = KubeFleet(authorizer=authorize, service_proxy=model_server.proxy)
        aws.set_kube_endpoint_provider(self.fleet.start_for)
        aws.set_node_reader(lambda name: self.fleet.call(name, lambda emu: emu.list_objects("v1/nodes")))
        hyperpod.set_node_sink(hyperpod.kube_node_sink(self.fleet))
        hyperpod.set_state_sink(hyperpod.eventbridge_state_sink)

    def _start_hyperpod_clock(self) -> None:
        from sandbox.aws import sagemaker as hyperpod

        self.hyperpod_ticker = hyperpod.ticker().start()

    def _start_controllers(self) -> None:
        from sandbox.aws.prometheus.exporters import exporter_loop
        from sandbox.controllers.inference import inference_controller
        from sandbox.controllers.karpenter import karpenter_controller
        from sandbox.controllers.kueue import kueue_controller
        from sandbox.controllers.spaces import spaces_controller
        from sandbox.controllers.training import training_controller
        from sandbox.controllers.workloads import workload_controller

        self.workloads = workload_controller(self.fleet).start()
        self.karpenter = karpenter_controller(self.fleet).start()  # HyperPod-managed Karpenter
        self.training = training_controller(self.fleet).start()  # training operator and KubeRay
        self.inference = inference_controller(self.fleet).start()  # inference operator, LB controller
        self.kueue = kueue_controller(self.fleet).start()  # task governance's Kueue objects
        self.spaces = spaces_controller(self.fleet).start()  # the HyperPod Spaces add-on's operator
        self.exporters = exporter_loop(self.fleet).start()  # HyperPod observability's DCGM/EFA exporters

    def _start_container_insights(self) -> None:
        from sandbox.controllers import container_insights

        container_insights.install()  # the observability add-on's Fluent Bit ships container lines

    def _provision(self) -> None:
        from launchpod.runtime.settings import settings

        from sandbox.provision import provision

        self.provisioned = provision(
            {
                # SageMaker managed MLflow's REST API, served by the gateway (sandbox.gateway.admin.mlflow)
                "LAUNCHPOD_MLFLOW_ENDPOINT_URL": f"{self.url}/sagemaker-mlflow",
                # AMP workspaces' query API, served by the gateway (sandbox.gateway.admin.amp)
                "LAUNCHPOD_AMP_ENDPOINT_URL": f"{self.url}/aps-workspaces",
                # notifications link to the sandbox's console, and may call webhooks on loopback
                "LAUNCHPOD_CONSOLE_URL": self.url,
                "LAUNCHPOD_ALLOW_LOOPBACK_WEBHOOKS": "true",
            }
        )
        os.environ.update(self.provisioned.environment)
        settings.cache_clear()

    def _gate_iam(self) -> None:
        from sandbox.aws.iam import GATE

        self.iam = GATE
        GATE.set_enabled(self.iam_evaluation)

    def _start_moto_server(self) -> None:
        from moto.server import ThreadedMotoServer

        # Port 0 lets the kernel pick a free port as it binds, so two sandboxes starting at once (the
        # suite's parallel workers) cannot both be handed the same one.
        self._moto = ThreadedMotoServer(ip_address=self.host, port=self.moto_port or 0, verbose=False)
        self._moto.start()
        self.moto_port = self._moto.get_host_and_port()[1]

    def _issue_tokens(self) -> None:
        from sandbox.auth import SandboxTokens

        self.tokens = SandboxTokens.generate()

    def _start_execution_environments(self) -> None:
        if not self.execution_environments:
            return
        import boto3

        from sandbox.aws import awslambda
        from sandbox.aws.faults import SERVICE_CALL_HEADER
        from sandbox.aws.iam.gate import EnvironmentAuthorizer
        from sandbox.lambda_env.environments import ExecutionEnvironments
        from sandbox.provision import REGION

        # Lambda assumes a function's execution role itself to hand the runtime its credentials
        # (https://docs.aws.amazon.com/lambda/latest/dg/lambda-intro-execution-role.html): the call is the Lambda
        # service's, so the throttling a test injects into the account's STS calls does not fail a cold start.
        sts = boto3.client("sts", region_name=REGION)

        def _as_lambda(request: Any, **_: Any) -> None:
            request.headers[SERVICE_CALL_HEADER] = "lambda"

        sts.meta.events.register("before-sign.sts.AssumeRole", _as_lambda)

        def credentials(role_arn: str, function: str) -> dict[str, str]:
            # Lambda hands the runtime its role's temporary credentials; the session is the function.
            creds = sts.assume_role(RoleArn=role_arn, RoleSessionName=function)["Credentials"]
            return {
                "AWS_ACCESS_KEY_ID": creds["AccessKeyId"],
                "AWS_SECRET_ACCESS_KEY": creds["SecretAccessKey"],
                "AWS_SESSION_TOKEN": creds["SessionToken"],
            }

        self.lambdas = ExecutionEnvironments(
            aws_url=self.aws_url,
            log_dir=self._log_folder(),
            credentials=credentials,
            authorizer=EnvironmentAuthorizer(),
        )
        awslambda.set_runner(self.lambdas.invoke)

    def set_execution_environments(self, enabled: bool) -> None:
        """Run handlers in their execution environments, or (to measure what those cost) in this process."""
        from sandbox.aws import awslambda

        if self.lambdas is not None:
            awslambda.set_runner(self.lambdas.invoke if enabled else None)

    def _warm(self) -> None:
        """Load what the first user request would otherwise wait seconds for: moto's EC2 offering
        tables and the API handler's imports (the equivalent of a provisioned-concurrency warm-up)."""
        import boto3

        boto3.client("ec2", region_name="us-east-1").describe_instance_type_offerings(
            LocationType="availability-zone", Filters=[{"Name": "instance-type", "Values": ["p5.48xlarge"]}]
        )
        import kubernetes.client  # noqa: F401 - seconds to import; pay it before the first request

        self.invoke(
            "launchpod-api",
            {"httpMethod": "GET", "path": "/api/health", "headers": {}, "requestContext": {"requestId": "warm-up"}},
        )

    # ------------------------------------------------------------------ Lambda
    def invoke(self, function_name: str, event: dict[str, Any]) -> dict[str, Any]:
        out = self._lambda().invoke(FunctionName=function_name, Payload=json.dumps(event).encode())
        payload = json.loads(out["Payload"].read() or b"null")
        if out.get("FunctionError"):
            raise RuntimeError(f"{function_name} failed: {payload.get('errorType')}: {payload.get('errorMessage')}")
        return payload if isinstance(payload, dict) else {"statusCode": 200, "body": json.dumps(payload)}

    def _lambda(self) -> Any:
        """One Lambda client for every invocation (a client is thread safe, "Multithreading or multiprocessing
        with clients", boto3 documentation; building one costs more CPU than the call it makes)."""
        with self._lambda_client_lock:
            if self._lambda_client is None:
                import boto3

                self._lambda_client = boto3.client("lambda", region_name="us-east-1")
            return self._lambda_client

    # ------------------------------------------------------------------ HTTP
    def _serve(self) -> None:
        import uvicorn

        from sandbox.gateway import build_gateway
        from sandbox.gateway.admin.routes import control_routes

        mcp_app = None
        try:
            from mcp_gateway.server import build_asgi_app

            mcp_app = build_asgi_app(self.url)
        except ImportError:
            mcp_app = None
        web_dir = self.web_dir or (ROOT / "web" / "dist")
        app = build_gateway(
            lambda_invoke=self.invoke,
            tokens=self.tokens,
            mcp_app=mcp_app,
            web_dir=web_dir if web_dir.is_dir() else None,
            admin_routes=control_routes(self),
        )
        # With uvicorn's default 5 s keep-alive, a loop starved that long closes a polling client's
        # connection as its next request arrives, and that request is reset (seen in a loaded full run).
        config = uvicorn.Config(
            app, host=self.host, port=self.port, log_level="warning", lifespan="on", timeout_keep_alive=75
        )
        self._server = uvicorn.Server(config)
        thread = threading.Thread(target=self._server.run, name="sandbox-gateway", daemon=True)
        thread.start()
        self._threads.append(thread)
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError(f"The sandbox gateway did not start on {self.url} (is the port in use?).")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop what ``start`` started, in the reverse order."""
        while self._started:
            step = self._started.pop()
            if step.stop is not None:
                step.stop(self)

    def _stop_moto(self) -> None:
        self._mock.stop()

    def _stop_fleet(self) -> None:
        self.fleet.stop_all()

    def _stop_hyperpod_clock(self) -> None:
        self.hyperpod_ticker.stop()

    def _stop_controllers(self) -> None:
        controllers = (self.exporters, self.spaces, self.kueue, self.inference, self.training, self.karpenter)
        for controller in (*controllers, self.workloads):
            controller.stop()

    def _stop_moto_server(self) -> None:
        self._moto.stop()

    def _log_folder(self) -> Path:
        """The folder of the execution environments' logs: ``log_dir``, or a temporary one of the sandbox's own,
        which ``stop`` removes (a run that wants its logs afterwards names the folder)."""
        if self.log_dir is None:
            self.log_dir = Path(tempfile.mkdtemp(prefix="launchpod-sandbox-lambda-"))
            self._own_log_dir = True
        self.log_dir.mkdir(parents=True, exist_ok=True)
        return self.log_dir

    def _stop_execution_environments(self) -> None:
        if self.lambdas is not None:
            from sandbox.aws import awslambda

            awslambda.set_runner(None)
            self.lambdas.stop()
        if self._own_log_dir and self.log_dir is not None:
            shutil.rmtree(self.log_dir, ignore_errors=True)
            self.log_dir, self._own_log_dir = None, False

    def _stop_serving(self) -> None:
        self._server.should_exit = True
        for thread in self._threads:
            thread.join(5)

    def banner(self, tokens_file: str | None = None) -> str:
        """What the sandbox prints at start; the tokens go to ``tokens_file`` instead when one is given
        (scripts and tests read them there, and the log they keep holds no secret)."""
        lines = [
            f"Launchpod sandbox on {self.url}  (time scale {self.time_scale}: an EKS cluster takes "
            f"~{600 * self.time_scale:.0f} s)",
            f"  web UI   {self.url}/",
            f"  REST     {self.url}/api   (docs: {self.url}/api/docs)",
            f"  WebSocket ws://{self.host}:{self.port}/ws?token=<token>",
            f"  MCP      {self.url}/mcp",
            f"  aws CLI  aws --endpoint-url {self.aws_url} --region us-east-1 eks list-clusters"
            "   (AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing)",
        ]
        if tokens_file:
            lines.append(f"Bearer tokens (Authorization: Bearer <token>): admin, operator and viewer in {tokens_file}")
        else:
            lines.append("Bearer tokens (Authorization: Bearer <token>):")
            for role, token in self.tokens.as_dict().items():
                lines.append(f"  {role:<9}{token}")
        lines.append(
            f"Faults: POST {self.url}/api/sandbox/faults "
            '{"failNextEksCreate": true}, {"failNextHyperPodCreate": "capacity"}, {"throttle": 0.2} or '
            '{"deny": [{"function": "ccp-access-entry", "action": "eks:TagResource"}]} (admin token); '
            f"IAM decisions: GET {self.url}/api/sandbox/iam"
        )
        if self.lambdas is not None:
            lines.append(
                f"Lambda: each function in execution environments of its own; logs in {self.log_dir}, "
                f"cold starts: GET {self.url}/api/sandbox/lambda"
            )
        return "\n".join(lines)


@dataclass(frozen=True)
class Step:
    """One thing ``Sandbox.start`` starts: what it is called, the steps that must have started before it,
    and how to start and stop it."""

    name: str
    needs: tuple[str, ...]
    start: Callable[[Sandbox], None]
    stop: Callable[[Sandbox], None] | None = None


# What the sandbox starts, in order; each step names what it needs (``check_order`` holds the list to it).
STEPS: tuple[Step, ...] = (
    Step("environment", (), Sandbox._set_environment),
    # moto's backends are patched before mock_aws starts them
    Step("aws behaviour", ("environment",), Sandbox._install_aws),
    Step("quiet logs", (), Sandbox._quiet_logs),
    Step("moto", ("aws behaviour",), Sandbox._start_moto, Sandbox._stop_moto),
    # EKS starts an API server per cluster in the fleet; HyperPod's nodes join it
    Step("kubernetes fleet", ("aws behaviour",), Sandbox._start_fleet, Sandbox._stop_fleet),
    Step("hyperpod clock", ("kubernetes fleet",), Sandbox._start_hyperpod_clock, Sandbox._stop_hyperpod_clock),
    Step("controllers", ("kubernetes fleet",), Sandbox._start_controllers, Sandbox._stop_controllers),
    # Fluent Bit ships to moto's CloudWatch Logs
    Step("container insights", ("moto",), Sandbox._start_container_insights),
    # tables, roles, functions and state machines, made in moto from the registry
    Step("provision", ("moto",), Sandbox._provision),
    # the gate evaluates the roles' statements provision deployed
    Step("iam gate", ("provision",), Sandbox._gate_iam),
    Step("moto server", ("moto",), Sandbox._start_moto_server, Sandbox._stop_moto_server),
    # environments reach AWS at the moto server, as the functions' roles provision made
    Step(
        "execution environments",
        ("moto server", "provision", "iam gate"),
        Sandbox._start_execution_environments,
        Sandbox._stop_execution_environments,
    ),
    Step("tokens", (), Sandbox._issue_tokens),
    # the warm-up invokes the API function where requests will run it
    Step("warm-up", ("provision", "execution environments"), Sandbox._warm),
    Step("gateway", ("tokens", "warm-up"), Sandbox._serve, Sandbox._stop_serving),
)


def check_order(steps: tuple[Step, ...]) -> None:
    """Raise if a step comes before a step it needs, or needs one that does not exist."""
    names = {step.name for step in steps}
    started: set[str] = set()
    for step in steps:
        unknown = set(step.needs) - names
        if unknown:
            raise RuntimeError(f"Sandbox step {step.name!r} needs {sorted(unknown)}, which no step starts.")
        late = set(step.needs) - started
        if late:
            raise RuntimeError(f"Sandbox step {step.name!r} needs {sorted(late)} started before it.")
        started.add(step.name)
