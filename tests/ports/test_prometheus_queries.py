"""PrometheusQueries' contract: the in-memory fake (tests/fakes/prometheus.py) and adapters.aws.amp reading the
sandbox's AMP query API (sandbox.gateway.admin.amp's routes on a local port, in place of
aps-workspaces.<region>.amazonaws.com, each request SigV4-signed for aps) answer alike: a gauge's last sample at
each step, labels as written, nothing for a metric no one wrote, and a workspace that does not exist refused."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator

import pytest
from launchpod.adapters.aws.amp import Amp
from launchpod.domain.errors import Conflict
from launchpod.domain.metrics.series import RangeSeries
from launchpod.usecases.ports import PrometheusQueries

from sandbox.aws.prometheus.tsdb import tsdb
from sandbox.gateway.admin.amp import amp_api_routes
from tests.fakes.prometheus import Prometheus
from tests.ports.api_support import served

NOW = float(int(time.time()))
LABELS = {"Hostname": "hyperpod-i-0123456789abcdef0", "gpu": "0"}
SAMPLES = [(NOW - 120, 0.0), (NOW - 60, 97.0), (NOW - 30, 0.0)]
QUERY = 'DCGM_FI_DEV_GPU_UTIL{Hostname="hyperpod-i-0123456789abcdef0"}'
# The port; its workspace endpoint (prometheusEndpoint as DescribeWorkspace answers it).
Side = tuple[PrometheusQueries, str]


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with served(amp_api_routes(), monkeypatch, "LAUNCHPOD_AMP_ENDPOINT_URL", "/aps-workspaces"):
        yield


@pytest.fixture(params=["fake", "amp"])
def side(request: pytest.FixtureRequest) -> Iterator[Side]:
    if request.param == "fake":
        endpoint = "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-fake/"
        series = [{"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", **LABELS}, "samples": SAMPLES}]
        yield Prometheus({endpoint: {QUERY: series}}), endpoint
        return
    client: Callable[..., object] = request.getfixturevalue("client")
    request.getfixturevalue("api")
    amp = client("amp")
    workspace = amp.create_workspace(alias="contract")["workspaceId"]  # type: ignore[attr-defined]
    endpoint = amp.describe_workspace(workspaceId=workspace)["workspace"]["prometheusEndpoint"]  # type: ignore[attr-defined]
    for t, value in SAMPLES:
        tsdb().gauge(workspace, {"__name__": "DCGM_FI_DEV_GPU_UTIL", **LABELS}, t, value)
    yield Amp(), endpoint
    tsdb().drop(workspace)


def test_a_range_answers_the_last_sample_at_each_step_with_its_labels(side: Side) -> None:
    port, endpoint = side
    (found,) = port.query_range(endpoint, QUERY, NOW - 150, NOW, 30)
    assert isinstance(found, RangeSeries)
    assert found.labels == {"__name__": "DCGM_FI_DEV_GPU_UTIL", **LABELS}
    assert list(found.samples) == [
        (NOW - 120, 0.0),
        (NOW - 90, 0.0),
        (NOW - 60, 97.0),
        (NOW - 30, 0.0),
        (NOW, 0.0),
    ]
    assert gc.isenabled()  # the adapter pauses the collector while it decodes a large answer, never for good


def test_a_metric_no_one_wrote_answers_no_series(side: Side) -> None:
    port, endpoint = side
    assert port.query_range(endpoint, 'DCGM_FI_DEV_GPU_UTIL{Hostname="elsewhere"}', NOW - 60, NOW, 30) == []


def test_a_workspace_that_does_not_exist_is_refused(side: Side) -> None:
    port, endpoint = side
    gone = endpoint.rstrip("/").rpartition("/")[0] + "/ws-00000000-0000-0000-0000-000000000000/"
    with pytest.raises(Conflict, match="does not exist"):
        port.query_range(gone, QUERY, NOW - 60, NOW, 30)
