"""The API server's write endpoints: create (POST, with server-side apply), replace (PUT), patch (JSON,
merge, strategic-merge and apply patches), the scale subresource, pods' eviction, delete and delete-collection, with
optimistic concurrency on ``metadata.resourceVersion`` and ``dryRun=All`` (Kubernetes API concepts,
"Resource versions", "Dry-run"; kubectl docs, "Update API Objects in Place Using kubectl patch").
"""

from __future__ import annotations

from typing import Any

import aiohttp.web
import attrs
import jsonpatch
import jsonpointer
import yaml
from kmock._internal import references, rendering

from sandbox.kube.matching import field_selector_matches, label_selector_matches
from sandbox.kube.merging import json_patch, merge_patch, strategic_merge
from sandbox.kube.store import CRDS, EmulatorStore, clone, status_response


@attrs.define(kw_only=True)
class WritingEmulator(EmulatorStore):
    """The write endpoints of ``PatchedKubernetesEmulator``."""

    # ------------------------------------------------------------------ create (POST)
    async def _create(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        res = request.resource
        assert res is not None
        body = self._body(request)
        if not isinstance(body, dict):
            return status_response(400, "BadRequest", "the request body must be a JSON object")
        if request.subresource:
            return status_response(
                405, "MethodNotAllowed", f"POST is not supported on {res.plural}/{request.subresource}"
            )
        return await self._insert(request, res, body, status=201)

    # ------------------------------------------------------------------ pods/eviction
    async def _evict(self, request: rendering.Request, res: references.resource) -> aiohttp.web.StreamResponse:
        """API-initiated eviction (https://kubernetes.io/docs/concepts/scheduling-eviction/api-eviction/): the
        pod is deleted, unless a PodDisruptionBudget selecting it has no disruption left: 429, "Cannot evict
        pod as it would violate the pod's disruption budget." Budgets given as integers are counted here
        (healthy = Running pods the budget selects); percentages and matchExpressions are not."""
        key = (res, request.namespace, str(request.name))
        async with self._lock:
            if not self._alive(key):
                return self._not_found(request)
            pod = self._objects[key].raw
            if not self._budget_allows(request.namespace, pod):
                return status_response(
                    429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget."
                )
            await self._remove(res, key, request.params.get("dryRun") == "All")
        return aiohttp.web.json_response({"kind": "Status", "apiVersion": "v1", "status": "Success"}, status=201)

    def _budget_allows(self, namespace: str | None, pod: dict[str, Any]) -> bool:
        labels = (pod.get("metadata") or {}).get("labels") or {}
        pods = self.list_objects("v1/pods", namespace, copied=False)
        for budget in self.list_objects("policy/v1/poddisruptionbudgets", namespace, copied=False):
            spec = budget.get("spec") or {}
            wanted = (spec.get("selector") or {}).get("matchLabels") or {}
            if not wanted or any(labels.get(k) != v for k, v in wanted.items()):
                continue
            selected = [
                p
                for p in pods
                if all(((p.get("metadata") or {}).get("labels") or {}).get(k) == v for k, v in wanted.items())
            ]
            healthy = sum(1 for p in selected if (p.get("status") or {}).get("phase") == "Running")
            if isinstance(spec.get("minAvailable"), int) and healthy - spec["minAvailable"] <= 0:
                return False
            if isinstance(spec.get("maxUnavailable"), int) and spec["maxUnavailable"] - (len(selected) - healthy) <= 0:
                return False
        return True

    async def _insert(
        self, request: rendering.Request, res: references.resource, body: dict[str, Any], *, status: int
    ) -> aiohttp.web.StreamResponse:
        namespaced = self._is_namespaced(res, request.namespace)
        body_ns = (body.get("metadata") or {}).get("namespace")
        namespace = (request.namespace or body_ns) if namespaced else None
        if namespaced and request.namespace and body_ns and body_ns != request.namespace:
            return status_response(
                400,
                "BadRequest",
                "the namespace of the provided object does not match the namespace sent on the request",
            )
        if namespaced and not namespace:
            return status_response(400, "BadRequest", "a namespace is required for namespaced resources")
        if missing := self._namespace_missing(res, namespace):
            return missing
        self._declare_resource(res, body.get("kind"), namespaced)
        obj = self._stamped(res, namespace, body)
        name = obj["metadata"].get("name")
        if not name:
            return status_response(422, "Invalid", "metadata.name: Required value: name or generateName is required")
        if request.name and request.name != name:
            return status_response(400, "BadRequest", "the name of the object does not match the name on the URL")
        key = (res, namespace, name)
        async with self._lock:
            if self._alive(key):
                qualified = f"{res.plural}.{res.group}" if res.group else res.plural
                return status_response(
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

    def _conflict(self, res: references.resource, name: str) -> aiohttp.web.Response:
        qualified = f"{res.plural}.{res.group}" if res.group else res.plural
        return status_response(
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
            return status_response(400, "BadRequest", "the request body must be a JSON object")
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
                new = self._finish_update(res, None, old, clone(body))
                new = await self._store_update(res, key, old, new, request.params.get("dryRun") == "All")
                return aiohttp.web.json_response(self._scale_of(new))
            new = self._finish_update(res, request.subresource, old, clone(body))
            new = await self._store_update(res, key, old, new, request.params.get("dryRun") == "All")
        return aiohttp.web.json_response(new)

    async def _patch(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        res = request.resource
        assert res is not None and request.name is not None
        ctype = request.headers.get("Content-Type", "") or request.headers.get("content-type", "")
        try:
            body = self._body(request)
        except yaml.YAMLError as exc:
            return status_response(400, "BadRequest", f"the patch is not valid YAML: {exc}")
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
                        return status_response(400, "BadRequest", "a JSON patch must be a list of operations")
                    patched = json_patch(old, body)
                elif not isinstance(body, dict):
                    return status_response(400, "BadRequest", "the patch must be a JSON object")
                elif "merge-patch" in ctype and "strategic" not in ctype:
                    patched = merge_patch(old, body)
                elif "strategic-merge-patch" in ctype or is_apply:
                    patched = strategic_merge(old, body)
                else:
                    return status_response(415, "UnsupportedMediaType", f"the content type {ctype!r} is not supported")
            except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
                return status_response(422, "Invalid", f"the JSON patch cannot be applied: {exc}")
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
        assert res is not None and request.name is not None
        key = (res, request.namespace, request.name)
        if not self._alive(key):
            return self._not_found(request)
        return aiohttp.web.json_response(self._scale_of(self._objects[key].raw))

    async def _delete(self, request: rendering.Request) -> aiohttp.web.StreamResponse:
        res = request.resource
        assert res is not None
        if request.subresource:
            return status_response(
                405, "MethodNotAllowed", f"DELETE is not supported on {res.plural}/{request.subresource}"
            )
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
