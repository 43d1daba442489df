"""AMP's Prometheus-compatible query API: ``GET|POST /workspaces/<id>/api/v1/query_range`` (``query``,
``start``, ``end``, ``step``) and ``/api/v1/query`` (``query``, ``time``), SigV4-signed for the service
``aps`` ("Query using Prometheus-compatible APIs",
https://docs.aws.amazon.com/prometheus/latest/userguide/AMP-onboard-query-APIs.html; HTTP API shapes,
https://prometheus.io/docs/prometheus/latest/querying/api/). Answers ``{"status": "success", "data":
{"resultType": "matrix"|"vector", "result": [...]}}``; errors ``{"status": "error", "errorType",
"error"}`` with 400 (bad_data), 404 (no such workspace) or 403 (not signed for aps). Prometheus refuses a
range query of more than 11,000 points per series; so does this."""

from __future__ import annotations

import json
import math
import time
from typing import Any

from sandbox.aws.prometheus.promql import BadQuery, Grid, evaluate
from sandbox.aws.prometheus.tsdb import tsdb

MAX_POINTS = 11_000


class ApiError(Exception):
    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind = status, kind

    def body(self) -> dict[str, Any]:
        return {"status": "error", "errorType": self.kind, "error": str(self)}


def workspace_exists(workspace: str) -> bool:
    from moto.amp.models import amp_backends

    for account in list(amp_backends):
        for backend in list(amp_backends[account].values()):
            if workspace in backend.workspaces:
                return True
    return False


def _number(params: dict[str, str], name: str, default: float | None = None) -> float:
    raw = params.get(name)
    if raw is None or raw == "":
        if default is None:
            raise ApiError(400, "bad_data", f'invalid parameter "{name}": missing')
        return default
    try:
        return float(raw)
    except ValueError:
        raise ApiError(
            400, "bad_data", f'invalid parameter "{name}": cannot parse "{raw}" to a valid timestamp'
        ) from None


def _fmt(value: float) -> str:
    return "NaN" if math.isnan(value) else ("+Inf" if value == math.inf else f"{value:.15g}")


def _instant(ms: int) -> str:
    seconds, rest = divmod(ms, 1000)
    return str(seconds) if not rest else f"{seconds}.{rest:03d}".rstrip("0")


def query_range(workspace: str, params: dict[str, str]) -> str:
    """The answer's JSON text."""
    query = params.get("query") or ""
    start, end, step = _number(params, "start"), _number(params, "end"), _number(params, "step")
    if end < start:
        raise ApiError(400, "bad_data", 'invalid parameter "end": end timestamp must not be before start time')
    if step <= 0:
        raise ApiError(400, "bad_data", "zero or negative query resolution step widths are not accepted")
    # Prometheus works in milliseconds: instants start + k * step while they are <= end
    start_ms, end_ms, step_ms = round(start * 1000), round(end * 1000), max(1, round(step * 1000))
    count = (end_ms - start_ms) // step_ms + 1
    if count > MAX_POINTS:
        raise ApiError(400, "bad_data", "exceeded maximum resolution of 11,000 points per timeseries")
    try:
        vector = evaluate(query, lambda name: tsdb().select(workspace, name), Grid(start, step, count))
    except BadQuery as exc:
        raise ApiError(400, "bad_data", str(exc)) from exc
    # The body is written as text: 64 series of 1,441 points are 92,000 small lists otherwise, built and then
    # encoded (twice the time; the bench's 24-hour, 64-node query).
    # Prometheus writes an instant as seconds with at most millisecond decimals and none when whole
    # (strconv.AppendFloat(t/1000, 'f', -1): "1435781430", not "1435781430.0"); 92,000 of them in the bench
    instants = [_instant(start_ms + i * step_ms) for i in range(count)]
    parts = []
    for labels, values in vector:
        text = {v: json.dumps(_fmt(v)) for v in set(values) if v is not None}  # a series holds few values
        points = ",".join(f"[{t},{text[v]}]" for t, v in zip(instants, values, strict=True) if v is not None)
        if points:
            parts.append(f'{{"metric":{json.dumps(labels)},"values":[{points}]}}')
    return '{"status":"success","data":{"resultType":"matrix","result":[' + ",".join(parts) + "]}}"


def query(workspace: str, params: dict[str, str]) -> dict[str, Any]:
    at = _number(params, "time", time.time())
    try:
        vector = evaluate(params.get("query") or "", lambda name: tsdb().select(workspace, name), Grid(at, 1.0, 1))
    except BadQuery as exc:
        raise ApiError(400, "bad_data", str(exc)) from exc
    result = [{"metric": labels, "value": [at, _fmt(values[0])]} for labels, values in vector if values[0] is not None]
    return {"status": "success", "data": {"resultType": "vector", "result": result}}
