"""SageMaker managed MLflow tracking servers for the sandbox (moto has none), and the runs jobs log to them.

AWS (API reference: CreateMlflowTrackingServer, DescribeMlflowTrackingServer, ListMlflowTrackingServers,
DeleteMlflowTrackingServer, CreatePresignedMlflowTrackingServerUrl; botocore's model is the shape;
developer guide "Create an MLflow Tracking Server",
https://docs.aws.amazon.com/sagemaker/latest/dg/mlflow-create-tracking-server.html, and "Set up IAM
permissions for MLflow", .../mlflow-create-tracking-server-iam.html):

* Creation takes a while ("up to 25 minutes"; the sandbox: ``create_seconds`` simulated seconds, 1500 by
  default, at the sandbox's time scale): ``Creating`` then ``Created``; deletion ``Deleting`` then gone.
* ``RoleArn`` is a role SageMaker assumes to reach the artifact store: it must exist and trust
  ``sagemaker.amazonaws.com``; the caller needs ``iam:PassRole`` on it (sandbox.aws.iam.authz).
  ``ArtifactStoreUri`` is ``s3://bucket/prefix``; the bucket must exist.
* ``TrackingServerSize`` Small (the default), Medium or Large; ``MlflowVersion`` defaults to the newest.
* A name already in use is refused, and so is a server beyond the account's quota
  (``ResourceLimitExceeded``, the error the model lists; the sandbox's quota is ``limit``). Neither message
  is documented: the wording is ours. ``ResourceNotFound`` for a name that does not exist.
* CreatePresignedMlflowTrackingServerUrl: ``ExpiresInSeconds`` 5-300 (default 300),
  ``SessionExpirationDurationInSeconds`` 1800-43200; the URL can be used once.

Runs: what the SageMaker MLflow plugin (sagemaker-mlflow, with MLFLOW_TRACKING_URI set to the server's
ARN) would send. The sandbox's training emulation records one run per job (``start_run``, ``log_metric``)
and tests read them back with ``runs``. Experiments get MLflow's ids: "0" is the Default experiment every
server starts with, and each new one takes the next number (MLflow's SQL store). The tracking server's
MLflow REST API (experiments/get-by-name, runs/search) answers from these (``experiment_by_name``,
``search_runs``; sandbox.mlflow_controls serves them).
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from moto.core.responses import ActionResult
from moto.sagemaker.exceptions import ResourceNotFound, SagemakerClientError, ValidationError
from moto.sagemaker.models import SageMakerModelBackend
from moto.sagemaker.responses import SageMakerResponse

from sandbox.aws.core import once, patch
from sandbox.aws.iam.trust import role_by_arn, trusts_service
from sandbox.aws.sagemaker.common import drop_empty, invalid, paginate, request_params
from sandbox.aws.sagemaker.durations import sim_now
from sandbox.aws.state import STATE

_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,255}$")
SIZES = ("Small", "Medium", "Large")
VERSIONS = ("2.16.2", "3.0.0")  # the sandbox's offer; AWS lists its versions in the developer guide
_lock = threading.RLock()


class ResourceLimitExceeded(SagemakerClientError):
    code = "ResourceLimitExceeded"


@dataclass
class Run:
    run_id: str
    experiment: str
    name: str
    params: dict[str, str]
    metrics: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    experiment_id: str = "0"
    start_time: int = 0  # epoch milliseconds, as MLflow records it
    metric_times: dict[str, list[int]] = field(default_factory=dict)  # epoch ms of each logged value, as sent


@dataclass
class Server:
    name: str
    arn: str
    url: str
    artifact_store: str
    role_arn: str
    size: str
    version: str
    auto_registration: bool
    created: datetime
    started: float  # sim seconds
    deleting_since: float | None = None
    runs: list[Run] = field(default_factory=list)
    tags: list[dict[str, str]] = field(default_factory=list)  # moto's ListTags/AddTags read and extend it
    experiments: dict[str, str] = field(default_factory=lambda: {"Default": "0"})  # name -> MLflow's id

    def status(self, now: float) -> str:
        if self.deleting_since is not None:
            return "Deleting"
        return "Created" if now - self.started >= _state().settings["create_seconds"] else "Creating"


@dataclass
class MlflowState:
    """The tracking servers, and how long they take and how many an account may have."""

    servers: dict[tuple[str, str], dict[str, Server]] = field(
        default_factory=dict
    )  # (account, region) -> name -> server
    settings: dict[str, float] = field(
        default_factory=lambda: {"create_seconds": 1500.0, "delete_seconds": 300.0, "limit": 10}
    )


def _state() -> MlflowState:
    return STATE.of(MlflowState)


def settings() -> dict[str, float]:
    """``create_seconds`` and ``delete_seconds`` (simulated) and ``limit`` (servers per account), to change."""
    return _state().settings


def _of(backend: SageMakerModelBackend) -> dict[str, Server]:
    servers = _state().servers.setdefault((backend.account_id, backend.region_name), {})
    now = sim_now()
    for name in [n for n, s in servers.items() if s.deleting_since is not None]:
        if now - (servers[name].deleting_since or now) >= _state().settings["delete_seconds"]:
            del servers[name]
    return servers


def _find(backend: SageMakerModelBackend, name: str) -> Server:
    server = _of(backend).get(name)
    if server is None:
        raise ResourceNotFound(message=f"Tracking server {name} does not exist.")
    return server


def _role_problem(account: str, role_arn: str) -> str | None:
    role = role_by_arn(account, role_arn)
    if role is None:
        return f"The role {role_arn} does not exist."
    if trusts_service(role, "sagemaker.amazonaws.com"):
        return None
    return f"The role {role_arn} does not trust sagemaker.amazonaws.com; SageMaker cannot assume it."


def _bucket_exists(account: str, uri: str) -> bool:
    from moto.s3.models import s3_backends

    bucket = uri.removeprefix("s3://").split("/", 1)[0]
    return bucket in s3_backends[account]["global"].buckets


def create(backend: SageMakerModelBackend, p: dict[str, Any]) -> Server:
    name, uri, role = p.get("TrackingServerName") or "", p.get("ArtifactStoreUri") or "", p.get("RoleArn") or ""
    if not _NAME.match(name):
        raise ValidationError(message=f"TrackingServerName {name!r} must match [a-zA-Z0-9](-*[a-zA-Z0-9]){{0,255}}.")
    if not uri.startswith("s3://") or not uri.removeprefix("s3://").split("/", 1)[0]:
        raise ValidationError(message=f"ArtifactStoreUri {uri!r} must be an S3 URI, s3://bucket/prefix.")
    size = p.get("TrackingServerSize") or "Small"
    if size not in SIZES:
        raise ValidationError(message=f"TrackingServerSize must be one of {', '.join(SIZES)}.")
    version = p.get("MlflowVersion") or VERSIONS[-1]
    if version not in VERSIONS:
        raise ValidationError(message=f"MlflowVersion {version} is not offered; choose one of {', '.join(VERSIONS)}.")
    problem = _role_problem(backend.account_id, role)
    if problem:
        raise ValidationError(message=problem)
    if not _bucket_exists(backend.account_id, uri):
        raise ValidationError(message=f"The artifact store bucket of {uri} does not exist.")
    with _lock:
        servers = _of(backend)
        if name in servers:
            raise ValidationError(message=f"A tracking server named {name} already exists.")
        if len(servers) >= _state().settings["limit"]:
            raise ResourceLimitExceeded(f"The account has {len(servers)} tracking servers, its limit.")
        server_id = uuid.uuid4().hex[:12]
        server = Server(
            name=name,
            arn=f"arn:aws:sagemaker:{backend.region_name}:{backend.account_id}:mlflow-tracking-server/{name}",
            url=f"https://t-{server_id}.{backend.region_name}.experiments.sagemaker.aws",
            artifact_store=uri,
            role_arn=role,
            size=size,
            version=version,
            auto_registration=bool(p.get("AutomaticModelRegistration")),
            created=datetime.now(UTC),
            started=sim_now(),
            tags=[{"Key": t["Key"], "Value": t["Value"]} for t in p.get("Tags") or []],
        )
        servers[name] = server
    return server


def describe(server: Server) -> dict[str, Any]:
    return {
        "TrackingServerArn": server.arn,
        "TrackingServerName": server.name,
        "ArtifactStoreUri": server.artifact_store,
        "TrackingServerSize": server.size,
        "MlflowVersion": server.version,
        "RoleArn": server.role_arn,
        "TrackingServerStatus": server.status(sim_now()),
        "IsActive": "Active",
        "TrackingServerUrl": server.url,
        "AutomaticModelRegistration": server.auto_registration,
        "CreationTime": server.created,
        "LastModifiedTime": server.created,
    }


def presigned_url(server: Server, p: dict[str, Any]) -> str:
    expires = int(p.get("ExpiresInSeconds") or 300)
    session = int(p.get("SessionExpirationDurationInSeconds") or 43200)
    if not 5 <= expires <= 300:
        raise ValidationError(message="ExpiresInSeconds must be between 5 and 300.")
    if not 1800 <= session <= 43200:
        raise ValidationError(message="SessionExpirationDurationInSeconds must be between 1800 and 43200.")
    status = server.status(sim_now())
    if status != "Created":
        raise ValidationError(message=f"Tracking server {server.name} is {status}; wait until it is Created.")
    return f"{server.url}/auth?authToken={uuid.uuid4().hex}{uuid.uuid4().hex}"


# ----------------------------------------------------------------------------- runs (the plugin's side)


def server_by_arn(arn: str, deleting: bool = False) -> Server | None:
    """The server ``arn`` names; one being deleted only with ``deleting`` (it still answers ListTags)."""
    with _lock:
        for servers in _state().servers.values():
            for server in servers.values():
                if server.arn == arn and (deleting or server.deleting_since is None):
                    return server
    return None


def start_run(arn: str, experiment: str, name: str, params: dict[str, str]) -> Run | None:
    """A run on the server ``arn`` (None when there is no such server, or it is not Created yet)."""
    server = server_by_arn(arn)
    if server is None or server.status(sim_now()) != "Created":
        return None
    with _lock:
        found = next((r for r in server.runs if r.experiment == experiment and r.name == name), None)
        if found is None:
            # the plugin's mlflow.set_experiment creates the experiment the first time it is named
            experiment_id = server.experiments.setdefault(experiment, str(len(server.experiments)))
            found = Run(uuid.uuid4().hex, experiment, name, dict(params), {}, experiment_id, int(time.time() * 1000))
            server.runs.append(found)
        return found


def log_metric(run: Run, key: str, value: float, step: int) -> None:
    with _lock:
        run.metrics.setdefault(key, []).append((step, value))
        run.metric_times.setdefault(key, []).append(int(time.time() * 1000))


def metric_history(arn: str, run_id: str, key: str) -> list[dict[str, Any]] | None:
    """MLflow's GetMetricHistory on the server ``arn``: every value logged for ``key`` in the run, in order, as
    ``{key, value, timestamp (epoch ms), step}``; None when the run does not exist (RESOURCE_DOES_NOT_EXIST)."""
    server = server_by_arn(arn)
    with _lock:
        run = next((r for r in (server.runs if server else []) if r.run_id == run_id), None)
        if run is None:
            return None
        times = run.metric_times.get(key) or []
        return [
            {"key": key, "value": v, "timestamp": t, "step": s}
            for (s, v), t in zip(run.metrics.get(key) or [], times, strict=False)
        ]


def experiment_by_name(arn: str, name: str) -> dict[str, Any] | None:
    """MLflow's GetExperimentByName on the server ``arn``: the experiment, or None (RESOURCE_DOES_NOT_EXIST)."""
    server = server_by_arn(arn)
    with _lock:
        found = server.experiments.get(name) if server else None
        if server is None or found is None:
            return None
        return {
            "experiment_id": found,
            "name": name,
            "artifact_location": f"{server.artifact_store.rstrip('/')}/{found}",
            "lifecycle_stage": "active",
        }


def search_runs(arn: str, experiment_ids: list[str], max_results: int) -> list[dict[str, Any]]:
    """MLflow's SearchRuns on the server ``arn``, newest first (``order_by attributes.start_time DESC``)."""
    server = server_by_arn(arn)
    with _lock:
        found = [r for r in (server.runs if server else []) if r.experiment_id in experiment_ids]
        found.sort(key=lambda r: r.start_time, reverse=True)
        return [
            {
                "info": {
                    "run_id": r.run_id,
                    "run_uuid": r.run_id,
                    "run_name": r.name,
                    "experiment_id": r.experiment_id,
                    "status": "RUNNING",
                    "start_time": r.start_time,
                    "lifecycle_stage": "active",
                },
                "data": {"params": [{"key": k, "value": v} for k, v in r.params.items()]},
            }
            for r in found[:max_results]
        ]


def runs(arn: str) -> list[Run]:
    server = server_by_arn(arn)
    with _lock:
        return list(server.runs) if server else []


# ----------------------------------------------------------------------------- response methods


def _r_create(self: SageMakerResponse) -> ActionResult:
    return ActionResult({"TrackingServerArn": create(self.sagemaker_backend, request_params(self)).arn})


def _r_describe(self: SageMakerResponse) -> ActionResult:
    return ActionResult(describe(_find(self.sagemaker_backend, self._get_param("TrackingServerName"))))


def _r_list(self: SageMakerResponse) -> ActionResult:
    status = self._get_param("TrackingServerStatus")
    items = [describe(s) for s in _of(self.sagemaker_backend).values()]
    items = [i for i in items if not status or i["TrackingServerStatus"] == status]
    items.sort(key=lambda i: i["CreationTime"], reverse=self._get_param("SortOrder") != "Ascending")
    page, token = paginate(items, self._get_param("MaxResults"), self._get_param("NextToken"))
    keys = ("TrackingServerArn", "TrackingServerName", "CreationTime", "LastModifiedTime")
    summaries = [{k: i[k] for k in (*keys, "TrackingServerStatus", "IsActive", "MlflowVersion")} for i in page]
    return ActionResult(drop_empty({"TrackingServerSummaries": summaries, "NextToken": token}))


def _r_delete(self: SageMakerResponse) -> ActionResult:
    server = _find(self.sagemaker_backend, self._get_param("TrackingServerName"))
    with _lock:
        if server.deleting_since is None:
            server.deleting_since = sim_now()
    return ActionResult({"TrackingServerArn": server.arn})


def _r_presigned(self: SageMakerResponse) -> ActionResult:
    params = request_params(self)
    server = _find(self.sagemaker_backend, params.get("TrackingServerName") or "")
    return ActionResult({"AuthorizedUrl": presigned_url(server, params)})


def reset() -> None:
    with _lock:
        _state().servers.clear()


@once
def install() -> None:
    """Add the tracking-server calls to moto's SageMaker and let ListTags/AddTags find servers (idempotent)."""
    _install_responses()
    previous = SageMakerModelBackend._get_resource_from_arn

    def from_arn(self: SageMakerModelBackend, arn: str) -> Any:
        if ":mlflow-tracking-server/" in arn:  # moto has no tracking servers: this module keeps them
            server = server_by_arn(arn, deleting=True)
            if server is None or server.arn.split(":")[4] != self.account_id:
                raise invalid(f"Resource {arn} does not exist.")
            return server
        return previous(self, arn)

    patch(SageMakerModelBackend, "_get_resource_from_arn", from_arn)


def _install_responses() -> None:
    patch(SageMakerResponse, "create_mlflow_tracking_server", _r_create)
    patch(SageMakerResponse, "describe_mlflow_tracking_server", _r_describe)
    patch(SageMakerResponse, "list_mlflow_tracking_servers", _r_list)
    patch(SageMakerResponse, "delete_mlflow_tracking_server", _r_delete)
    patch(SageMakerResponse, "create_presigned_mlflow_tracking_server_url", _r_presigned)


def _job_env(job: dict[str, Any]) -> dict[str, str]:
    spec = job.get("spec") or {}
    try:
        if "replicaSpecs" in spec:
            template = spec["replicaSpecs"][0]["template"]["spec"]
        else:
            template = spec["rayClusterSpec"]["workerGroupSpecs"][0]["template"]["spec"]
        env = template["containers"][0].get("env") or []
    except (KeyError, IndexError, TypeError):
        return {}
    return {str(e.get("name")): str(e.get("value", "")) for e in env if isinstance(e, dict)}


def log_step(job: dict[str, Any], step: int, metrics: dict[str, float]) -> None:
    """What the plugin sends for one training step of ``job``, when its pods have MLFLOW_TRACKING_URI: a run
    named after the job (params: the job's kind and recipe) in MLFLOW_EXPERIMENT_NAME, and each metric."""
    env = _job_env(job)
    arn = env.get("MLFLOW_TRACKING_URI")
    if not arn:
        return
    labels = (job.get("metadata") or {}).get("labels") or {}
    params = {"kind": str(job.get("kind", "")), "recipe": str(labels.get("launchpod.io/recipe", "custom"))}
    run = start_run(arn, env.get("MLFLOW_EXPERIMENT_NAME") or "Default", job["metadata"]["name"], params)
    if run is not None:
        for key, value in metrics.items():
            log_metric(run, key, value, step)


def describe_runs(name: str) -> list[dict[str, Any]]:
    """The runs of the tracking server named ``name`` in any account (the sandbox's control reads them)."""
    with _lock:
        found = [s for servers in _state().servers.values() for s in servers.values() if s.name == name]
        return [
            {
                "runId": r.run_id,
                "experimentId": r.experiment_id,
                "experiment": r.experiment,
                "runName": r.name,
                "params": dict(r.params),
                "metrics": {k: [{"step": s, "value": v} for s, v in points] for k, points in r.metrics.items()},
            }
            for s in found
            for r in s.runs
        ]
