"""HyperPod Spaces: the Workspace (workspace.jupyter.org/v1alpha1) Launchpod applies for a user's
development environment, and how its status reads.

The object is made by AWS's versioned model of a Space, ``hyperpod_space_template`` 1.1 (the model the
HyperPod CLI's ``hyp create hyp-space`` uses; needs the amazon-sagemaker-spaces add-on 0.1.6 or later), so
field names and rules (name pattern, unique volume names and paths, idle timeout >= 1) are AWS's. The
IDE comes from the add-on's templates, ``sagemaker-jupyter-template`` and ``sagemaker-code-editor-template``
in ``jupyter-k8s-system`` ("Create a space", https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-cluster-ide.html).
The shared bucket's claim is mounted at /data, the path the jobs' pods use (domain.jobs.recipes.MOUNT),
so a notebook reads what a job wrote at the same path.

Status follows the operator's conditions (jupyter-infra/jupyter-k8s internal/controller/conditions.go and
status_manager.go): Available True is running; Progressing True is starting or stopping; Stopped True is
stopped; Degraded True is an error; Deleting True is being deleted.
"""

from __future__ import annotations

from typing import Any

from hyperpod_space_template.v1_1.model import SpaceConfig

from launchpod.contracts.spaces import CreateSpaceInput, SpaceView
from launchpod.domain import ownership
from launchpod.domain.jobs.manifests import GROUP_LABEL
from launchpod.domain.jobs.recipes import MOUNT as MOUNT

API_GROUP, API_VERSION, KIND, PLURAL = "workspace.jupyter.org", "v1alpha1", "Workspace", "workspaces"
API = f"{API_GROUP}/{API_VERSION}"
CRD_NAME = f"{PLURAL}.{API_GROUP}"
ADDON = "amazon-sagemaker-spaces"
TEMPLATES_NAMESPACE = "jupyter-k8s-system"
TEMPLATES = {"jupyterlab": "sagemaker-jupyter-template", "code-editor": "sagemaker-code-editor-template"}
IDE_OF = {v: k for k, v in TEMPLATES.items()}
OWNER_ANNOTATION = "launchpod.io/owner"
JUPYTER_PORT = 8888  # the Space's server (jupyter-k8s internal/controller/constants.go, JupyterPort)
DATA_VOLUME = "shared-data"


def ref(space: str, namespace: str) -> dict[str, Any]:
    return {"apiVersion": API, "kind": KIND, "metadata": {"name": space, "namespace": namespace}}


def list_path(namespace: str | None) -> str:
    where = f"/namespaces/{namespace}" if namespace else ""
    return f"/apis/{API}{where}/{PLURAL}"


def workspace(request: CreateSpaceInput, owner: str) -> dict[str, Any]:
    """The Workspace for ``request``; ``owner`` (the signed-in user) is recorded as an annotation."""
    requests: dict[str, str | None] = {"cpu": str(request.cpu), "memory": f"{request.memoryInGiB}Gi"}
    limits: dict[str, str | None] = {}
    if request.gpus:
        requests["nvidia.com/gpu"] = limits["nvidia.com/gpu"] = str(request.gpus)
    config = SpaceConfig(
        name=request.spaceName,
        display_name=request.displayName or request.spaceName,
        namespace=request.namespace,
        desired_status="Running",
        resources={"requests": requests, **({"limits": limits} if limits else {})},
        template_ref={"name": TEMPLATES[request.ide], "namespace": TEMPLATES_NAMESPACE},
        node_selector={GROUP_LABEL: request.instanceGroup} if request.instanceGroup else None,
        volumes=(
            [{"name": DATA_VOLUME, "mountPath": MOUNT, "persistentVolumeClaimName": request.storageClaim}]
            if request.storageClaim
            else None
        ),
        # The samples' idle probe: Jupyter's /api/idle on the server's port (jupyter-k8s config/samples).
        idle_shutdown=(
            {
                "enabled": True,
                "idleTimeoutInMinutes": request.idleTimeoutMinutes,
                "detection": {"httpGet": {"path": "/api/idle", "port": JUPYTER_PORT}},
            }
            if request.idleTimeoutMinutes
            else None
        ),
        env=[{"name": "LAUNCHPOD_DATA", "value": MOUNT}] if request.storageClaim else None,
    )
    made: dict[str, Any] = config.to_domain()["space_spec"]
    meta = made["metadata"]
    meta["labels"] = {**meta.get("labels", {}), **ownership.K8S_LABELS}
    meta["annotations"] = {OWNER_ANNOTATION: owner}
    return made


def with_desired_status(found: dict[str, Any], desired: str) -> dict[str, Any]:
    """``found``'s own fields again with ``desiredStatus`` changed: server-side apply removes the fields a
    manager stops sending, so the whole spec Launchpod set is sent again."""
    meta = found["metadata"]
    return {
        "apiVersion": API,
        "kind": KIND,
        "metadata": {
            "name": meta["name"],
            "namespace": meta["namespace"],
            "labels": meta.get("labels") or {},
            "annotations": {k: v for k, v in (meta.get("annotations") or {}).items() if k == OWNER_ANNOTATION},
        },
        "spec": {**found.get("spec", {}), "desiredStatus": desired},
    }


def _conditions(found: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c.get("type", ""): c for c in (found.get("status") or {}).get("conditions") or []}


def status_of(found: dict[str, Any]) -> tuple[str, str | None]:
    """(status, the operator's message) from the Workspace's conditions."""
    conditions = _conditions(found)
    desired = (found.get("spec") or {}).get("desiredStatus") or "Running"
    if found["metadata"].get("deletionTimestamp"):
        return "Deleting", None
    for kind, word in (("Deleting", "Deleting"), ("Degraded", "Degraded"), ("Available", "Running")):
        c = conditions.get(kind)
        if c and c.get("status") == "True":
            return word, c.get("message")
    stopped = conditions.get("Stopped")
    if stopped and stopped.get("status") == "True":
        return "Stopped", None
    progressing = conditions.get("Progressing")
    message = progressing.get("message") if progressing else None
    return ("Stopping" if desired == "Stopped" else "Starting"), message


def view(cluster: str, found: dict[str, Any]) -> SpaceView:
    meta, spec = found["metadata"], found.get("spec") or {}
    status, message = status_of(found)
    template = (spec.get("templateRef") or {}).get("name", "")
    gpus = ((spec.get("resources") or {}).get("requests") or {}).get("nvidia.com/gpu")
    idle = spec.get("idleShutdown") or {}
    data = next((v["mountPath"] for v in spec.get("volumes") or [] if v.get("name") == DATA_VOLUME), None)
    service = (found.get("status") or {}).get("serviceName")
    connect = (
        f"kubectl port-forward -n {meta['namespace']} service/{service} {JUPYTER_PORT}:{JUPYTER_PORT}"
        if status == "Running" and service
        else None
    )
    return SpaceView(
        cluster=cluster,
        spaceName=meta["name"],
        namespace=meta["namespace"],
        displayName=spec.get("displayName") or meta["name"],
        ide=IDE_OF.get(template, spec.get("appType") or template or "custom"),
        owner=(meta.get("annotations") or {}).get(OWNER_ANNOTATION),
        desiredStatus=spec.get("desiredStatus") or "Running",
        status=status,
        message=message,
        gpus=int(gpus) if gpus else 0,
        instanceGroup=(spec.get("nodeSelector") or {}).get(GROUP_LABEL),
        idleTimeoutMinutes=idle.get("idleTimeoutInMinutes") if idle.get("enabled") else None,
        dataPath=data,
        url=(found.get("status") or {}).get("accessURL") or None,
        connect=connect,
    )
