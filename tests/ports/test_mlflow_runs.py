"""MlflowRuns' contract: the in-memory fake (tests/fakes/mlflow.py Runs) and adapters.aws.mlflow reading the
sandbox's MLflow REST API (sandbox.gateway.admin.mlflow's routes, served on a local port as the SageMaker MLflow
plugin's endpoint) answer each case alike: an experiment nobody logged to, the newest run of an experiment with
its id, name and experiment, and one experiment's run not answered for another."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from launchpod.adapters.aws.mlflow import Mlflow
from launchpod.domain.mlflow import MetricPoint, MlflowRun
from launchpod.usecases.ports import MlflowRuns

from sandbox.aws import mlflow as sandbox_mlflow
from sandbox.aws import sagemaker as hyperpod
from sandbox.gateway.admin.mlflow import mlflow_api_routes
from tests.fakes.mlflow import Runs
from tests.ports.api_support import served
from tests.sandbox.aws.support import wait_until

TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
# The port; the tracking server's ARN; how a run starts (experiment, run name), each newer than the last,
# answering how it logs a metric (key, value, step).
Log = Callable[[str, float, int], None]
Side = tuple[MlflowRuns, str, Callable[[str, str], Log]]


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The sandbox's MLflow REST API on a local port, Launchpod's LAUNCHPOD_MLFLOW_ENDPOINT_URL pointing there."""
    with served(mlflow_api_routes(), monkeypatch, "LAUNCHPOD_MLFLOW_ENDPOINT_URL", "/sagemaker-mlflow"):
        yield


@pytest.fixture(params=["fake", "sagemaker"])
def side(request: pytest.FixtureRequest) -> Iterator[Side]:
    arn = "arn:aws:sagemaker:us-east-1:123456789012:mlflow-tracking-server/lp-train"
    if request.param == "fake":
        fake, experiments = Runs({}), {"Default": "0"}

        def start_fake(experiment: str, name: str) -> Log:
            experiment_id = experiments.setdefault(experiment, str(len(experiments)))
            run = {"run_id": f"r{len(fake.runs) + 1}", "run_name": name, "status": "RUNNING"}
            fake.runs[(arn, experiment)] = {**run, "experiment_id": experiment_id}
            return lambda key, value, step: fake.log(arn, run["run_id"], key, value, step, 1_800_000_000_000 + step)

        yield fake, arn, start_fake
        return
    client = request.getfixturevalue("client")
    request.getfixturevalue("api")
    hyperpod.install()  # the sandbox's SageMaker, managed MLflow included
    sandbox_mlflow.settings()["create_seconds"] = 60.0  # 0.6 s at the tests' time scale
    role = client("iam").create_role(RoleName="mlflow", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    client("s3").create_bucket(Bucket="sagemaker-shared")
    sm = client("sagemaker")
    arn = sm.create_mlflow_tracking_server(
        TrackingServerName="lp-train", ArtifactStoreUri="s3://sagemaker-shared/mlflow/", RoleArn=role
    )["TrackingServerArn"]
    wait_until(
        lambda: sm.describe_mlflow_tracking_server(TrackingServerName="lp-train")["TrackingServerStatus"] == "Created",
        reason="lp-train was not Created",
    )
    runs: list[Any] = []

    def start(experiment: str, name: str) -> Log:
        run = sandbox_mlflow.start_run(arn, experiment, name, {})
        assert run is not None
        # MLflow orders by start time in milliseconds: the runs a test starts back to back are spaced apart
        run.start_time = max([r.start_time for r in runs] + [run.start_time]) + len(runs) + 1
        runs.append(run)
        return lambda key, value, step: sandbox_mlflow.log_metric(run, key, value, step)

    yield Mlflow(), arn, start
    sandbox_mlflow.settings()["create_seconds"] = 1500.0
    sandbox_mlflow.reset()


def test_an_experiment_nobody_logged_to_has_no_run(side: Side) -> None:
    runs, arn, _ = side
    assert runs.latest_run(arn, "my job") is None


def test_the_newest_run_of_an_experiment_is_answered_with_its_id_name_and_experiment(side: Side) -> None:
    runs, arn, start = side
    start("my job", "attempt-1")
    start("my job", "attempt-2")
    found = runs.latest_run(arn, "my job")
    assert isinstance(found, MlflowRun)
    assert found.run_name == "attempt-2"
    assert found.run_id and found.experiment_id


def test_one_experiments_run_is_not_answered_for_another(side: Side) -> None:
    runs, arn, start = side
    start("job-a", "a-1")
    start("job-b", "b-1")
    a, b = runs.latest_run(arn, "job-a"), runs.latest_run(arn, "job-b")
    assert a is not None and b is not None
    assert (a.run_name, b.run_name) == ("a-1", "b-1")
    assert a.experiment_id != b.experiment_id
    assert runs.latest_run(arn, "job-c") is None


def test_a_runs_metric_history_is_every_logged_value_in_order_with_its_step_and_time(side: Side) -> None:
    runs, arn, start = side
    log = start("my job", "attempt-1")
    for step, loss in enumerate((2.5, 2.1, 1.8), start=1):
        log("loss", loss, step)
    found = runs.latest_run(arn, "my job")
    assert found is not None
    history = runs.metric_history(arn, found.run_id, "loss")
    assert all(isinstance(m, MetricPoint) and m.key == "loss" for m in history)
    assert [(m.step, m.value) for m in history] == [(1, 2.5), (2, 2.1), (3, 1.8)]
    assert all(m.timestamp_ms > 0 for m in history)
    assert runs.metric_history(arn, found.run_id, "tokens_per_second") == []
