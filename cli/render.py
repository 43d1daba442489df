"""What a command prints: a table for people (kubectl's plain aligned columns), or the API's JSON as is.

A list view (``items``) is a table of a few columns: the ones named below for the views people read most,
else the first scalar fields of its rows. One object is its scalar fields as ``key: value`` lines, then
each list of objects in it as a table (an operation's phases, a job's pods). A plan, a no-op and an
accepted operation each have a short form of their own; a log is its lines.
"""

from __future__ import annotations

import json
import re
from typing import Any, TextIO

# Response model -> the columns of its rows (dotted paths reach into nested objects).
COLUMNS: dict[str, tuple[str, ...]] = {
    "ClusterListView": ("name", "eks.status", "hyperpod.status", "source", "activeOperationId", "createdAt"),
    "OperationListView": ("id", "kind", "target", "status", "createdBy", "createdAt"),
    "NodeListView": (
        "nodeId",
        "instanceGroup",
        "instanceType",
        "availabilityZone",
        "instanceStatus",
        "ready",
        "healthStatus",
        "gpusAllocated",
    ),
    "InstanceGroupListView": ("instanceGroup", "instanceType", "currentCount", "targetCount", "status", "capacityType"),
    "InstanceTypeListView": (
        "instanceType",
        "gpus",
        "gpuModel",
        "vCpu",
        "memoryInGiB",
        "efaInterfaces",
        "availabilityZones",
    ),
    "EndpointListView": ("endpoint", "kind", "status", "readyReplicas", "desiredReplicas", "model"),
    "FeatureListView": ("name", "enabled", "status", "version", "blockedBy"),
    "DependencyListView": ("name", "kind", "pinned", "installed", "state", "drift"),
    "ClusterEventListView": ("time", "level", "resourceType", "instanceGroup", "nodeId", "description"),
    "IncidentListView": ("id", "state", "nodeId", "faultType", "nextStep", "lastEventAt"),
    "TeamListView": ("team", "namespace", "status", "fairShareWeight", "queueReady"),
    "OfferingListView": (
        "offeringId",
        "region",
        "availabilityZone",
        "startTime",
        "endTime",
        "upfrontFee",
        "currencyCode",
    ),
    "ExtensionOfferingListView": ("offeringId", "startDate", "endDate", "durationHours", "upfrontFee", "currencyCode"),
    "TrainingPlanListView": (
        "name",
        "status",
        "instanceType",
        "availabilityZone",
        "startTime",
        "endTime",
        "availableInstanceCount",
        "totalInstanceCount",
    ),
    "SpaceListView": ("spaceName", "owner", "ide", "status", "gpus", "instanceGroup"),
    "ModelListView": ("repoId", "storageName", "files", "sizeBytes", "path"),
}
# A list inside one object -> its columns.
NESTED_COLUMNS: dict[str, tuple[str, ...]] = {
    "phases": ("status", "name", "title", "attempts", "message"),
    "steps": ("action", "target", "phase", "reason"),
    "plan": ("action", "target", "phase", "reason"),
    "pods": ("name", "phase", "kubernetesNode", "availabilityZone", "restarts"),
}
MAX_COLUMNS = 6
MAX_CELL = 70
_ISO = re.compile(r"^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)?$")


def _get(row: dict[str, Any], path: str) -> Any:
    value: Any = row
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def cell(value: Any, limit: int = MAX_CELL) -> str:
    if value is None or value == "" or value == []:
        text = "-"
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, list):
        flat = all(not isinstance(v, dict | list) for v in value)
        text = ", ".join(cell(v) for v in value) if flat else f"{len(value)} items"
    elif isinstance(value, dict):
        text = json.dumps(value, separators=(",", ":"))
    else:
        text = str(value)
        stamp = _ISO.match(text)
        if stamp:
            text = f"{stamp.group(1)} {stamp.group(2)}" + (" UTC" if stamp.group(4) in ("Z", "+00:00") else "")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def default_columns(rows: list[dict[str, Any]]) -> tuple[str, ...]:
    """The first scalar fields of the rows (a list of scalars counts: it prints joined)."""
    keys: list[str] = []
    for row in rows:
        for key, value in row.items():
            if key not in keys and (_scalar(value) or (isinstance(value, list) and all(_scalar(v) for v in value))):
                keys.append(key)
    return tuple(keys[:MAX_COLUMNS])


def size(count: int) -> str:
    """A byte count as people read it: ``1253`` -> ``1.2 KiB``."""
    value, unit = float(count), "B"
    for larger in ("KiB", "MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, larger
    return f"{count} B" if unit == "B" else f"{value:.1f} {unit}"


def _shown(column: str, value: Any) -> Any:
    """A field's value as its column shows it: a ``...Bytes`` count as a size."""
    return size(value) if column.endswith("Bytes") and isinstance(value, int) else value


def heading(column: str) -> str:
    """``eks.status`` -> ``EKS STATUS``, ``activeOperationId`` -> ``ACTIVE OPERATION ID``, ``sizeBytes`` ->
    ``SIZE`` (its cells say their unit)."""
    # GiB is one word, not "Gi B"
    plain = column.removesuffix("Bytes").replace("GiB", "Gib").replace("vCpu", "Vcpu")
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r" \1", plain).replace(".", " ").upper()


def table(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    """Columns padded to their widest cell, headers in capitals, as ``kubectl get`` prints. A long cell is cut
    to keep the columns after it in line; the last column's cells are whole (a plan's reason, an event's
    description), since nothing follows them."""
    header = [heading(c) for c in columns]
    last = len(columns) - 1
    body = [
        [cell(_shown(c, _get(row, c)), MAX_CELL if i < last else 10_000) for i, c in enumerate(columns)] for row in rows
    ]
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(header)]
    lines = ["   ".join(v.ljust(widths[i]) for i, v in enumerate(line)).rstrip() for line in [header, *body]]
    return "\n".join(lines)


def _object(view: dict[str, Any], out: TextIO) -> None:
    scalars = {
        k: v
        for k, v in view.items()
        if not isinstance(v, dict | list) or (isinstance(v, list) and all(_scalar(i) for i in v))
    }
    nested = {k: v for k, v in view.items() if isinstance(v, dict) and v}
    tables = {k: v for k, v in view.items() if isinstance(v, list) and v and all(isinstance(i, dict) for i in v)}
    width = max((len(k) for k in [*scalars, *nested]), default=0)
    for key, value in scalars.items():
        out.write(f"{key.ljust(width)}  {cell(value, 10_000)}\n")
    for key, value in nested.items():
        flat = ", ".join(f"{k}={cell(v, 200)}" for k, v in value.items() if not isinstance(v, dict | list))
        out.write(f"{key.ljust(width)}  {flat or cell(value, 200)}\n")
    for key, rows in tables.items():
        out.write(f"\n{key}:\n")
        out.write(table(rows, NESTED_COLUMNS.get(key) or default_columns(rows)) + "\n")


def plan(view: dict[str, Any], out: TextIO) -> None:
    steps = view.get("steps") or []
    out.write(f"Dry run on {view.get('target')}: {len(steps)} step(s) would run; nothing was started.\n")
    if steps:
        out.write(table(steps, NESTED_COLUMNS["steps"]) + "\n")
    for warning in view.get("warnings") or []:
        out.write(f"warning: {warning}\n")


def show(view: dict[str, Any], response_model: str, out: TextIO, noun: str = "items") -> None:
    """``view`` for people."""
    status = view.get("status")
    if status == "PLANNED" and "steps" in view:
        plan(view, out)
    elif status == "NOOP":
        out.write(f"{view.get('message') or 'No changes'}: nothing to do, no operation was started.\n")
    elif status == "ACCEPTED" and isinstance(view.get("operation"), dict):
        op = view["operation"]
        out.write(f"Started {op['kind']} on {op['target']}: operation {op['id']} ({op['status']}).\n")
        for note in view.get("notes") or []:
            out.write(f"note: {note}\n")
    elif isinstance(view.get("lines"), list) and all(isinstance(line, str) for line in view["lines"]):
        # a log: its lines as they are, as kubectl logs prints them
        out.writelines(line + "\n" for line in view["lines"])
        if view.get("note"):
            out.write(f"({view['note']})\n")
    elif isinstance(view.get("items"), list) and all(isinstance(i, dict) for i in view["items"]):
        rows = view["items"]
        if not rows:
            out.write(f"No {noun}.\n")
        else:
            out.write(table(rows, COLUMNS.get(response_model) or default_columns(rows)) + "\n")
        if view.get("nextToken"):
            out.write(f"More: add --next-token {view['nextToken']}\n")
    else:
        _object(view, out)


def as_json(view: dict[str, Any], out: TextIO) -> None:
    out.write(json.dumps(view, indent=2, default=str) + "\n")
