"""Server-side apply and readiness reads for the objects Launchpod installs.

Paths are built from apiVersion and kind (a small plural table) rather than API discovery, so an
apply is one request; field manager "launchpod" with force, so Launchpod owns what it pins.

The kubernetes package (~0.25 s to import, most of it its dynamic client and kubernetes_validate) is
imported on the first call, not at import: the API Lambda's routes import this module, and a cold
start should not pay for a client most requests never use.
"""

from __future__ import annotations

import json
from typing import Any

from urllib3.exceptions import HTTPError

from launchpod.domain.errors import PermanentError, RetryableError

PLURALS = {
    "Namespace": ("namespaces", False),
    "Node": ("nodes", False),
    "ServiceAccount": ("serviceaccounts", True),
    "ConfigMap": ("configmaps", True),
    "Service": ("services", True),
    "Ingress": ("ingresses", True),
    "PersistentVolume": ("persistentvolumes", False),
    "PersistentVolumeClaim": ("persistentvolumeclaims", True),
    "ClusterRole": ("clusterroles", False),
    "ClusterRoleBinding": ("clusterrolebindings", False),
    "Role": ("roles", True),
    "RoleBinding": ("rolebindings", True),
    "DaemonSet": ("daemonsets", True),
    "Deployment": ("deployments", True),
    "Job": ("jobs", True),
    "CustomResourceDefinition": ("customresourcedefinitions", False),
    "MutatingWebhookConfiguration": ("mutatingwebhookconfigurations", False),
    "ValidatingWebhookConfiguration": ("validatingwebhookconfigurations", False),
    # HyperPod-managed Karpenter (instance groups' autoscaling)
    "NodePool": ("nodepools", False),
    "HyperpodNodeClass": ("hyperpodnodeclasses", False),
    # training jobs
    "HyperPodPyTorchJob": ("hyperpodpytorchjobs", True),
    "RayJob": ("rayjobs", True),
    # HyperPod inference operator
    "InferenceEndpointConfig": ("inferenceendpointconfigs", True),
    "JumpStartModel": ("jumpstartmodels", True),
    "Secret": ("secrets", True),  # a model download's token
    "ScaledObject": ("scaledobjects", True),  # KEDA, for container endpoints
    # Kueue, run by the task governance add-on
    "LocalQueue": ("localqueues", True),
    "ClusterQueue": ("clusterqueues", False),
    "WorkloadPriorityClass": ("workloadpriorityclasses", False),
    "ResourceFlavor": ("resourceflavors", False),
    "Workload": ("workloads", True),
    # HyperPod Spaces (the amazon-sagemaker-spaces add-on's operator)
    "Workspace": ("workspaces", True),
}


def path_of(obj: dict[str, Any]) -> str:
    api_version, kind = obj["apiVersion"], obj["kind"]
    plural, namespaced = PLURALS[kind]
    base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
    ns = f"/namespaces/{obj['metadata']['namespace']}" if namespaced else ""
    return f"{base}{ns}/{plural}/{obj['metadata']['name']}"


def _call(
    cluster: str,
    method: str,
    path: str,
    *,
    body: Any = None,
    query: list[tuple[str, str]] | None = None,
    content_type: str | None = None,
) -> Any:
    from kubernetes.client.exceptions import ApiException

    from launchpod.adapters.k8s.client import forget, k8s_client_for

    api = k8s_client_for(cluster)
    headers = {"Accept": "application/json"} | ({"Content-Type": content_type} if content_type else {})
    try:
        params = api.param_serialize(
            method=method,
            resource_path=path,
            query_params=query or [],
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        response = api.call_api(*params, _request_timeout=30)
        response.read()
        if response.status >= 400:
            raise ApiException(http_resp=response)
        return json.loads(response.data or b"null")
    except ApiException as exc:
        if exc.status == 404 and method == "GET":
            return None
        if exc.status in (401, 403):
            forget(cluster)
            raise PermanentError(f"The Kubernetes API of {cluster} refused {method} {path}: {exc.reason}.") from exc
        if exc.status in (409, 429) or exc.status >= 500:
            raise RetryableError(f"{method} {path} on {cluster}: {exc.status} {exc.reason}.") from exc
        raise PermanentError(
            f"{method} {path} on {cluster} was rejected: {exc.status} {exc.body or exc.reason}"
        ) from exc
    except HTTPError as exc:
        forget(cluster)
        raise RetryableError(f"Could not reach the Kubernetes API of {cluster}: {exc}.") from exc


def apply(cluster: str, obj: dict[str, Any]) -> None:
    _call(
        cluster,
        "PATCH",
        path_of(obj),
        body=json.dumps(obj),
        query=[("fieldManager", "launchpod"), ("force", "true")],
        content_type="application/apply-patch+yaml",
    )


def get(cluster: str, path: str) -> Any:
    return _call(cluster, "GET", path)


def read(cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None:
    found = _call(cluster, "GET", path_of(obj))
    return dict(found) if found else None


def ready(found: dict[str, Any] | None) -> bool:
    """A DaemonSet is ready when every scheduled pod is ready (none scheduled counts: no such nodes yet);
    a Deployment when its ready replicas reach the spec."""
    if not found:
        return False
    status, spec = found.get("status") or {}, found.get("spec") or {}
    if status.get("observedGeneration", 0) < (found.get("metadata") or {}).get("generation", 1):
        return False
    if found["kind"] == "DaemonSet":
        return bool(status.get("numberReady", 0) >= status.get("desiredNumberScheduled", 0))
    return bool(status.get("readyReplicas", 0) >= spec.get("replicas", 1))


def delete(cluster: str, obj: dict[str, Any]) -> bool:
    """Delete an object (background propagation); False when it was already gone."""
    from kubernetes.client.exceptions import ApiException

    try:
        _call(cluster, "DELETE", path_of(obj), query=[("propagationPolicy", "Background")])
    except PermanentError as exc:
        cause = exc.__cause__
        if isinstance(cause, ApiException) and cause.status == 404:
            return False
        raise
    return True


def list_labelled(cluster: str, api_version: str, kind: str, selector: str) -> list[dict[str, Any]]:
    """Objects of a kind (in every namespace) matching a label selector, each with its kind filled in."""
    plural, _ = PLURALS[kind]
    base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
    found = _call(cluster, "GET", f"{base}/{plural}", query=[("labelSelector", selector)]) or {}
    return [{"apiVersion": api_version, "kind": kind, **item} for item in found.get("items", [])]
