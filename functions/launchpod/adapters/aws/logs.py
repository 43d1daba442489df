"""CloudWatch Logs: a gone pod's container lines, read back from the log group Container Insights' Fluent
Bit ships to (FilterLogEvents with a JSON filter pattern on the record's ``kubernetes`` fields)."""

from __future__ import annotations

import json
from collections import deque

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code
from launchpod.domain.observability import ShippedLines


def _record(message: str) -> dict[str, object]:
    """Fluent Bit's cloudwatch_logs output sends the whole record as JSON (no log_key set), the line in "log"."""
    try:
        found = json.loads(message)
    except ValueError:
        return {"log": message}
    return found if isinstance(found, dict) else {"log": message}


class Logs:
    def __init__(self) -> None:
        self.logs = client("logs")

    def container_lines(self, group: str, pattern: str, tail: int, start_ms: int | None = None) -> ShippedLines | None:
        """The last ``tail`` lines matching ``pattern`` (one pod's, or the first pod's by name when the
        pattern names several), oldest first; None when the group or any matching event is missing."""
        kept: dict[tuple[str, str], deque[str]] = {}
        params: dict[str, object] = {"logGroupName": group, "filterPattern": pattern}
        if start_ms is not None:
            params["startTime"] = start_ms
        with aws_call("logs:FilterLogEvents"):
            try:
                for page in self.logs.get_paginator("filter_log_events").paginate(**params):
                    for event in page.get("events", []):
                        record = _record(str(event.get("message", "")))
                        meta = record.get("kubernetes")
                        meta = meta if isinstance(meta, dict) else {}
                        key = (str(meta.get("pod_name", "")), str(meta.get("container_name", "")))
                        kept.setdefault(key, deque(maxlen=tail)).append(str(record.get("log", "")).rstrip("\n"))
            except ClientError as exc:
                if error_code(exc) == "ResourceNotFoundException":
                    return None  # the log group does not exist: nothing was ever shipped
                raise
        if not kept:
            return None
        (pod, container), lines = sorted(kept.items())[0]
        return ShippedLines(pod=pod, container=container, lines=list(lines))
