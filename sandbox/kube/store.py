"""The emulated API server's object store: kmock's store with the metadata, versions, cascade and
namespaces a real API server keeps, and the calls the simulated controllers make on it.

``EmulatorStore`` is the base of ``PatchedKubernetesEmulator`` (``sandbox.kube.emulator``, which serves
requests; ``sandbox.kube.writes`` its write endpoints). kmock 0.8 keeps objects, history and watch
buses; this class stamps server-side metadata (namespace, uid, resourceVersion, generation,
creationTimestamp, kind, apiVersion), declares CRDs, and deletes with finalizers, namespace and
ownerReferences cascade (Kubernetes docs, "Garbage Collection", "Finalizers").
"""

from __future__ import annotations

import copy
import datetime
import functools
import pickle
import uuid
import warnings
from typing import Any

import aiohttp.web
import attrs
import kmock
import yaml
from kmock._internal import parsing, references, rendering

from sandbox.kube.tokens import Authorizer, EksToken, PrincipalPolicy

NAMESPACES = references.resource(group="", version="v1", plural="namespaces")
CRDS = references.resource(group="apiextensions.k8s.io", version="v1", plural="customresourcedefinitions")
DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


@functools.lru_cache(maxsize=512)
def resource_of(notation: str) -> references.resource:
    """kmock's resource for a notation such as ``"v1/pods"``, parsed once: the controllers name the same few
    resources many times a second, and kmock's parse is a dozen Protocol isinstance checks."""
    return references.resource(notation)


def clone(raw: Any) -> Any:
    """A deep copy of a stored object: a pickle round trip, several times cheaper than ``copy.deepcopy`` on the
    plain JSON trees objects are (the simulated controllers copy every object they read, many times a second)."""
    try:
        return pickle.loads(pickle.dumps(raw, pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return copy.deepcopy(raw)


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


def now() -> str:
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


def status_response(
    code: int, reason: str, message: str, details: dict[str, Any] | None = None
) -> aiohttp.web.Response:
    return aiohttp.web.json_response(status_body(code, reason, message, details), status=code)


def rv_of(obj: dict[str, Any]) -> int:
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or 0)
    except (TypeError, ValueError):
        return 0


@attrs.define(kw_only=True)
class EmulatorStore(kmock.KubernetesEmulator):
    """The emulator's state and its store-level operations (see the module docstring).

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
    # Each resource's keys and objects, rebuilt when a key is added (see _of_resource).
    _by_resource: dict[tuple[Any, ...], list[tuple[Any, Any]]] = attrs.field(factory=dict, init=False)
    _indexed: int = attrs.field(default=-1, init=False)

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        for res, info in _builtin_resources().items():
            self.resources[res] = copy.deepcopy(info)
        for name in DEFAULT_NAMESPACES:
            self._objects[NAMESPACES, None, name] = self._stamped(NAMESPACES, None, {"metadata": {"name": name}})

    # ------------------------------------------------------------------ resource metadata
    def _info(self, res: references.resource) -> references.ResourceInfo | None:
        # Not .get(): kmock's ResourcesArray.__getitem__ creates an empty entry for unknown keys.
        return self.resources[res] if res in self.resources else None  # noqa: SIM401

    def _kind_of(self, res: references.resource) -> tuple[str, str]:
        info = self._info(res)
        assert res.plural is not None and res.version is not None  # a resource the server routes has both
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
        data = clone(data)
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
        meta["creationTimestamp"] = now()
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
        if event_type != "MODIFIED":  # an object came to life or went away: the live index is rebuilt on next use
            self._indexed = -1
        await self._buses[res].put({"type": event_type, "object": obj})

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
        return status_response(
            404, "NotFound", f'namespaces "{namespace}" not found', {"name": namespace, "kind": "namespaces"}
        )

    def _not_found(self, request: rendering.Request) -> aiohttp.web.Response:
        res = request.resource
        assert res is not None
        qualified = f"{res.plural}.{res.group}" if res.group else res.plural
        return status_response(
            404,
            "NotFound",
            f'{qualified} "{request.name}" not found',
            {"name": request.name, "group": res.group, "kind": res.plural},
        )

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

    # ------------------------------------------------------------------ delete
    async def _remove(self, res: references.resource, key: tuple[Any, ...], dry_run: bool) -> dict[str, Any]:
        """Delete one object (or mark it terminating while finalizers remain); returns its last state."""
        old: dict[str, Any] = self._objects[key].raw
        meta = old.get("metadata") or {}
        if meta.get("deletionTimestamp") or dry_run:
            return old
        new: dict[str, Any] = clone(old)
        new["metadata"]["resourceVersion"] = self._next_rv()
        if meta.get("finalizers"):
            new["metadata"]["deletionTimestamp"] = now()
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

    # ------------------------------------------------------------------ helpers for simulated controllers
    async def put_object(self, resource: str, obj: dict[str, Any]) -> dict[str, Any]:
        """Create or replace an object as a controller would, with events (call on the emulator loop).

        ``resource`` is kmock notation such as ``"v1/pods"`` or ``"apps/v1/deployments"``.
        """
        res = resource_of(resource)
        meta = obj.get("metadata") or {}
        namespace = meta.get("namespace") if self._is_namespaced(res, meta.get("namespace")) else None
        key = (res, namespace, meta["name"])
        async with self._lock:
            if self._alive(key):
                old = self._objects[key].raw
                new = self._finish_update(res, None, old, clone(obj))
                if "status" in obj:
                    new["status"] = clone(obj["status"])
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
        key = (resource_of(resource), namespace, name)
        async with self._lock:
            if self._alive(key):
                await self._remove(key[0], key, dry_run=False)

    def get_object(
        self, resource: str, namespace: str | None, name: str, *, copied: bool = True
    ) -> dict[str, Any] | None:
        """The current state of an object, or None (call on the emulator loop); ``copied=False`` as for
        ``list_objects``."""
        key = (resource_of(resource), namespace, name)
        if not self._alive(key):
            return None
        raw: dict[str, Any] = self._objects[key].raw
        return clone(raw) if copied else raw

    def exists(self, resource: str, namespace: str | None, name: str) -> bool:
        """Whether an object is live, without copying it (controllers ask this of CRDs every tick)."""
        return bool(self._alive((resource_of(resource), namespace, name)))

    def list_objects(self, resource: str, namespace: str | None = None, *, copied: bool = True) -> list[dict[str, Any]]:
        """Live objects of a resource, optionally in one namespace (call on the emulator loop).

        ``copied=False`` hands out the stored objects themselves, for a reader that never changes them
        (a controller reading RBAC every tick would otherwise spend its time in deepcopy)."""
        found = [
            obj.raw
            for (_, ns, _), obj in self._of_resource(resource_of(resource))
            if not obj.deleted and (namespace is None or ns == namespace)
        ]
        return [clone(raw) for raw in found] if copied else found

    def _of_resource(self, res: references.resource) -> list[tuple[Any, Any]]:
        """The (key, object) pairs of one resource's live objects, in the store's order, without walking every
        object: a cluster keeps every object it ever had (kmock's DELETE and this store's soft-delete it:
        ``deleted`` is True and its history stays), and its controllers list Pods many times a second.

        Rebuilt when an object is added or goes away (``_emit``) and when the number of keys changes (an object
        put in ``objects`` directly). A reader still checks ``deleted``: an object soft-deleted directly stays
        listed here until the next rebuild."""
        if len(self._objects) != self._indexed:
            by_resource: dict[tuple[Any, ...], list[tuple[Any, Any]]] = {}
            for key, obj in list(self._objects.items()):
                if obj.deleted:
                    continue
                r = key[0]
                by_resource.setdefault((r.group, r.version, r.plural), []).append((key, obj))
            self._by_resource, self._indexed = by_resource, len(self._objects)
        return self._by_resource.get((res.group, res.version, res.plural), [])
