"""Amazon Managed Service for Prometheus: a workspace's Prometheus-compatible query API.

``GET <prometheusEndpoint>api/v1/query_range?query=&start=&end=&step=`` and ``.../api/v1/query``, each request
SigV4-signed for the service ``aps`` with the caller's credentials (IAM action ``aps:QueryMetrics``), as "Query
using Prometheus-compatible APIs" describes
(https://docs.aws.amazon.com/prometheus/latest/userguide/AMP-onboard-query-APIs.html). The answer is
Prometheus' HTTP API's (https://prometheus.io/docs/prometheus/latest/querying/api/): ``data.result`` is a
list of ``{"metric": labels, "values": [[unix seconds, "value"], ...]}`` for a range query."""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlencode

from botocore.awsrequest import AWSRequest

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call
from launchpod.adapters.aws.signed_http import SignedHttp
from launchpod.adapters.aws.tags import carries
from launchpod.domain.errors import Conflict, PermanentError, RetryableError
from launchpod.domain.metrics.series import RangeSeries
from launchpod.domain.metrics.workspaces import PrometheusWorkspace
from launchpod.runtime.settings import settings

SERVICE = "aps"
_HOST = re.compile(r"^https://aps-workspaces\.(?P<region>[a-z0-9-]+)\.amazonaws\.com")


@contextmanager
def _collector_paused() -> Iterator[None]:
    """A day of one-minute points for 64 nodes is 92,000 ``[time, "value"]`` lists, decoded and then made
    (time, value) pairs: each allocation counts toward the cyclic collector's thresholds, and the collections
    they trigger walk every tracked object in the process (boto3's and pydantic's included), four fifths of the
    decode's time, for containers that cannot form a cycle. The collector is paused meanwhile and resumed after
    (https://docs.python.org/3/library/gc.html#gc.disable, #gc.set_threshold)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _decoded(text: str) -> Any:
    with _collector_paused():
        return json.loads(text)


def range_series(result: dict[str, Any]) -> RangeSeries:
    """One series of a range query's matrix, ``{"metric": labels, "values": [[unix seconds, "value"], ...]}``,
    as Launchpod reads it: labels as strings, each value a float (Prometheus writes NaN and infinities as
    "NaN", "+Inf", "-Inf", which float() reads)."""
    return RangeSeries(
        labels={str(k): str(v) for k, v in (result.get("metric") or {}).items()},
        samples=tuple((float(t), float(raw)) for t, raw in result.get("values") or ()),
    )


def prometheus_workspace(described: dict[str, Any]) -> PrometheusWorkspace:
    """DescribeWorkspace's ``workspace`` as Launchpod reads it."""
    return PrometheusWorkspace(
        id=str(described["workspaceId"]),
        arn=str(described["arn"]),
        status=str((described.get("status") or {}).get("statusCode")),
        endpoint=described.get("prometheusEndpoint"),
    )


class Amp:
    def __init__(self) -> None:
        self._http = SignedHttp(SERVICE, timeout=30)

    def _url(self, endpoint: str) -> tuple[str, str]:
        """The workspace's query base URL and region (the sandbox's base in place of AWS's host)."""
        m = _HOST.match(endpoint)
        region = m.group("region") if m else settings().region
        base = endpoint.rstrip("/")
        override = settings().amp_endpoint_url
        if m and override:
            base = override.rstrip("/") + base[m.end() :]
        return base, region

    def _get(self, endpoint: str, api: str, params: dict[str, str]) -> list[dict[str, Any]]:
        base, region = self._url(endpoint)
        url = f"{base}/api/v1/{api}?{urlencode(params)}"
        status, text = self._http.send(AWSRequest("GET", url), region, f"aps:QueryMetrics on {endpoint}")
        try:
            found = _decoded(text)
        except ValueError:
            found = {}
        message = found.get("error") or found.get("message") or text[:300]
        if status in (401, 403):
            raise PermanentError(f"aps:QueryMetrics on {endpoint} was denied: {message}")
        if status == 404:
            raise Conflict(
                f"The Amazon Managed Prometheus workspace {endpoint} that the observability add-on writes to does not"
                f" exist: {message}"
            )
        if status == 400:
            raise PermanentError(f"Amazon Managed Prometheus refused the query: {message}")
        if status >= 400 or found.get("status") != "success":
            raise RetryableError(f"aps:QueryMetrics on {endpoint}: {status} {message}")
        return list((found.get("data") or {}).get("result") or [])

    def query_range(self, endpoint: str, query: str, start: float, end: float, step: float) -> list[RangeSeries]:
        """The matrix of ``query`` from ``start`` to ``end`` every ``step`` seconds."""
        found = self._get(
            endpoint, "query_range", {"query": query, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:g}"}
        )
        with _collector_paused():
            return [range_series(r) for r in found]

    def query(self, endpoint: str, query: str, at: float) -> list[dict[str, Any]]:
        """The instant vector of ``query`` at ``at``."""
        return self._get(endpoint, "query", {"query": query, "time": f"{at:.3f}"})


class AmpWorkspaces:
    """The workspaces themselves (the ``amp`` control plane: ListWorkspaces, CreateWorkspace, DescribeWorkspace;
    https://docs.aws.amazon.com/prometheus/latest/APIReference/API_CreateWorkspace.html). A workspace is ACTIVE
    some seconds after CreateWorkspace answers 202 with CREATING."""

    def __init__(self) -> None:
        self.amp = client("amp")

    def owned(self, alias: str, tags: dict[str, str]) -> PrometheusWorkspace | None:
        """The workspace with this alias that carries every tag in ``tags`` (one Launchpod made), described;
        None when there is none."""
        with aws_call("aps:ListWorkspaces"):
            listed = self.amp.list_workspaces(alias=alias)["workspaces"]
        for summary in listed:
            if summary.get("alias") != alias or summary.get("status", {}).get("statusCode") == "DELETING":
                continue
            with aws_call("aps:DescribeWorkspace"):
                found = self.amp.describe_workspace(workspaceId=summary["workspaceId"])["workspace"]
            if carries(found.get("tags") or {}, tags):
                return prometheus_workspace(found)
        return None

    def create(self, alias: str, tags: dict[str, str]) -> PrometheusWorkspace:
        """A new workspace with tags (tag-on-create); its description (CREATING at first)."""
        with aws_call("aps:CreateWorkspace"):
            made = self.amp.create_workspace(alias=alias, tags=tags)
        with aws_call("aps:DescribeWorkspace"):
            return prometheus_workspace(self.amp.describe_workspace(workspaceId=made["workspaceId"])["workspace"])
