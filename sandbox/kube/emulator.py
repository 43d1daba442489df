"""An emulated EKS Kubernetes API server: kmock 0.8's KubernetesEmulator made to behave like the real one.

The official ``kubernetes`` client (typed APIs, CustomObjectsApi, DynamicClient, watch) needs more than
kmock's in-memory JSON store gives out of the box (see ../shared/reference/sandbox-feasibility.md §4).
``PatchedKubernetesEmulator`` keeps kmock's object store, history and watch buses, and owns the write
paths: it authenticates EKS bearer tokens (401 otherwise), parses namespace URLs, stamps server-side
metadata (namespace, uid, resourceVersion, generation, creationTimestamp, kind, apiVersion), answers
201 on create and 409 on duplicates, rejects objects in namespaces that do not exist, implements PUT,
delete-collection, server-side-apply create, strategic-merge (approximated), status/scale subresources,
optimistic concurrency on ``metadata.resourceVersion``, namespace and ownerReferences cascade,
label/field selectors and ``resourceVersion``/``timeoutSeconds`` on list and watch, declares CRDs
when they are created, serves ``/version`` with a per-cluster EKS version and pod logs from an
in-memory store. Not emulated:
controllers, admission and schema validation, RBAC, SSA field ownership, exec/port-forward, pagination.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, cast

import aiohttp.web
import attrs
from kmock._internal import enums, rendering

from sandbox.aws import clock
from sandbox.kube import membership, pod_log_times
from sandbox.kube.matching import InvalidSelector, field_selector_matches, label_selector_matches
from sandbox.kube.store import DEFAULT_NAMESPACES, rv_of, status_body, status_response
from sandbox.kube.tokens import InvalidToken, kube_request, parse_authorization
from sandbox.kube.writes import WritingEmulator
from sandbox.state import STATE

# kmock keeps every request for assertions; a sandbox that runs for hours must not.
_MAX_KEPT_REQUESTS = 500
membership.install()  # a request's reaction chosen without walking those kept requests

log = logging.getLogger("sandbox.kube")

# Called with (emulator, namespace, pod, container or None, text) for every chunk a container writes, on
# the emulator's loop: what a node-level log agent tailing /var/log/containers sees
# (sandbox.controllers.container_insights).
LogSink = Callable[[Any, str, str, "str | None", str], None]


@dataclass
class LogSinks:
    """The log sinks every emulated API server calls."""

    sinks: list[LogSink] = field(default_factory=list)


def log_sinks() -> list[LogSink]:
    return STATE.part(LogSinks).sinks


@attrs.define(kw_only=True)
class PatchedKubernetesEmulator(WritingEmulator):
    """kmock's KubernetesEmulator with the behaviour of a real (EKS) API server; see the module docstring.

    Touch ``objects``, ``pod_logs`` or ``resources`` only on the emulator's own event loop
    (``KubeEmulatorThread.call`` / ``KubeFleet.call``).
    """

    # ------------------------------------------------------------------ entry point: authentication
    async def __call__(self, raw_request: aiohttp.web.BaseRequest) -> aiohttp.web.StreamResponse:
        seq = self.audit[-1][0] + 1 if self.audit else 0
        self.audit.append((seq, raw_request.method, raw_request.path))
        del self.audit[:-2000]
        if self.require_auth:
            try:
                token = parse_authorization(raw_request.headers.get("Authorization"))
            except InvalidToken:
                return status_response(401, "Unauthorized", "Unauthorized")
            if self.principal_policy is not None and not self.principal_policy(token):
                return status_response(401, "Unauthorized", "Unauthorized")
            if self.authorizer is not None:
                request = kube_request(raw_request.method, raw_request.path, dict(raw_request.query))
                access = self.authorizer(self.cluster_name, token, request)
                if access.code == 401:
                    return status_response(401, "Unauthorized", "Unauthorized")
                if access.code == 403:
                    return status_response(403, "Forbidden", request.describe(access.user) + access.reason)
            self.last_token = token
        if "/proxy" in raw_request.path and raw_request.path.startswith("/api/v1/namespaces/"):
            proxied = await self._proxy(raw_request)
            if proxied is not None:
                return proxied
        if raw_request.method == "GET" and raw_request.path in ("/healthz", "/livez", "/readyz"):
            return aiohttp.web.Response(text="ok")
        if raw_request.method == "GET" and raw_request.path == "/version/":
            # The typed client's VersionApi asks for "/version/", kubectl for "/version".
            return aiohttp.web.json_response(await self._serve_server_version(None))  # type: ignore[arg-type]
        try:
            return await super().__call__(raw_request)
        finally:
            if len(self._requests) > _MAX_KEPT_REQUESTS:
                del self._requests[: -_MAX_KEPT_REQUESTS // 2]
            for errors in self._errors:
                del errors[:-50]

    async def _proxy(self, raw_request: aiohttp.web.BaseRequest) -> aiohttp.web.StreamResponse | None:
        """services/{name}:{port}/proxy/...: forwarded to a Ready pod by ``service_proxy``."""
        if "/services/" not in raw_request.path:
            return None
        if self.service_proxy is None:
            return status_response(503, "ServiceUnavailable", "no endpoints available for service")
        answer: aiohttp.web.StreamResponse | None = await self.service_proxy(
            self, raw_request.method, raw_request.path, await raw_request.text()
        )
        return answer

    # ------------------------------------------------------------------ discovery
    async def _serve_server_version(self, request: rendering.Request) -> rendering.Payload:
        parts = [*self.kubernetes_version.lstrip("v").split("."), "0", "0"][:3]
        return {
            "major": parts[0],
            "minor": parts[1],
            "gitVersion": f"v{parts[0]}.{parts[1]}.{parts[2]}-eks-sandbox",
            "gitCommit": "0000000000000000000000000000000000000000",
            "gitTreeState": "clean",
            "buildDate": "2026-01-01T00:00:00Z",
            "goVersion": "go1.23.0",
            "compiler": "gc",
            "platform": "linux/amd64",
        }

    async def _serve_version(self, request: rendering.Request) -> rendering.Payload:
        result = await super()._serve_version(request)
        if isinstance(result, dict) and str(result.get("groupVersion", "")).startswith("/"):
            result["groupVersion"] = result["groupVersion"][1:]  # core is "v1", not "/v1"
        if isinstance(result, dict):
            for entry in result.get("resources") or []:
                if "/" in entry.get("name", ""):
                    # A subresource (pods/status, namespaces/finalize) has no names of its own: discovery lists
                    # none (k8s.io/api apidiscovery/v2 APISubresourceDiscovery has no shortNames or
                    # categories). kmock repeats its parent's, and kubectl then warns on every `kubectl get ns`
                    # that "ns" could also match namespaces/finalize, which no EKS cluster makes it say.
                    entry.update(shortNames=[], categories=[], singularName="")
        return result

    # ------------------------------------------------------------------ dispatch
    async def _handle(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        res = request.resource
        if res is None or res.plural is None:
            return await super()._handle(request)
        method = request.method
        try:
            if method == enums.method.GET and res.plural == "pods" and request.subresource == "log":
                return self._serve_logs(request)
            if method == enums.method.GET and request.subresource == "scale" and request.name:
                return await self._get_scale(request)
            if method == enums.method.POST and res.plural == "pods" and request.subresource == "eviction":
                return await self._evict(request, res)
            if request.action == enums.action.CREATE:
                return await self._create(request)
            if method == enums.method.PUT and request.name:
                return await self._replace(request)
            if method == enums.method.PATCH and request.name:
                return await self._patch(request)
            if method == enums.method.DELETE:
                if request.name:
                    return await self._delete(request)
                return await self._delete_collection(request)
        except InvalidSelector as exc:
            return status_response(400, "BadRequest", str(exc))
        return await super()._handle(request)

    # ------------------------------------------------------------------ list and watch
    async def _serve_list(self, request: rendering.Request) -> rendering.Payload:
        result = await super()._serve_list(request)
        assert isinstance(result, dict) and request.resource is not None
        kind, api_version = self._kind_of(request.resource)
        labels, fields = request.params.get("labelSelector"), request.params.get("fieldSelector")
        items = [
            obj
            for obj in result["items"]
            if label_selector_matches(labels, (obj.get("metadata") or {}).get("labels"))
            and field_selector_matches(fields, obj)
        ]
        items.sort(key=lambda o: ((o.get("metadata") or {}).get("namespace") or "", o["metadata"].get("name", "")))
        return {
            "kind": f"{kind}List",
            "apiVersion": api_version,
            "metadata": {"resourceVersion": str(self._rv)},
            "items": items,
        }

    async def _serve_watch(self, request: rendering.Request) -> AsyncIterator[rendering.Payload]:
        labels, fields = request.params.get("labelSelector"), request.params.get("fieldSelector")
        # Validate selectors before the stream starts, so a bad one is a 400 and not a broken stream.
        label_selector_matches(labels, {})
        field_selector_matches(fields, {})
        since = request.params.get("resourceVersion") or "0"
        since_rv = int(since) if since.isdigit() else 0
        timeout = request.params.get("timeoutSeconds")
        deadline = asyncio.get_running_loop().time() + float(timeout) if timeout else None
        # kmock's watch is an async generator: closed here so its bus subscription ends with the stream
        events = cast(AsyncGenerator[rendering.Payload, None], super()._serve_watch(request))
        try:
            while True:
                remaining = None if deadline is None else deadline - asyncio.get_running_loop().time()
                if remaining is not None and remaining <= 0:
                    return
                try:
                    # wait_for and not asyncio.timeout(): the deadline must end the stream cleanly,
                    # not cancel the handler while it writes a chunk.
                    event = await asyncio.wait_for(anext(events), remaining)
                except (TimeoutError, StopAsyncIteration):
                    return
                if isinstance(event, dict):
                    obj = event.get("object") or {}
                    # With resourceVersion, a watch starts after that version (no replay of older objects).
                    if since_rv and rv_of(obj) <= since_rv:
                        continue
                    if not (
                        label_selector_matches(labels, (obj.get("metadata") or {}).get("labels"))
                        and field_selector_matches(fields, obj)
                    ):
                        continue
                yield event
        finally:
            await events.aclose()

    # ------------------------------------------------------------------ pod logs
    def _serve_logs(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        assert request.resource is not None and request.name is not None  # dispatched for pods/{name}/log
        key = (request.resource, request.namespace, request.name)
        if not self._alive(key):
            return self._not_found(request)
        pod = self._objects[key].raw
        containers = [c.get("name") for c in ((pod.get("spec") or {}).get("containers") or [])]
        container = request.params.get("container")
        if container and containers and container not in containers:
            return status_response(400, "BadRequest", f"container {container} is not valid for pod {request.name}")
        if not container and len(containers) > 1:
            # The API server picks a container only when the pod has one; kubectl's default-container annotation is
            # kubectl's own (kubernetes pkg/registry/core/pod/rest/log.go -> strategy.go LogLocation).
            return status_response(
                400,
                "BadRequest",
                f"a container name must be specified for pod {request.name}, choose one of: [{' '.join(containers)}]",
            )
        ns, name = request.namespace or "", request.name or ""
        candidates = [(ns, name, container), (ns, name, None)]
        if container is None and containers:
            candidates.append((ns, name, containers[0]))
        found = next((k for k in candidates if self.pod_logs.get(k) is not None), None)
        text = self.pod_logs.get(found, "") if found else ""
        since = request.params.get("sinceSeconds")
        since_time = request.params.get("sinceTime")
        if since and since_time:
            return status_response(400, "BadRequest", "at most one of sinceTime or sinceSeconds may be specified")
        start = self._since_offset(found, int(since)) if found and since and since.isdigit() else 0
        stamped = request.params.get("timestamps") == "true"
        if found and (since_time or stamped):
            at = pod_log_times.parse_rfc3339(since_time) if since_time else None
            if since_time and at is None:
                return status_response(400, "BadRequest", f"sinceTime {since_time!r} is not RFC3339")
            text = pod_log_times.render(text, self.pod_log_marks.get(found, []), start, at, stamped)
        else:
            text = text[start:]
        tail = request.params.get("tailLines")
        if tail and tail.lstrip("-").isdigit():
            lines = text.splitlines(keepends=True)
            text = "".join(lines[-int(tail) :]) if int(tail) > 0 else ""
        limit = request.params.get("limitBytes")
        if limit and limit.isdigit():
            text = text.encode()[: int(limit)].decode(errors="ignore")
        return aiohttp.web.Response(text=text, content_type="text/plain")

    # ------------------------------------------------------------------ helpers for simulated controllers
    def append_log(self, namespace: str, pod: str, text: str, container: str | None = None) -> None:
        """Append text to a pod's log (call on the emulator loop), remembering when, for sinceSeconds."""
        key = (namespace, pod, container)
        before = self.pod_logs.get(key, "")
        self.pod_log_marks.setdefault(key, []).append((time.monotonic(), len(before), time.time_ns()))
        self.pod_logs[key] = before + text
        for sink in log_sinks():
            try:
                sink(self, namespace, pod, container, text)
            except Exception:  # a log shipper's failure is its own; the pod's log is written
                log.exception("log sink failed for %s/%s", namespace, pod)

    def _since_offset(self, key: tuple[str, str, str | None], since: int) -> int:
        """Where the log's lines of the last ``since`` seconds start. The kubelet counts them on its own
        clock; the sandbox's pods live on the simulated one, so ``since`` is simulated seconds."""
        cutoff = time.monotonic() - clock.real_seconds(since)
        for at, offset, _ in self.pod_log_marks.get(key, []):
            if at >= cutoff:
                return offset
        return len(self.pod_logs.get(key, ""))


__all__ = ["DEFAULT_NAMESPACES", "PatchedKubernetesEmulator", "status_body"]
