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
import copy
import datetime
import functools
import logging
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp.web
import attrs
import jsonpatch
import jsonpointer
import kmock
import yaml
from kmock._internal import enums, parsing, references, rendering

from sandbox.aws import clock
from sandbox.kube import pod_log_times
from sandbox.kube.matching import InvalidSelector, field_selector_matches, label_selector_matches
from sandbox.kube.merging import json_patch, merge_patch, strategic_merge
from sandbox.kube.tokens import (
    Authorizer,
    EksToken,
    InvalidToken,
    PrincipalPolicy,
    kube_request,
    parse_authorization,
)

NAMESPACES = references.resource(group="", version="v1", plural="namespaces")
CRDS = references.resource(group="apiextensions.k8s.io", version="v1", plural="customresourcedefinitions")
DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")

# kmock keeps every request for assertions; a sandbox that runs for hours must not.
_MAX_KEPT_REQUESTS = 500

log = logging.getLogger("sandbox.kube")

# Called with (emulator, namespace, pod, container or None, text) for every chunk a container writes, on
# the emulator's loop: what a node-level log agent tailing /var/log/containers sees
# (sandbox.controllers.container_insights).
LogSink = Callable[[Any, str, str, "str | None", str], None]
LOG_SINKS: list[LogSink] = []

# ------------------------------------------------------------------ URL parsing
# kmock parses /api/v1/namespaces as a malformed path and /api/v1/namespaces/foo as "namespace foo,
# no resource", so Namespaces can be neither created nor read. Patch the one function that does it.
_original_parse_path = parsing.parse_path


def _parse_path(path: str) -> parsing.ParsedPath:
    parts = path.strip("/").split("/")
    if (
        len(parts) >= 3
        and parts[0] == "api"
        and parts[2] == "namespaces"
        and (len(parts) <= 4 or (len(parts) == 5 and parts[4] in ("status", "finalize")))
    ):
        return parsing.ParsedPath(
            group="",
            version=parts[1],
            plural="namespaces",
            namespace=None,
            name=parts[3] if len(parts) >= 4 else None,
            subresource=parts[4] if len(parts) == 5 else None,
        )
    return _original_parse_path(path)


if getattr(parsing.parse_path, "__module__", "") != __name__:
    parsing.parse_path = _parse_path  # rendering.Request._parse looks it up on the module


@functools.cache
def _builtin_resources() -> dict[references.resource, references.ResourceInfo]:
    """Built-in kinds of a k3s 1.26 server (kmock's bundle): parsed once, copied into each emulator."""
    bundle = kmock.KubernetesEmulator()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # kmock uses importlib.resources.read_binary
        bundle.resources.load_bundled()
    return {res: bundle.resources[res] for res in bundle.resources}


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def status_body(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``v1.Status`` failure body as the API server sends it."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return body


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> aiohttp.web.Response:
    return aiohttp.web.json_response(status_body(code, reason, message, details), status=code)


def _rv_of(obj: dict[str, Any]) -> int:
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or 0)
    except (TypeError, ValueError):
        return 0


@attrs.define(kw_only=True)
class PatchedKubernetesEmulator(kmock.KubernetesEmulator):
    """kmock's KubernetesEmulator with the behaviour of a real (EKS) API server; see the module docstring.

    Touch ``objects``, ``pod_logs`` or ``resources`` only on the emulator's own event loop
    (``KubeEmulatorThread.call`` / ``KubeFleet.call``).
    """

    cluster_name: str = "sandbox"
    kubernetes_version: str = "1.32"
    require_auth: bool = True
    # Called with every well-formed token; returning False answers 401. None allows every token.
    principal_policy: PrincipalPolicy | None = None
    # Decides every request with a well-formed token: 401/403 as the answer says (EKS: access entries).
    authorizer: Authorizer | None = None
    # Reject namespaced objects whose namespace does not exist, as the real API server does.
    strict_namespaces: bool = True
    # Answers the services/proxy subresource (sandbox.controllers.model_server.proxy): (emulator, method, path, body
    # text) -> a response, or None for any other path. None: the proxy answers 503 as with no endpoints.
    service_proxy: Any = None
    # (namespace, pod, container or None) -> log text; served by GET pods/{name}/log.
    pod_logs: dict[tuple[str, str, str | None], str] = attrs.field(factory=dict)
    # when each appended chunk started (time.monotonic(), offset, wall-clock ns): what sinceSeconds,
    # sinceTime and timestamps=true read
    pod_log_marks: dict[tuple[str, str, str | None], list[tuple[float, int, int]]] = attrs.field(factory=dict)
    last_token: EksToken | None = attrs.field(default=None, init=False)
    # Every request served, as (sequence number, method, path): the API server's audit log, which the
    # diagnostics' read-only test reads (kmock's own request list is trimmed and renumbered).
    audit: list[tuple[int, str, str]] = attrs.field(factory=list, init=False)
    _rv: int = attrs.field(default=1000, init=False)

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        for res, info in _builtin_resources().items():
            self.resources[res] = copy.deepcopy(info)
        for name in DEFAULT_NAMESPACES:
            self._objects[NAMESPACES, None, name] = self._stamped(NAMESPACES, None, {"metadata": {"name": name}})

    # ------------------------------------------------------------------ entry point: authentication
    async def __call__(self, raw_request: aiohttp.web.BaseRequest) -> aiohttp.web.StreamResponse:
        seq = self.audit[-1][0] + 1 if self.audit else 0
        self.audit.append((seq, raw_request.method, raw_request.path))
        del self.audit[:-2000]
        if self.require_auth:
            try:
                token = parse_authorization(raw_request.headers.get("Authorization"))
            except InvalidToken:
                return _status(401, "Unauthorized", "Unauthorized")
            if self.principal_policy is not None and not self.principal_policy(token):
                return _status(401, "Unauthorized", "Unauthorized")
            if self.authorizer is not None:
                request = kube_request(raw_request.method, raw_request.path, dict(raw_request.query))
                access = self.authorizer(self.cluster_name, token, request)
                if access.code == 401:
                    return _status(401, "Unauthorized", "Unauthorized")
                if access.code == 403:
                    return _status(403, "Forbidden", request.describe(access.user) + access.reason)
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
            return _status(503, "ServiceUnavailable", "no endpoints available for service")
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
        return result

    # ------------------------------------------------------------------ resource metadata
    def _info(self, res: references.resource) -> references.ResourceInfo | None:
        # Not .get(): kmock's ResourcesArray.__getitem__ creates an empty entry for unknown keys.
        return self.resources[res] if res in self.resources else None  # noqa: SIM401

    def _kind_of(self, res: references.resource) -> tuple[str, str]:
        info = self._info(res)
        kind = info.kind if info and info.kind else res.plural[:-1].capitalize()
        api_version = f"{res.group}/{res.version}" if res.group else res.version
        return kind, api_version

    def _is_namespaced(self, res: references.resource, url_namespace: str | None) -> bool:
        info = self._info(res)
        if info is not None and info.namespaced is not None:
            return bool(info.namespaced)
        return url_namespace is not None

    def _has_status_subresource(self, res: references.resource) -> bool:
        info = self._info(res)
        return bool(info and "status" in info.subresources)

    def _next_rv(self) -> str:
        self._rv += 1
        return str(self._rv)

    def _stamped(self, res: references.resource, namespace: str | None, data: dict[str, Any]) -> dict[str, Any]:
        """A new object with the metadata the API server sets on create."""
        data = copy.deepcopy(data)
        kind, api_version = self._kind_of(res)
        data.setdefault("apiVersion", api_version)
        data.setdefault("kind", kind)
        meta = data.get("metadata") or {}
        data["metadata"] = meta
        if namespace is not None:
            meta["namespace"] = namespace
        if meta.get("generateName") and not meta.get("name"):
            meta["name"] = meta["generateName"] + uuid.uuid4().hex[:5]
        meta["uid"] = str(uuid.uuid4())
        meta["resourceVersion"] = self._next_rv()
        meta["creationTimestamp"] = _now()
        meta["generation"] = 1
        for transient in ("deletionTimestamp", "deletionGracePeriodSeconds"):
            meta.pop(transient, None)
        if res == NAMESPACES:
            data.setdefault("spec", {"finalizers": ["kubernetes"]})
            data["status"] = {"phase": "Active"}
        return data

    def _alive(self, key: tuple[Any, ...]) -> bool:
        return key in self._objects and not self._objects[key].deleted

    def _declare_resource(self, res: references.resource, kind: str | None, namespaced: bool) -> None:
        if res not in self.resources and kind:
            self.resources[res] = references.ResourceInfo(
                kind=kind,
                singular=kind.lower(),
                namespaced=namespaced,
                verbs={"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
            )

    def _declare_crd(self, crd: dict[str, Any]) -> None:
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        for version in spec.get("versions") or []:
            if not version.get("served", True):
                continue
            res = references.resource(group=spec.get("group", ""), version=version["name"], plural=names["plural"])
            self.resources[res] = references.ResourceInfo(
                kind=names.get("kind"),
                singular=names.get("singular") or str(names.get("kind", "")).lower(),
                namespaced=spec.get("scope", "Namespaced") == "Namespaced",
                shortnames=set(names.get("shortNames") or []),
                categories=set(names.get("categories") or []),
                subresources=set((version.get("subresources") or {}).keys()),
                verbs={"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
            )

    async def _emit(self, res: references.resource, event_type: str, obj: dict[str, Any]) -> None:
        await self._buses[res].put({"type": event_type, "object": obj})

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
            return _status(400, "BadRequest", str(exc))
        return await super()._handle(request)

    def _body(self, request: rendering.Request) -> Any:
        if request.data is not None:
            return request.data
        if request.text.strip():
            # Server-side apply may send YAML; everything else is JSON.
            return yaml.safe_load(request.text)
        return None

    def _namespace_missing(self, res: references.resource, namespace: str | None) -> aiohttp.web.Response | None:
        if not self.strict_namespaces or namespace is None or res == NAMESPACES:
            return None
        if self._alive((NAMESPACES, None, namespace)):
            return None
        return _status(
            404, "NotFound", f'namespaces "{namespace}" not found', {"name": namespace, "kind": "namespaces"}
        )

    def _not_found(self, request: rendering.Request) -> aiohttp.web.Response:
        res = request.resource
        assert res is not None
        qualified = f"{res.plural}.{res.group}" if res.group else res.plural
        return _status(
            404,
            "NotFound",
            f'{qualified} "{request.name}" not found',
            {"name": request.name, "group": res.group, "kind": res.plural},
        )

    # ------------------------------------------------------------------ create (POST)
    async def _create(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        res = request.resource
        assert res is not None
        body = self._body(request)
        if not isinstance(body, dict):
            return _status(400, "BadRequest", "the request body must be a JSON object")
        if request.subresource:
            return _status(405, "MethodNotAllowed", f"POST is not supported on {res.plural}/{request.subresource}")
        return await self._insert(request, res, body, status=201)

    async def _insert(
        self, request: rendering.Request, res: references.resource, body: dict[str, Any], *, status: int
    ) -> aiohttp.web.StreamResponse:
        namespaced = self._is_namespaced(res, request.namespace)
        body_ns = (body.get("metadata") or {}).get("namespace")
        namespace = (request.namespace or body_ns) if namespaced else None
        if namespaced and request.namespace and body_ns and body_ns != request.namespace:
            return _status(
                400,
                "BadRequest",
                "the namespace of the provided object does not match the namespace sent on the request",
            )
        if namespaced and not namespace:
            return _status(400, "BadRequest", "a namespace is required for namespaced resources")
        if missing := self._namespace_missing(res, namespace):
            return missing
        self._declare_resource(res, body.get("kind"), namespaced)
        obj = self._stamped(res, namespace, body)
        name = obj["metadata"].get("name")
        if not name:
            return _status(422, "Invalid", "metadata.name: Required value: name or generateName is required")
        if request.name and request.name != name:
            return _status(400, "BadRequest", "the name of the object does not match the name on the URL")
        key = (res, namespace, name)
        async with self._lock:
            if self._alive(key):
                qualified = f"{res.plural}.{res.group}" if res.group else res.plural
                return _status(
                    409,
                    "AlreadyExists",
                    f'{qualified} "{name}" already exists',
                    {"name": name, "group": res.group, "kind": res.plural},
                )
            if request.params.get("dryRun") != "All":
                if key in self._objects:
                    self._objects[key].create(obj)
                else:
                    self._objects[key] = obj
                await self._emit(res, "ADDED", obj)
                if res == CRDS:
                    self._declare_crd(obj)
        return aiohttp.web.json_response(obj, status=status)

    # ------------------------------------------------------------------ update (PUT / PATCH)
    def _finish_update(
        self, res: references.resource, subresource: str | None, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        """Keep what a write through this endpoint may not change, and bump version counters."""
        if subresource == "status":
            new = {**old, "status": new.get("status")}
        elif subresource is None and self._has_status_subresource(res) and "status" in old:
            new = {**new, "status": old["status"]}  # the main endpoint ignores status changes
        elif subresource is None and self._has_status_subresource(res):
            new.pop("status", None)
        old_meta = old.get("metadata") or {}
        meta = dict(new.get("metadata") or {})
        for fixed in ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp"):
            if fixed in old_meta:
                meta[fixed] = old_meta[fixed]
            else:
                meta.pop(fixed, None)
        new["metadata"] = meta
        new.setdefault("kind", old.get("kind"))
        new.setdefault("apiVersion", old.get("apiVersion"))
        generation = int(old_meta.get("generation") or 1)
        if subresource is None and new.get("spec") != old.get("spec"):
            generation += 1
        meta["generation"] = generation
        meta["resourceVersion"] = old_meta.get("resourceVersion")
        if new != old:
            meta["resourceVersion"] = self._next_rv()
        return new

    async def _store_update(
        self,
        res: references.resource,
        key: tuple[Any, ...],
        old: dict[str, Any],
        new: dict[str, Any],
        dry_run: bool,
    ) -> dict[str, Any]:
        if new == old or dry_run:
            return new
        meta = new["metadata"]
        self._objects[key].create(new)
        if meta.get("deletionTimestamp") and not meta.get("finalizers"):
            self._objects[key].delete()  # the last finalizer is gone: the object goes away now
            await self._emit(res, "DELETED", new)
            await self._collect_garbage(res, key, new)
        else:
            await self._emit(res, "MODIFIED", new)
        return new

    def _conflict(self, res: references.resource, name: str) -> aiohttp.web.Response:
        qualified = f"{res.plural}.{res.group}" if res.group else res.plural
        return _status(
            409,
            "Conflict",
            f'Operation cannot be fulfilled on {qualified} "{name}": the object has been modified; '
            "please apply your changes to the latest version and try again",
        )

    async def _replace(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        res = request.resource
        assert res is not None and request.name is not None
        body = self._body(request)
        if not isinstance(body, dict):
            return _status(400, "BadRequest", "the request body must be a JSON object")
        key = (res, request.namespace if self._is_namespaced(res, request.namespace) else None, request.name)
        async with self._lock:
            if not self._alive(key):
                return self._not_found(request)
            old = self._objects[key].raw
            sent_rv = (body.get("metadata") or {}).get("resourceVersion")
            if sent_rv and sent_rv != old["metadata"].get("resourceVersion"):
                return self._conflict(res, request.name)
            if request.subresource == "scale":
                body = {
                    **old,
                    "spec": {**(old.get("spec") or {}), "replicas": (body.get("spec") or {}).get("replicas")},
                }
                new = self._finish_update(res, None, old, copy.deepcopy(body))
                new = await self._store_update(res, key, old, new, request.params.get("dryRun") == "All")
                return aiohttp.web.json_response(self._scale_of(new))
            new = self._finish_update(res, request.subresource, old, copy.deepcopy(body))
            new = await self._store_update(res, key, old, new, request.params.get("dryRun") == "All")
        return aiohttp.web.json_response(new)

    async def _patch(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        res = request.resource
        assert res is not None and request.name is not None
        ctype = request.headers.get("Content-Type", "") or request.headers.get("content-type", "")
        try:
            body = self._body(request)
        except yaml.YAMLError as exc:
            return _status(400, "BadRequest", f"the patch is not valid YAML: {exc}")
        namespace = request.namespace if self._is_namespaced(res, request.namespace) else None
        key = (res, namespace, request.name)
        is_apply = "apply-patch" in ctype
        if not self._alive(key):
            if is_apply and isinstance(body, dict) and request.subresource is None:
                body.setdefault("metadata", {}).setdefault("name", request.name)
                return await self._insert(request, res, body, status=201)  # server-side apply creates
            return self._not_found(request)
        async with self._lock:
            old = self._objects[key].raw
            try:
                if "json-patch" in ctype:
                    if not isinstance(body, list):
                        return _status(400, "BadRequest", "a JSON patch must be a list of operations")
                    patched = json_patch(old, body)
                elif not isinstance(body, dict):
                    return _status(400, "BadRequest", "the patch must be a JSON object")
                elif "merge-patch" in ctype and "strategic" not in ctype:
                    patched = merge_patch(old, body)
                elif "strategic-merge-patch" in ctype or is_apply:
                    patched = strategic_merge(old, body)
                else:
                    return _status(415, "UnsupportedMediaType", f"the content type {ctype!r} is not supported")
            except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
                return _status(422, "Invalid", f"the JSON patch cannot be applied: {exc}")
            sent_rv = (body.get("metadata") or {}).get("resourceVersion") if isinstance(body, dict) else None
            if sent_rv and not is_apply and sent_rv != old["metadata"].get("resourceVersion"):
                return self._conflict(res, request.name)
            if request.subresource == "scale":
                replicas = (patched.get("spec") or {}).get("replicas")
                patched = {**old, "spec": {**(old.get("spec") or {}), "replicas": replicas}}
                new = self._finish_update(res, None, old, patched)
                new = await self._store_update(res, key, old, new, request.params.get("dryRun") == "All")
                return aiohttp.web.json_response(self._scale_of(new))
            new = self._finish_update(res, request.subresource, old, patched)
            new = await self._store_update(res, key, old, new, request.params.get("dryRun") == "All")
        return aiohttp.web.json_response(new)

    # ------------------------------------------------------------------ scale subresource
    @staticmethod
    def _scale_of(obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj.get("metadata") or {}
        selector = ((obj.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
        return {
            "kind": "Scale",
            "apiVersion": "autoscaling/v1",
            "metadata": {
                k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if k in meta
            },
            "spec": {"replicas": (obj.get("spec") or {}).get("replicas", 0)},
            "status": {
                "replicas": (obj.get("status") or {}).get("replicas", 0),
                "selector": ",".join(f"{k}={v}" for k, v in selector.items()),
            },
        }

    async def _get_scale(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        res = request.resource
        assert res is not None
        key = (res, request.namespace, request.name)
        if not self._alive(key):
            return self._not_found(request)
        return aiohttp.web.json_response(self._scale_of(self._objects[key].raw))

    # ------------------------------------------------------------------ delete
    async def _remove(self, res: references.resource, key: tuple[Any, ...], dry_run: bool) -> dict[str, Any]:
        """Delete one object (or mark it terminating while finalizers remain); returns its last state."""
        old = self._objects[key].raw
        meta = old.get("metadata") or {}
        if meta.get("deletionTimestamp") or dry_run:
            return old
        new = copy.deepcopy(old)
        new["metadata"]["resourceVersion"] = self._next_rv()
        if meta.get("finalizers"):
            new["metadata"]["deletionTimestamp"] = _now()
            new["metadata"]["deletionGracePeriodSeconds"] = 0
            self._objects[key].create(new)
            await self._emit(res, "MODIFIED", new)
            return new
        self._objects[key].create(new)
        self._objects[key].delete()
        await self._emit(res, "DELETED", new)
        await self._collect_garbage(res, key, new)
        return new

    async def _collect_garbage(self, res: references.resource, key: tuple[Any, ...], gone: dict[str, Any]) -> None:
        """Delete what depended on a deleted object, as the namespace controller and the garbage collector do.

        The real cluster does this in the background; here it happens before the DELETE returns, so
        a job's pods (ownerReferences) or a namespace's objects are gone when the caller looks again.
        """
        uid = (gone.get("metadata") or {}).get("uid")
        for other_key, obj in list(self._objects.items()):
            other, ns, _name = other_key
            if obj.deleted or other_key == key:
                continue
            in_namespace = res == NAMESPACES and ns == key[2] and other != NAMESPACES
            owners = (obj.raw.get("metadata") or {}).get("ownerReferences") or []
            owned = bool(uid) and any(ref.get("uid") == uid for ref in owners) and (key[1] is None or ns == key[1])
            if in_namespace or owned:
                await self._remove(other, other_key, dry_run=False)

    async def _delete(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        res = request.resource
        assert res is not None
        if request.subresource:
            return _status(405, "MethodNotAllowed", f"DELETE is not supported on {res.plural}/{request.subresource}")
        key = (res, request.namespace if self._is_namespaced(res, request.namespace) else None, request.name)
        async with self._lock:
            if not self._alive(key):
                return self._not_found(request)
            last = await self._remove(res, key, request.params.get("dryRun") == "All")
        return aiohttp.web.json_response(last)

    async def _delete_collection(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        res = request.resource
        assert res is not None
        labels, fields = request.params.get("labelSelector"), request.params.get("fieldSelector")
        deleted = []
        async with self._lock:
            for (other, ns, name), obj in list(self._objects.items()):
                if other != res or obj.deleted or (request.namespace is not None and ns != request.namespace):
                    continue
                raw = obj.raw
                if label_selector_matches(labels, (raw.get("metadata") or {}).get("labels")) and field_selector_matches(
                    fields, raw
                ):
                    deleted.append(await self._remove(res, (res, ns, name), request.params.get("dryRun") == "All"))
        kind, api_version = self._kind_of(res)
        return aiohttp.web.json_response(
            {
                "kind": f"{kind}List",
                "apiVersion": api_version,
                "metadata": {"resourceVersion": str(self._rv)},
                "items": deleted,
            }
        )

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
        events = super()._serve_watch(request)
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
                    if since_rv and _rv_of(obj) <= since_rv:
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
        key = (request.resource, request.namespace, request.name)
        if not self._alive(key):
            return self._not_found(request)
        pod = self._objects[key].raw
        containers = [c.get("name") for c in ((pod.get("spec") or {}).get("containers") or [])]
        container = request.params.get("container")
        if container and containers and container not in containers:
            return _status(400, "BadRequest", f"container {container} is not valid for pod {request.name}")
        if not container and len(containers) > 1:
            # The API server picks a container only when the pod has one; kubectl's default-container annotation is
            # kubectl's own (kubernetes pkg/registry/core/pod/rest/log.go -> strategy.go LogLocation).
            return _status(
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
            return _status(400, "BadRequest", "at most one of sinceTime or sinceSeconds may be specified")
        start = self._since_offset(found, int(since)) if found and since and since.isdigit() else 0
        stamped = request.params.get("timestamps") == "true"
        if found and (since_time or stamped):
            at = pod_log_times.parse_rfc3339(since_time) if since_time else None
            if since_time and at is None:
                return _status(400, "BadRequest", f"sinceTime {since_time!r} is not RFC3339")
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
        for sink in LOG_SINKS:
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

    async def put_object(self, resource: str, obj: dict[str, Any]) -> dict[str, Any]:
        """Create or replace an object as a controller would, with events (call on the emulator loop).

        ``resource`` is kmock notation such as ``"v1/pods"`` or ``"apps/v1/deployments"``.
        """
        res = references.resource(resource)
        meta = obj.get("metadata") or {}
        namespace = meta.get("namespace") if self._is_namespaced(res, meta.get("namespace")) else None
        key = (res, namespace, meta["name"])
        async with self._lock:
            if self._alive(key):
                old = self._objects[key].raw
                new = self._finish_update(res, None, old, copy.deepcopy(obj))
                if "status" in obj:
                    new["status"] = copy.deepcopy(obj["status"])
                    if new != old and new["metadata"]["resourceVersion"] == old["metadata"].get("resourceVersion"):
                        new["metadata"]["resourceVersion"] = self._next_rv()
                return await self._store_update(res, key, old, new, dry_run=False)
            self._declare_resource(res, obj.get("kind"), namespace is not None)
            new = self._stamped(res, namespace, obj)
            if key in self._objects:
                self._objects[key].create(new)
            else:
                self._objects[key] = new
            await self._emit(res, "ADDED", new)
            return new

    async def delete_object(self, resource: str, namespace: str | None, name: str) -> None:
        """Delete an object as a controller would, with its cascade (call on the emulator loop)."""
        key = (references.resource(resource), namespace, name)
        async with self._lock:
            if self._alive(key):
                await self._remove(key[0], key, dry_run=False)

    def get_object(self, resource: str, namespace: str | None, name: str) -> dict[str, Any] | None:
        """The current state of an object, or None (call on the emulator loop)."""
        key = (references.resource(resource), namespace, name)
        return copy.deepcopy(self._objects[key].raw) if self._alive(key) else None

    def exists(self, resource: str, namespace: str | None, name: str) -> bool:
        """Whether an object is live, without copying it (controllers ask this of CRDs every tick)."""
        return bool(self._alive((references.resource(resource), namespace, name)))

    def list_objects(self, resource: str, namespace: str | None = None, *, copied: bool = True) -> list[dict[str, Any]]:
        """Live objects of a resource, optionally in one namespace (call on the emulator loop).

        ``copied=False`` hands out the stored objects themselves, for a reader that never changes them
        (a controller reading RBAC every tick would otherwise spend its time in deepcopy)."""
        res = references.resource(resource)
        found = [
            obj.raw
            for (r, ns, _), obj in list(self._objects.items())
            if r == res and not obj.deleted and (namespace is None or ns == namespace)
        ]
        return [copy.deepcopy(raw) for raw in found] if copied else found


__all__ = ["DEFAULT_NAMESPACES", "PatchedKubernetesEmulator", "status_body"]
