"""Endpoints on a cluster's API server: their objects read back by Launchpod's labels, replicas patched,
and a chat completion sent through the API server's Service proxy
(``/api/v1/namespaces/{ns}/services/{name}:{port}/proxy/...``,
https://kubernetes.io/docs/tasks/access-application-cluster/access-cluster-services/#manually-constructing-apiserver-proxy-urls),
so the API Lambda needs no network path into the VPC, and the address is the Service Launchpod made,
never one a caller gave."""

from __future__ import annotations

import json
from typing import Any

from launchpod.adapters.k8s.apply import _call, get, list_labelled, path_of
from launchpod.domain import ownership
from launchpod.domain.dependencies import lbc
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.domain.inference import manifests, queueing
from launchpod.domain.inference.endpoints import RealEndpoint

_API = {"managed": manifests.GROUP_VERSION, "jumpstart": manifests.GROUP_VERSION, "container": "apps/v1"}
MAX_ANSWER_BYTES = 256 * 1024
INVOKE_TIMEOUT_SECONDS = 20


def _selector(kind: str, name: str | None = None) -> str:
    parts = [f"{ownership.K8S_MANAGED_BY}={ownership.K8S_MANAGER}", f"{manifests.KIND_LABEL}={kind}"]
    if name:
        parts.append(f"{manifests.ENDPOINT_LABEL}={name}")
    return ",".join(parts)


def _pods(cluster: str, kind: str, primary: dict[str, Any]) -> list[dict[str, Any]]:
    ns, name = primary["metadata"].get("namespace", "default"), primary["metadata"]["name"]
    selector = (
        f"{manifests.ENDPOINT_LABEL}={name}" if kind == "container" else (primary.get("status") or {}).get("selector")
    )
    if not selector:
        return []
    found = _call(cluster, "GET", f"/api/v1/namespaces/{ns}/pods", query=[("labelSelector", selector)]) or {}
    return list(found.get("items") or [])


def _real(cluster: str, kind: str, primary: dict[str, Any], with_pods: bool) -> RealEndpoint:
    ns, name = primary["metadata"].get("namespace", "default"), primary["metadata"]["name"]
    service = get(cluster, path_of(manifests.service_ref(name, ns)))
    pods = _pods(cluster, kind, primary) if with_pods else []
    scaler = get(cluster, path_of(manifests.scaled_object_ref(name, ns))) if kind == "container" else None
    real = RealEndpoint(kind=kind, primary=primary, service=service, pods=pods, scaler=scaler)
    if any(queueing.gated(p) for p in pods):
        real.queue_notes = _queue_notes(cluster, ns, pods)
    if scaler is not None and not _scaler_ready(scaler):
        real.scaler_event = _last_warning(cluster, ns, name, "ScaledObject")
    if kind != "container" and (primary.get("spec") or {}).get("autoScalingSpec"):
        real.operator_scaler = _operator_scaler(cluster, primary)
        if real.operator_scaler is not None:
            real.scaler_event = _last_warning(cluster, ns, real.operator_scaler["metadata"]["name"], "ScaledObject")
    if real.load_balanced and not real.hostname:
        real.balancer_blocked = lbc.blocked(cluster, get(cluster, path_of(lbc.deployment_ref())))
        real.balancer_event = _last_warning(cluster, ns, name)
    return real


def _queue_notes(cluster: str, namespace: str, pods: list[dict[str, Any]]) -> dict[str, str]:
    """Why each gated pod waits: its Workload's words, and the Preempted event of the one before it."""
    try:
        found = get(cluster, f"/apis/kueue.x-k8s.io/v1beta1/namespaces/{namespace}/workloads") or {}
    except PermanentError:  # Kueue's kinds are not served: no queue to explain
        return {}
    query = [("fieldSelector", "involvedObject.kind=Workload,reason=Preempted")]
    events = _call(cluster, "GET", f"/api/v1/namespaces/{namespace}/events", query=query) or {}
    return queueing.notes(pods, list(found.get("items") or []), list(events.get("items") or []))


def _scaler_ready(scaled: dict[str, Any]) -> bool:
    conditions = (scaled.get("status") or {}).get("conditions") or []
    return not any(c.get("type") == "Ready" and c.get("status") == "False" for c in conditions)


def _operator_scaler(cluster: str, primary: dict[str, Any]) -> dict[str, Any] | None:
    """The KEDA ScaledObject whose target is the operator's Deployment for this resource. Found by its
    scaleTargetRef, not by name: the operator's names for the objects it makes are not documented."""
    ns = primary["metadata"].get("namespace", "default")
    deployment = ((primary.get("status") or {}).get("deploymentStatus") or {}).get("name") or primary["metadata"][
        "name"
    ]
    found = _call(cluster, "GET", f"/apis/keda.sh/v1alpha1/namespaces/{ns}/scaledobjects") or {}
    for item in found.get("items") or []:
        target = (item.get("spec") or {}).get("scaleTargetRef") or {}
        if target.get("name") == deployment and target.get("kind", "Deployment") == "Deployment":
            return dict(item)
    return None


def _last_warning(cluster: str, namespace: str, name: str, kind: str = "Service") -> str | None:
    """The newest Warning event on the object (the load balancer controller reports AWS errors on a Service so,
    KEDA a scaler's failure on its ScaledObject)."""
    query = [("fieldSelector", f"involvedObject.kind={kind},involvedObject.name={name},type=Warning")]
    found = _call(cluster, "GET", f"/api/v1/namespaces/{namespace}/events", query=query) or {}
    items = sorted(found.get("items") or [], key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""))
    return f"{items[-1].get('reason')}: {items[-1].get('message')}" if items else None


def endpoints(cluster: str, with_pods: bool = True, name: str | None = None) -> list[RealEndpoint]:
    """Every endpoint Launchpod deployed on the cluster (or the one named), in every namespace."""
    found = []
    for kind in ("managed", "jumpstart", "container"):
        for primary in list_labelled(cluster, _API[kind], manifests.KINDS[kind], _selector(kind, name)):
            found.append(_real(cluster, kind, primary, with_pods))
    return sorted(found, key=lambda e: e.name)


def endpoint(cluster: str, name: str) -> RealEndpoint | None:
    found = endpoints(cluster, name=name)
    return found[0] if found else None


def scale(cluster: str, real: RealEndpoint, replicas: int) -> None:
    """A merge patch of spec.replicas only, and a pdSpec's decode replicas (server-side apply of a partial object
    would drop the rest)."""
    ref = manifests.primary_ref(real.kind, real.name, real.namespace)
    _call(
        cluster,
        "PATCH",
        path_of(ref),
        body=manifests.scale_patch(real.primary, replicas),  # a dict: the client serializes JSON bodies itself
        content_type="application/merge-patch+json",
    )


def chat(cluster: str, real: RealEndpoint, payload: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """POST /v1/chat/completions to the endpoint's own Service through the API server's proxy, with a
    bounded timeout; the answer is read up to MAX_ANSWER_BYTES (True when it was cut)."""
    return _send(cluster, real, "POST", "/v1/chat/completions", payload)


def models(cluster: str, real: RealEndpoint) -> dict[str, Any]:
    """GET /v1/models of the endpoint's own Service (vLLM and SGLang list the model they serve there)."""
    answer, truncated = _send(cluster, real, "GET", "/v1/models", None)
    return {} if truncated else answer


def _send(
    cluster: str, real: RealEndpoint, method: str, route: str, payload: dict[str, Any] | None
) -> tuple[dict[str, Any], bool]:
    from kubernetes.client.exceptions import ApiException

    from launchpod.adapters.k8s.client import k8s_client_for

    if real.service is None or real.port is None:
        raise PermanentError(f"Endpoint {real.name} has no Service to call yet.")
    service = f"{real.service['metadata']['name']}:{real.port}"
    path = f"/api/v1/namespaces/{real.namespace}/services/{service}/proxy{route}"
    api = k8s_client_for(cluster)
    headers = {"Accept": "application/json"} | ({"Content-Type": "application/json"} if payload is not None else {})
    try:
        params = api.param_serialize(
            method=method, resource_path=path, header_params=headers, body=payload, auth_settings=["BearerToken"]
        )
        response = api.call_api(*params, _request_timeout=INVOKE_TIMEOUT_SECONDS)
        raw = response.response  # urllib3's response, not preloaded: read at most one byte past the bound
        data = raw.read(MAX_ANSWER_BYTES + 1)
        raw.release_conn()
    except ApiException as exc:
        raise RetryableError(f"The endpoint {real.name} did not answer: {exc.status} {exc.reason}.") from exc
    except Exception as exc:  # urllib3 timeouts and connection errors
        raise RetryableError(
            f"The endpoint {real.name} did not answer within {INVOKE_TIMEOUT_SECONDS} s: {exc}."
        ) from exc
    if response.status >= 400:
        text = bytes(data[:300]).decode(errors="replace")
        # 5xx: the server (or the router in front of it) cannot serve now; worth trying again later
        error = RetryableError if response.status >= 500 else PermanentError
        raise error(f"The endpoint {real.name} answered {response.status}: {text}")
    truncated = len(data) > MAX_ANSWER_BYTES
    if truncated:
        return {}, True
    try:
        return dict(json.loads(bytes(data) or b"{}")), False
    except ValueError as exc:
        raise PermanentError(f"The endpoint {real.name} answered something that is not JSON.") from exc


def bind_pod(cluster: str, namespace: str, pod: str, endpoint: str) -> None:
    """Set the pod's binding label (a merge patch of that one label): the Service of ``endpoint`` selects it."""
    _call(
        cluster,
        "PATCH",
        f"/api/v1/namespaces/{namespace}/pods/{pod}",
        body={"metadata": {"labels": {manifests.SERVES_LABEL: endpoint}}},
        content_type="application/merge-patch+json",
    )
