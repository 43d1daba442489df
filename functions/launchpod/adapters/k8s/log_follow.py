"""What a live log pump reads from a cluster's API server: the pod (is it still running, its default
container) and its log since a stamp, with the kubelet's timestamps (PodLogOptions ``timestamps``,
``sinceTime``, ``limitBytes``)."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.k8s.apply import get
from launchpod.domain.errors import RetryableError

READ_LIMIT_BYTES = 4 * 1024 * 1024


def pod(cluster: str, namespace: str, name: str) -> dict[str, Any] | None:
    found = get(cluster, f"/api/v1/namespaces/{namespace}/pods/{name}")
    return dict(found) if found else None


def default_container(found: dict[str, Any]) -> str | None:
    """kubectl's rule: the ``kubectl.kubernetes.io/default-container`` annotation, else the first container."""
    annotations = (found.get("metadata") or {}).get("annotations") or {}
    containers = [c.get("name") for c in (found.get("spec") or {}).get("containers") or []]
    chosen = annotations.get("kubectl.kubernetes.io/default-container")
    return chosen if chosen in containers else (containers[0] if containers else None)


def read_log(cluster: str, namespace: str, name: str, query: list[tuple[str, str]]) -> Any:
    """The pod's log as the API server answers it (PodLogOptions in ``query``): the read response, any status."""
    from launchpod.adapters.k8s.client import k8s_client_for

    api = k8s_client_for(cluster)
    params = api.param_serialize(
        method="GET",
        resource_path=f"/api/v1/namespaces/{namespace}/pods/{name}/log",
        query_params=query,
        header_params={"Accept": "text/plain"},
        auth_settings=["BearerToken"],
    )
    response = api.call_api(*params, _request_timeout=30)
    response.read()
    return response


def log_text(cluster: str, name: str, response: Any) -> str | None:
    """The log's text; None when the pod is gone (404), any other error status retryable."""
    if response.status == 404:
        return None
    if response.status >= 400:
        raise RetryableError(f"Reading the log of {name} on {cluster}: {response.status}.")
    return str(response.data.decode(errors="replace"))


def read_since(cluster: str, namespace: str, name: str, container: str | None, since: str) -> str | None:
    """The stamped log lines at or after ``since`` ("" = the whole log); None when the pod is gone."""
    query = [("timestamps", "true"), ("limitBytes", str(READ_LIMIT_BYTES))]
    if container:
        query.append(("container", container))
    if since:
        query.append(("sinceTime", since))
    return log_text(cluster, name, read_log(cluster, namespace, name, query))
