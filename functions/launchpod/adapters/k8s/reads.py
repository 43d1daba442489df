"""Read-only Kubernetes calls, translated into Launchpod errors.

Plain GETs through the shared request path of ``apply.py``: the generated API classes of the
kubernetes client take seconds to build on first use, which a Lambda cold start would pay.
"""

from __future__ import annotations

from launchpod.adapters.k8s.apply import get
from launchpod.domain.errors import RetryableError


def server_version_and_namespaces(cluster: str) -> tuple[str, list[str]]:
    version = get(cluster, "/version") or {}
    namespaces = get(cluster, "/api/v1/namespaces") or {}
    if not version.get("gitVersion"):
        raise RetryableError(f"The Kubernetes API of {cluster} did not report its version yet.")
    return str(version["gitVersion"]), [n["metadata"]["name"] for n in namespaces.get("items", [])]
