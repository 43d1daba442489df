"""Patch semantics of the Kubernetes API server, approximated for the emulator.

kmock 0.8 applies every PATCH as a JSON merge patch, so a strategic-merge patch that changes one
container by name drops the other containers. Here ``strategic_merge`` merges lists of objects by
their Kubernetes merge key (``name`` for containers/env/volumes, ``containerPort`` for container
ports, ``mountPath`` for volume mounts, ``type`` for conditions), honours ``$patch: delete|replace``
and drops the ``$setElementOrder``/``$retainKeys`` directives kubectl sends. Server-side apply uses
the same merge (field ownership is not tracked). JSON merge patch (RFC 7386) and JSON patch
(RFC 6902) are exact.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch

# Field name -> merge key, from the patchMergeKey tags of the core types.
MERGE_KEYS: dict[str, str] = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "imagePullSecrets": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "conditions": "type",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
}
# Lists of scalars with patchStrategy "merge": the result is the union.
SCALAR_SETS = {"finalizers"}


def merge_patch(existing: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: dicts merge recursively, ``null`` deletes, everything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(existing) if isinstance(existing, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def json_patch(existing: dict[str, Any], operations: list[dict[str, Any]]) -> dict[str, Any]:
    """RFC 6902 JSON patch; raises ``jsonpatch.JsonPatchException`` / ``JsonPointerException``."""
    patched: dict[str, Any] = jsonpatch.apply_patch(copy.deepcopy(existing), operations, in_place=False)
    return patched


def _merge_key(field: str | None, items: list[Any]) -> str | None:
    if field == "ports":
        # Container ports merge by containerPort, Service ports by port.
        sample = next((i for i in items if isinstance(i, dict)), {})
        return "containerPort" if "containerPort" in sample else "port"
    key = MERGE_KEYS.get(field or "")
    if key is None and items and all(isinstance(i, dict) and "name" in i for i in items):
        key = "name"  # CRD lists keyed by name (replicaSpecs, instanceGroups) merge the same way
    return key


def strategic_merge(existing: Any, patch: Any, field: str | None = None) -> Any:
    """Approximate a strategic merge patch of ``patch`` onto ``existing``; returns a new value."""
    if isinstance(patch, dict):
        if patch.get("$patch") == "replace":
            return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
        if patch.get("$patch") == "delete":
            return None
        result = dict(existing) if isinstance(existing, dict) else {}
        for key, value in patch.items():
            if key.startswith(("$setElementOrder/", "$retainKeys", "$deleteFromPrimitiveList/", "$patch")):
                continue
            if value is None:
                result.pop(key, None)
            else:
                result[key] = strategic_merge(result.get(key), value, key)
        return result
    if isinstance(patch, list):
        if field in SCALAR_SETS and isinstance(existing, list):
            return list(dict.fromkeys([*existing, *patch]))
        old = existing if isinstance(existing, list) else []
        key = _merge_key(field, [*old, *patch])
        if key is None or not all(isinstance(i, dict) and key in i for i in old + patch):
            return copy.deepcopy([i for i in patch if not (isinstance(i, dict) and "$patch" in i)])
        merged = {item[key]: copy.deepcopy(item) for item in old}
        for item in patch:
            if item.get("$patch") == "replace":
                return copy.deepcopy([i for i in patch if i.get("$patch") != "replace"])
            if item.get("$patch") == "delete":
                merged.pop(item[key], None)
            else:
                merged[item[key]] = strategic_merge(merged.get(item[key]), item)
        return list(merged.values())
    return copy.deepcopy(patch)
