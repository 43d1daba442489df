"""What the controllers share beyond their loop (``periodic``): the timestamps they write, and the
CustomResourceDefinitions an operator installs before it watches its kinds.

Kubernetes writes times (``creationTimestamp``, ``startedAt``, ``lastTransitionTime``, an Event's
``lastTimestamp``) as RFC 3339 in UTC with whole seconds (Kubernetes API conventions, "Times").
"""

from __future__ import annotations

import datetime
from typing import Any

CRDS_RESOURCE = "apiextensions.k8s.io/v1/customresourcedefinitions"


def timestamp() -> str:
    """Now, as the API server and the kubelet write it: ``2026-12-05T14:30:00Z``."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def crd(
    group: str, kind: str, plural: str, versions: tuple[str, ...] = ("v1",), scope: str = "Namespaced"
) -> dict[str, Any]:
    """The CustomResourceDefinition of ``kind``, every version served, the last one stored, with a schema that
    keeps every field and a status subresource
    (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/)."""
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": version == versions[-1],
                    "schema": schema,
                    "subresources": {"status": {}},
                }
                for version in versions
            ],
        },
    }


async def install_crd(emulator: Any, definition: dict[str, Any]) -> None:
    """Create ``definition`` unless the API server has it already, and serve its kind, as the API server
    does once a CRD is created."""
    if emulator.get_object(CRDS_RESOURCE, None, definition["metadata"]["name"]) is None:
        await emulator.put_object(CRDS_RESOURCE, definition)
        emulator._declare_crd(definition)
