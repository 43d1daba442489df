"""A job's MLflow run, read as the SageMaker MLflow plugin reads it: the tracking server's MLflow REST API,
the server named in x-mlflow-sm-tracking-server-arn, each request SigV4-signed for sagemaker-mlflow. A
local HTTP server plays the API (an experiment with runs, none, or a refusal)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from launchpod.adapters.aws.mlflow import Mlflow
from launchpod.domain.errors import PermanentError
from launchpod.domain.mlflow import MlflowRun
from launchpod.runtime.settings import settings

ARN = "arn:aws:sagemaker:us-east-1:111122223333:mlflow-tracking-server/lp-train"


class _Api(BaseHTTPRequestHandler):
    behaviour = "runs"
    seen: list[tuple[str, str, str, str]] = []

    def _answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        self.seen.append(
            (
                self.path,
                self.headers.get("x-mlflow-sm-tracking-server-arn", ""),
                body,
                self.headers.get("Authorization", ""),
            )
        )

    def do_GET(self) -> None:
        self._record()
        if self.behaviour == "denied":
            self._answer(
                403,
                {"error_code": "PERMISSION_DENIED", "message": "not authorized: sagemaker-mlflow:GetExperimentByName"},
            )
        elif self.behaviour == "none":
            self._answer(404, {"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "Could not find experiment"})
        else:
            self._answer(200, {"experiment": {"experiment_id": "7", "name": "my job"}})

    def do_POST(self) -> None:
        self._record()
        self._answer(200, {"runs": [{"info": {"run_id": "abc", "experiment_id": "7", "run_name": "my job"}}]})

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def api(monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("LAUNCHPOD_MLFLOW_ENDPOINT_URL", f"http://127.0.0.1:{server.server_address[1]}")
    settings.cache_clear()
    _Api.seen = []
    yield _Api
    server.shutdown()
    settings.cache_clear()


def test_the_newest_run_of_the_experiment_is_searched_on_the_named_server_with_sigv4(api) -> None:
    api.behaviour = "runs"
    run = Mlflow().latest_run(ARN, "my job")
    assert run == MlflowRun(run_id="abc", experiment_id="7", run_name="my job")
    (get_path, get_arn, _, auth), (post_path, post_arn, body, _) = api.seen
    assert get_path == "/api/2.0/mlflow/experiments/get-by-name?experiment_name=my%20job"
    assert post_path == "/api/2.0/mlflow/runs/search"
    assert get_arn == post_arn == ARN
    assert "/us-east-1/sagemaker-mlflow/aws4_request" in auth and "x-mlflow-sm-tracking-server-arn" in auth
    assert json.loads(body) == {"experiment_ids": ["7"], "max_results": 1, "order_by": ["attributes.start_time DESC"]}


def test_an_experiment_that_does_not_exist_yet_is_no_run(api) -> None:
    api.behaviour = "none"
    assert Mlflow().latest_run(ARN, "my job") is None
    assert len(api.seen) == 1  # runs are not searched


def test_a_refusal_is_permanent_and_names_the_action(api) -> None:
    api.behaviour = "denied"
    with pytest.raises(PermanentError, match="sagemaker-mlflow:GetExperimentByName on arn:aws:sagemaker"):
        Mlflow().latest_run(ARN, "my job")
