"""Read-only lists from a cluster's Kubernetes API: Nodes, Pods, Events, Services, Ingresses (every
namespace) and IngressClasses."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.k8s.apply import get

_PATHS = {
    "Node": "/api/v1/nodes",
    "Pod": "/api/v1/pods",
    "Event": "/api/v1/events",
    "Service": "/api/v1/services",
    "Ingress": "/apis/networking.k8s.io/v1/ingresses",
    "IngressClass": "/apis/networking.k8s.io/v1/ingressclasses",
}


def items(cluster: str, kind: str) -> list[dict[str, Any]]:
    found = get(cluster, _PATHS[kind]) or {}
    return list(found.get("items") or [])


def pod_log(cluster: str, namespace: str, pod: str, container: str, tail: int = 500) -> str:
    """The last ``tail`` lines of a pod's container's log ("" when it has none yet or cannot be read). The
    container is named: the API server refuses a log read without one on a pod that has several."""
    from launchpod.adapters.k8s.client import k8s_client_for

    api = k8s_client_for(cluster)
    try:
        params = api.param_serialize(
            method="GET",
            resource_path=f"/api/v1/namespaces/{namespace}/pods/{pod}/log",
            query_params=[("container", container), ("tailLines", str(tail))],
            header_params={"Accept": "text/plain"},
            auth_settings=["BearerToken"],
        )
        response = api.call_api(*params, _request_timeout=30)
        response.read()
    except Exception:  # a log is evidence, not a requirement: an unreadable one is left out
        return ""
    return response.data.decode(errors="replace") if response.status < 400 else ""
