"""Validate the manifests Launchpod writes against the real schemas, offline.

Custom resources against the vendored CRDs in tests/crds (SOURCES.md, NOTICE): the served version's
openAPIV3Schema with OpenAPI 3.0 semantics, the API server's defaults applied first, and unknown
fields refused as server-side field validation (``fieldValidation=Strict``) refuses them.
HyperPodPyTorchJob has no public CRD: the JSON Schema derived from the sagemaker-hyperpod SDK stands
in. Core kinds go through kubernetes-validate's bundled upstream schemas. Not checked: CEL
``x-kubernetes-validations`` rules and admission webhooks.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import yaml
from openapi_schema_validator import OAS30Validator

CRDS = Path(__file__).resolve().parent / "crds"
KUBERNETES_VERSION = "1.32"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # RayJob's CRD is 1.4 MB


@cache
def _crds() -> dict[tuple[str, str], dict[str, Any]]:
    """(group, kind) → CRD, for every vendored CRD."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for path in CRDS.glob("*/*.yaml"):
        crd = yaml.load(path.read_text(), Loader=_Loader)
        found[(crd["spec"]["group"], crd["spec"]["names"]["kind"])] = crd
    return found


@cache
def _pytorch_job_schema() -> dict[str, Any]:
    return json.loads((CRDS / "sagemaker.amazonaws.com" / "HyperPodPyTorchJob.derived-schema.json").read_text())


def _closed(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {key: _closed(value) for key, value in schema.items()}
        if (
            "properties" in out
            and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")
        ):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_closed(value) for value in schema]
    return schema


def _defaulted(obj: Any, schema: dict[str, Any]) -> Any:
    if isinstance(obj, dict):
        properties = schema.get("properties") or {}
        for name, sub in properties.items():
            if name not in obj and "default" in sub:
                obj[name] = copy.deepcopy(sub["default"])
            if name in obj:
                _defaulted(obj[name], sub)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for name, value in obj.items():
                if name not in properties:
                    _defaulted(value, extra)
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        for item in obj:
            _defaulted(item, schema["items"])
    return obj


def _say(error: jsonschema.ValidationError) -> str:
    if error.context:
        error = jsonschema.exceptions.best_match(error.context)
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"{path or '<root>'}: {error.message}"


def errors(manifest: dict[str, Any]) -> list[str]:
    """What the API server would refuse in ``manifest`` (empty when it validates)."""
    group, _, version = str(manifest.get("apiVersion", "")).rpartition("/")
    kind = str(manifest.get("kind", ""))
    if (group, kind) == ("sagemaker.amazonaws.com", "HyperPodPyTorchJob"):
        validator = jsonschema.Draft202012Validator(_pytorch_job_schema())
        return [_say(e) for e in validator.iter_errors(manifest)]
    crd = _crds().get((group, kind))
    if crd is not None:
        served = {v["name"]: v for v in crd["spec"]["versions"] if v.get("served", True)}
        if version not in served:
            return [f"{group}/{kind} serves {sorted(served)}, not {version!r}"]
        schema = _closed(served[version]["schema"]["openAPIV3Schema"])
        instance = _defaulted(copy.deepcopy(manifest), schema)
        found = sorted(OAS30Validator(schema).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
        return [_say(e) for e in found]
    if group and "." in group and not group.endswith(".k8s.io"):
        return [f"no vendored CRD for {group}/{kind}: add it under tests/crds with its source"]
    try:
        kubernetes_validate.validate(manifest, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as exc:
        return [_say(exc)]
    return []
