"""Training jobs on a cluster's Kubernetes API: list and read the custom resources (an unserved kind is no
jobs), the job's pods and the events around them, and a container's log with tail and since."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.k8s.apply import PLURALS, _call, get
from launchpod.adapters.k8s.log_follow import log_text, read_log
from launchpod.domain.errors import InvalidInput


def _base(api_version: str) -> str:
    return f"/apis/{api_version}"


def list_kind(cluster: str, api_version: str, kind: str, namespace: str | None) -> list[dict[str, Any]]:
    plural, _ = PLURALS[kind]
    path = f"{_base(api_version)}/namespaces/{namespace}/{plural}" if namespace else f"{_base(api_version)}/{plural}"
    found = get(cluster, path) or {}
    return [{"apiVersion": api_version, "kind": kind, **item} for item in found.get("items") or []]


def pods(cluster: str, namespace: str, selector: str) -> list[dict[str, Any]]:
    found = _call(cluster, "GET", f"/api/v1/namespaces/{namespace}/pods", query=[("labelSelector", selector)]) or {}
    return list(found.get("items") or [])


def events(cluster: str, namespace: str) -> list[dict[str, Any]]:
    found = get(cluster, f"/api/v1/namespaces/{namespace}/events") or {}
    return list(found.get("items") or [])


def nodes(cluster: str) -> list[dict[str, Any]]:
    found = get(cluster, "/api/v1/nodes") or {}
    return list(found.get("items") or [])


def log(cluster: str, namespace: str, pod: str, container: str, tail: int, since: int | None) -> str | None:
    """The container's log (None when the pod is gone); a container the pod does not have is a 422."""
    from kubernetes.client.exceptions import ApiException

    query = [("container", container), ("tailLines", str(tail))]
    if since:
        query.append(("sinceSeconds", str(since)))
    response = read_log(cluster, namespace, pod, query)
    if response.status == 400:
        raise InvalidInput(
            f"Pod {pod} has no container {container}.", field="query.container", rule="a container of the pod"
        ) from ApiException(http_resp=response)
    return log_text(cluster, pod, response)
