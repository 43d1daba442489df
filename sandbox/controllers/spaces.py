"""HyperPod Spaces' operator (jupyter-k8s, run by the amazon-sagemaker-spaces EKS add-on), emulated for the
sandbox's Kubernetes APIs, and the Space's server behind the API server's Service proxy.

What AWS and the operator's source document, and the sandbox does:

* Once the add-on is ACTIVE, the Workspace and WorkspaceTemplate kinds are served and the add-on's two
  templates exist in ``jupyter-k8s-system``, ``sagemaker-jupyter-template`` and
  ``sagemaker-code-editor-template`` ("Create and manage spaces",
  https://docs.aws.amazon.com/sagemaker/latest/dg/create-manage-spaces.html). Their default image,
  ``public.ecr.aws/sagemaker/sagemaker-distribution:latest-cpu``, is what ``kubectl get workspacetemplates``
  shows on a cluster with the add-on (a user's report; AWS's pages do not name it: not verified).
* A Workspace whose ``desiredStatus`` is Running (the default) gets a Deployment ``workspace-<name>`` with one
  pod (container ``workspace``, port 8888, label ``workspace.jupyter.org/workspace-name``) and a Service
  ``workspace-<name>-service`` (jupyter-k8s internal/controller/constants.go, deployment_builder.go,
  service_builder.go). Its ``volumes`` are mounted from their claims at their ``mountPath``.
* Conditions, as the operator's status manager writes them (internal/controller/status_manager.go): while
  the pod is not ready, Available False and Progressing True (ComputeNotReady); once it is, Available True
  (ResourcesReady), Progressing False; Stopped True (AllResourcesStopped) once a Stopped Workspace's
  Deployment and Service are deleted, Progressing True until then; Deleting True while a deleted Workspace's
  resources are removed (its finalizer ``workspace.jupyter.org/workspace-protection``). A template that does
  not exist is Degraded True (ComputeError).
* Idle shutdown: a Running Workspace with ``idleShutdown.enabled`` whose server saw no request for
  ``idleTimeoutInMinutes`` gets ``desiredStatus: Stopped`` (state_machine.go, stopWorkspaceDueToIdle). The
  sandbox counts a request through the Service proxy as activity; simulated minutes follow the time scale.
* The server (``serve``): Jupyter Server's Contents API (``GET /api/contents/<path>``,
  https://jupyter-server.readthedocs.io/en/latest/developers/rest-api.html) answers a file's text or a
  directory's entries as the container sees them, so a file in the shared bucket is read through the pod's
  Mountpoint volume (sandbox.controllers.programs). Simplified: the sandbox's server is rooted at ``/``
  (a real server is rooted at its ``ServerApp.root_dir``, the user's home), only S3 mounts are known
  (other paths are 404), and there is no authentication token (port-forward reaches it as is).
"""

from __future__ import annotations

import base64
import logging
import time
from typing import Any

import aiohttp.web

from sandbox.aws import clock
from sandbox.controllers import programs
from sandbox.controllers.common import crd, install_crd, timestamp
from sandbox.controllers.periodic import Periodic

log = logging.getLogger("sandbox.controllers.spaces")

ADDON = "amazon-sagemaker-spaces"
GROUP, VERSION = "workspace.jupyter.org", "v1alpha1"
WORKSPACES = f"{GROUP}/{VERSION}/workspaces"
TEMPLATES = f"{GROUP}/{VERSION}/workspacetemplates"
WORKSPACE_CRD = crd(GROUP, "Workspace", "workspaces", (VERSION,))
TEMPLATE_CRD = crd(GROUP, "WorkspaceTemplate", "workspacetemplates", (VERSION,))
SYSTEM_NAMESPACE = "jupyter-k8s-system"
DEFAULT_IMAGE = "public.ecr.aws/sagemaker/sagemaker-distribution:latest-cpu"
NAME_LABEL = "workspace.jupyter.org/workspace-name"
FINALIZER = "workspace.jupyter.org/workspace-protection"
PORT = 8888
_TEMPLATES = {"sagemaker-jupyter-template": "jupyterlab", "sagemaker-code-editor-template": "code-editor"}
_ACTIVITY: dict[tuple[str, str, str], float] = {}  # (cluster, namespace, workspace) -> monotonic time of last use


def _templates() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": "WorkspaceTemplate",
            "metadata": {"name": name, "namespace": SYSTEM_NAMESPACE},
            "spec": {"displayName": name, "defaultImage": DEFAULT_IMAGE, "appType": app},
        }
        for name, app in _TEMPLATES.items()
    ]


def _names(workspace: dict[str, Any]) -> tuple[str, str]:
    name = workspace["metadata"]["name"]
    return f"workspace-{name}", f"workspace-{name}-service"


def _children(workspace: dict[str, Any], image: str) -> tuple[dict[str, Any], dict[str, Any]]:
    meta, spec = workspace["metadata"], workspace.get("spec") or {}
    deployment_name, service_name = _names(workspace)
    labels = {"app": "jupyter", NAME_LABEL: meta["name"]}
    owner = [
        {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Workspace", "name": meta["name"], "uid": meta.get("uid", "")}
    ]
    volumes = [
        {"name": v["name"], "persistentVolumeClaim": {"claimName": v["persistentVolumeClaimName"]}}
        for v in spec.get("volumes") or []
    ]
    container: dict[str, Any] = {
        "name": "workspace",
        "image": image,
        "ports": [{"containerPort": PORT, "name": "http"}],
        "resources": spec.get("resources") or {},
        "env": spec.get("env") or [],
        "volumeMounts": [{"name": v["name"], "mountPath": v["mountPath"]} for v in spec.get("volumes") or []],
    }
    pod: dict[str, Any] = {"containers": [container], "volumes": volumes}
    for key in ("nodeSelector", "tolerations", "affinity"):
        if spec.get(key):
            pod[key] = spec[key]
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": deployment_name,
            "namespace": meta["namespace"],
            "labels": labels,
            "ownerReferences": owner,
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {NAME_LABEL: meta["name"]}},
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": service_name, "namespace": meta["namespace"], "labels": labels, "ownerReferences": owner},
        "spec": {
            "type": "ClusterIP",
            "selector": {NAME_LABEL: meta["name"]},
            "ports": [{"name": "http", "port": PORT, "targetPort": PORT}],
        },
    }
    return deployment, service


def _conditions(
    available: str, progressing: str, stopped: str, deleting: str, reason: str, message: str
) -> list[dict[str, Any]]:
    def one(kind: str, status: str, why: str) -> dict[str, Any]:
        return {"type": kind, "status": status, "reason": why, "message": message}

    return [
        one("Available", available, reason),
        one("Progressing", progressing, reason),
        one("Degraded", "False", "NoError"),
        one("Stopped", stopped, reason),
        one("Deleting", deleting, reason),
    ]


async def _set_status(emulator: Any, workspace: dict[str, Any], status: dict[str, Any]) -> None:
    """Write ``status`` when it differs; a condition keeps its lastTransitionTime while its status stays."""
    old = workspace.get("status") or {}
    before = {c["type"]: c for c in old.get("conditions") or []}
    now = timestamp()
    for c in status.get("conditions") or []:
        prior = before.get(c["type"])
        same = prior is not None and prior.get("status") == c["status"]
        c["lastTransitionTime"] = prior.get("lastTransitionTime", now) if same and prior else now
    strip = [{k: v for k, v in c.items() if k != "lastTransitionTime"} for c in old.get("conditions") or []]
    wanted = [{k: v for k, v in c.items() if k != "lastTransitionTime"} for c in status.get("conditions") or []]
    if strip == wanted and {k: v for k, v in old.items() if k != "conditions"} == {
        k: v for k, v in status.items() if k != "conditions"
    }:
        return
    await emulator.put_object(WORKSPACES, {**workspace, "status": status})


async def _delete_children(emulator: Any, workspace: dict[str, Any]) -> bool:
    """Delete the Deployment (and its pods) and Service; True once both are gone."""
    ns = workspace["metadata"]["namespace"]
    deployment_name, service_name = _names(workspace)
    gone = True
    for resource, name in (("apps/v1/deployments", deployment_name), ("v1/services", service_name)):
        if emulator.get_object(resource, ns, name) is not None:
            await emulator.delete_object(resource, ns, name)
            gone = False
    for pod in emulator.list_objects("v1/pods", ns):
        if (pod["metadata"].get("labels") or {}).get(NAME_LABEL) == workspace["metadata"]["name"]:
            await emulator.delete_object("v1/pods", ns, pod["metadata"]["name"])
    return gone


def _available(deployment: dict[str, Any] | None) -> bool:
    return int(((deployment or {}).get("status") or {}).get("availableReplicas") or 0) >= 1


async def _put_if_changed(emulator: Any, resource: str, wanted: dict[str, Any]) -> dict[str, Any]:
    meta = wanted["metadata"]
    old = emulator.get_object(resource, meta["namespace"], meta["name"])
    if old is not None and old.get("spec") == wanted["spec"]:
        return dict(old)
    stored: dict[str, Any] = await emulator.put_object(resource, {**(old or {}), **wanted})
    return stored


async def _running(emulator: Any, cluster: str, workspace: dict[str, Any]) -> None:
    meta, spec = workspace["metadata"], workspace.get("spec") or {}
    key = (cluster, meta["namespace"], meta["name"])
    image = spec.get("image")
    ref = spec.get("templateRef") or {}
    if not image and ref:
        template = emulator.get_object(TEMPLATES, ref.get("namespace") or meta["namespace"], ref.get("name", ""))
        if template is None:
            message = f'failed to ensure deployment exists: WorkspaceTemplate "{ref.get("name")}" not found'
            conditions = _conditions("False", "False", "False", "False", "ComputeError", message)
            conditions[2] = {"type": "Degraded", "status": "True", "reason": "ComputeError", "message": message}
            await _set_status(emulator, workspace, {"conditions": conditions})
            return
        image = (template.get("spec") or {}).get("defaultImage")
    deployment, service = _children(workspace, image or DEFAULT_IMAGE)
    found = await _put_if_changed(emulator, "apps/v1/deployments", deployment)
    await _put_if_changed(emulator, "v1/services", service)
    status = {"deploymentName": deployment["metadata"]["name"], "serviceName": service["metadata"]["name"]}
    if not _available(found):
        _ACTIVITY.pop(key, None)
        message = "Compute is not ready"
        status["conditions"] = _conditions("False", "True", "False", "False", "ComputeNotReady", message)
        await _set_status(emulator, workspace, status)
        return
    status["conditions"] = _conditions("True", "False", "False", "False", "ResourcesReady", "Workspace is ready")
    status["conditions"][3]["reason"] = status["conditions"][4]["reason"] = "DesiredStateRunning"
    await _set_status(emulator, workspace, status)
    idle = spec.get("idleShutdown") or {}
    last = _ACTIVITY.setdefault(key, time.monotonic())
    if idle.get("enabled") and clock.sim_seconds_elapsed(last) >= 60 * int(idle.get("idleTimeoutInMinutes") or 0):
        _ACTIVITY.pop(key, None)
        stopped = emulator.get_object(WORKSPACES, meta["namespace"], meta["name"])
        if stopped is not None:
            stopped["spec"] = {**(stopped.get("spec") or {}), "desiredStatus": "Stopped"}
            await emulator.put_object(WORKSPACES, stopped)


async def _reconcile_one(emulator: Any, cluster: str, workspace: dict[str, Any]) -> None:
    meta = workspace["metadata"]
    if meta.get("deletionTimestamp"):
        status = {
            "conditions": _conditions(
                "False", "False", "False", "True", "DeletionInProgress", "Workspace is being deleted"
            )
        }
        await _set_status(emulator, workspace, status)
        if await _delete_children(emulator, workspace):
            found = emulator.get_object(WORKSPACES, meta["namespace"], meta["name"])
            if found is not None:
                found["metadata"]["finalizers"] = [
                    f for f in found["metadata"].get("finalizers") or [] if f != FINALIZER
                ]
                await emulator.put_object(WORKSPACES, found)
        return
    if FINALIZER not in (meta.get("finalizers") or []):
        workspace["metadata"]["finalizers"] = [*(meta.get("finalizers") or []), FINALIZER]
        workspace = await emulator.put_object(WORKSPACES, workspace)
    if ((workspace.get("spec") or {}).get("desiredStatus") or "Running") == "Running":
        await _running(emulator, cluster, workspace)
        return
    _ACTIVITY.pop((cluster, meta["namespace"], meta["name"]), None)
    if await _delete_children(emulator, workspace):
        conditions = _conditions("False", "False", "True", "False", "DesiredStateStopped", "Workspace is stopped")
        conditions[3]["reason"] = "AllResourcesStopped"
        await _set_status(emulator, workspace, {"conditions": conditions})
    else:
        message = "Workspace is stopping"
        await _set_status(
            emulator,
            workspace,
            {"conditions": _conditions("False", "True", "False", "False", "ComputeNotStopped", message)},
        )


# ------------------------------------------------------------------ the server behind the Service proxy
def serves(pod: dict[str, Any]) -> bool:
    return NAME_LABEL in (pod["metadata"].get("labels") or {})


def _entries(files: programs.Files, path: str) -> list[dict[str, Any]]:
    """A directory's entries under an S3 mount: the next level of keys under its prefix."""
    located = files._locate(path)
    if located is None:
        return []
    mount, rest = located
    prefix = mount.prefix + (rest + "/" if rest else "")
    names: dict[str, str] = {}
    for key in programs._keys(mount.bucket):
        if key.startswith(prefix) and key != prefix:
            head, slash, _ = key[len(prefix) :].partition("/")
            names[head] = "directory" if slash else names.get(head, "file")
    base = path.strip("/")
    return [{"name": n, "path": f"{base}/{n}", "type": t} for n, t in sorted(names.items())]


def serve(emulator: Any, pod: dict[str, Any], method: str, rest: str) -> aiohttp.web.Response:
    """Jupyter Server's answer to ``method rest`` on the Space's pod."""
    meta, cluster = pod["metadata"], emulator.cluster_name
    workspace = (meta.get("labels") or {})[NAME_LABEL]
    _ACTIVITY[(cluster, meta["namespace"], workspace)] = time.monotonic()
    if method != "GET" or not rest.startswith("/api/contents"):
        return aiohttp.web.json_response({"message": "Not Found", "reason": None}, status=404)
    path = rest.removeprefix("/api/contents").strip("/")
    container = (pod["spec"].get("containers") or [{}])[0]
    files = programs.Files(programs.mounts(emulator, meta["namespace"], pod["spec"], container))
    kind = files.kind("/" + path)
    if kind in (None, "missing"):
        return aiohttp.web.json_response({"message": f"No such file or directory: {path}", "reason": None}, status=404)
    name = path.rsplit("/", 1)[-1]
    if kind == "dir":
        body = {"name": name, "path": path, "type": "directory", "format": "json", "content": _entries(files, path)}
        return aiohttp.web.json_response(body)
    data = files.read("/" + path) or b""
    try:
        content, fmt = data.decode(), "text"
    except UnicodeDecodeError:
        content, fmt = base64.b64encode(data).decode(), "base64"
    return aiohttp.web.json_response(
        {"name": name, "path": path, "type": "file", "format": fmt, "content": content, "size": len(data)}
    )


# ------------------------------------------------------------------ the controller
def _addon_active(cluster: str) -> bool:
    from sandbox.aws.eks import find_cluster

    found = find_cluster(cluster)
    addon = found.addons.get(ADDON) if found is not None else None
    return addon is not None and addon.health()[0] == "ACTIVE"


def _reconciler(cluster: str) -> Any:
    async def reconcile(emulator: Any) -> None:
        await install_crd(emulator, WORKSPACE_CRD)
        await install_crd(emulator, TEMPLATE_CRD)
        for template in _templates():
            if emulator.get_object(TEMPLATES, SYSTEM_NAMESPACE, template["metadata"]["name"]) is None:
                await emulator.put_object(TEMPLATES, template)
        for workspace in emulator.list_objects(WORKSPACES):
            await _reconcile_one(emulator, cluster, workspace)

    return reconcile


def reconcile_all(fleet: Any) -> None:
    for name in fleet.names():
        try:
            if _addon_active(name):
                fleet.call(name, _reconciler(name))
        except Exception:  # a cluster being deleted, a loop shutting down: try again next tick
            log.debug("spaces reconcile failed for %s", name, exc_info=True)


def spaces_controller(fleet: Any, interval: float = 0.2) -> Periodic:
    return Periodic("sandbox-spaces", interval, lambda: reconcile_all(fleet))
