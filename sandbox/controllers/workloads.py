"""A simulated workload controller for the emulated Kubernetes APIs: Deployments and DaemonSets get
Pods as their controllers would make them (a Deployment's replicas; one per node a DaemonSet wants),
placed by kube-scheduler's rules (scheduling), started only once their Secret and ConfigMap
volumes exist (mounts), pulling images only where AWS publishes them (images), operators
crash-looping without what they need (operators), model servers crash-looping without their model
in the bucket (programs, crashloop), and the status that follows from those Pods;
statically provisioned PersistentVolumeClaims are bound to the PersistentVolume they name (as the PV
controller would)."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import uuid
from typing import Any

from sandbox.aws.sagemaker import node_agents
from sandbox.controllers import crashloop, devices, images, kueue_pods, mounts, operators, programs, scheduling
from sandbox.controllers.common import timestamp
from sandbox.controllers.periodic import Periodic

log = logging.getLogger("sandbox.controllers.workloads")


def _admits(affinity: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    terms = (
        ((affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    ).get("nodeSelectorTerms")
    if not terms:
        return True
    for term in terms:
        ok = True
        for expr in term.get("matchExpressions", []):
            value, op = labels.get(expr["key"]), expr["operator"]
            values = expr.get("values", [])
            ok &= {
                "In": value in values,
                "NotIn": value not in values,
                "Exists": value is not None,
                "DoesNotExist": value is None,
            }.get(op, False)
        if ok:
            return True
    return False


async def _reconcile(emulator: Any, cluster: str | None = None) -> None:
    node_objects = emulator.list_objects("v1/nodes", copied=False)  # read only
    for deployment in emulator.list_objects("apps/v1/deployments"):
        await _run_deployment(emulator, deployment, node_objects)
    agent_nodes: set[str] = set()
    for daemonset in emulator.list_objects("apps/v1/daemonsets"):
        running = await _run_daemonset(emulator, daemonset, node_objects)
        containers = ((((daemonset.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers")) or []
        if any(node_agents.is_agent_image(str(c.get("image", ""))) for c in containers):
            agent_nodes |= running
    if cluster is not None:
        node_agents.report(cluster, agent_nodes)
        devices.allocate(emulator, cluster)  # the kubelets' device managers
    await _bind_claims(emulator)


def _daemon_runs_on(pod_spec: dict[str, Any], node: dict[str, Any]) -> bool:
    """The DaemonSet controller wants a Pod on every node its selector/affinity admits and whose
    NoSchedule/NoExecute taints it tolerates; it adds tolerations for not-ready, unreachable and
    unschedulable nodes itself
    (https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/#taints-and-tolerations)."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    if not _admits(pod_spec.get("affinity"), labels) or not scheduling.selects(pod_spec, node):
        return False
    return (
        scheduling.untolerated(pod_spec, {**node, "status": {"conditions": [{"type": "Ready", "status": "True"}]}})
        is None
    )


# Tolerations the DaemonSet controller adds to every daemon Pod
# (https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/#taints-and-tolerations).
DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]


async def _run_daemonset(emulator: Any, daemonset: dict[str, Any], nodes: list[dict[str, Any]]) -> set[str]:
    """One Pod per node the DaemonSet wants, each pinned to its node and placed (or left Pending) by the
    scheduler's rules; numberReady counts the Pods that run. Returns the nodes where its Pod is Ready."""
    meta = daemonset["metadata"]
    template = (daemonset.get("spec") or {}).get("template") or {}
    pod_spec = {**(template.get("spec") or {})}
    pod_spec["tolerations"] = [*(pod_spec.get("tolerations") or []), *DAEMON_TOLERATIONS]
    targets = sorted(n["metadata"]["name"] for n in nodes if _daemon_runs_on(pod_spec, n))
    wanted = {f"{meta['name']}-{hashlib.sha256(n.encode()).hexdigest()[:5]}": n for n in targets}
    await _delete_stale(emulator, meta, set(wanted))
    running: set[str] = set()
    for name, node in wanted.items():
        if await _place(emulator, "DaemonSet", meta, name, {**template, "spec": pod_spec}, nodes, None, node):
            running.add(node)
    ready = len(running)
    status = {
        "observedGeneration": meta.get("generation", 1),
        "desiredNumberScheduled": len(wanted),
        "currentNumberScheduled": len(wanted),
        "numberReady": ready,
        "numberAvailable": ready,
        "updatedNumberScheduled": len(wanted),
        "numberMisscheduled": 0,
    }
    if ready < len(wanted):
        status["numberUnavailable"] = len(wanted) - ready
    if daemonset.get("status") != status:
        daemonset["status"] = status
        await emulator.put_object("apps/v1/daemonsets", daemonset)
    return running


async def _delete_stale(emulator: Any, owner: dict[str, Any], wanted: set[str]) -> None:
    for pod in emulator.list_objects("v1/pods", owner["namespace"], copied=False):  # read: no copies
        owners = pod["metadata"].get("ownerReferences") or []
        if pod["metadata"]["name"] not in wanted and any(o.get("uid") == owner.get("uid") for o in owners):
            await emulator.delete_object("v1/pods", owner["namespace"], pod["metadata"]["name"])


async def _run_deployment(emulator: Any, deployment: dict[str, Any], nodes: list[dict[str, Any]]) -> None:
    """A Deployment's replicas as Pods: each bound by the scheduler's rules (or Pending, Unschedulable,
    with kube-scheduler's FailedScheduling event), ready once bound unless it is an operator that
    crash-loops (sandbox.controllers.operators). ReplicaSets are not modelled: the Pods are owned by the Deployment."""
    meta, spec = deployment["metadata"], deployment.get("spec") or {}
    template = spec.get("template") or {}
    digest = hashlib.sha256(json.dumps(template, sort_keys=True).encode()).hexdigest()[:10]
    replicas = spec.get("replicas", 1)
    wanted = [f"{meta['name']}-{digest}-{i}" for i in range(replicas)]
    operator = operators.operator_of(deployment)
    await _delete_stale(emulator, meta, set(wanted))
    ready = 0
    for name in wanted:
        ready += await _place(emulator, "Deployment", meta, name, template, nodes, (operator, deployment), None)
    status = {
        "observedGeneration": meta.get("generation", 1),
        "replicas": replicas,
        "readyReplicas": ready,
        "availableReplicas": ready,
        "updatedReplicas": replicas,
    }
    if ready < replicas:
        status["unavailableReplicas"] = replicas - ready
    if deployment.get("status") != status:
        deployment["status"] = status
        await emulator.put_object("apps/v1/deployments", deployment)


async def _place(
    emulator: Any,
    owner_kind: str,
    owner: dict[str, Any],
    name: str,
    template: dict[str, Any],
    nodes: list[dict[str, Any]],
    operator: tuple[operators.Operator | None, dict[str, Any]] | None,
    pinned: str | None,
) -> bool:
    """Create or update one Pod: bound to a node the scheduler accepts, or Pending; True when ready."""
    namespace, pod_spec = owner["namespace"], template.get("spec") or {}
    life = f"{owner.get('uid')}/{name}"  # a Deployment made again starts new Pods
    old = emulator.get_object("v1/pods", namespace, name, copied=False)  # read only: the new Pod is built anew
    node = ((old or {}).get("spec") or {}).get("nodeName")
    message = ""
    # a pod in a team's queue waits, gated, until Kueue admits it (sandbox.controllers.kueue_pods)
    queue = ((template.get("metadata") or {}).get("labels") or {}).get(kueue_pods.QUEUE_LABEL)
    gated = bool(owner_kind == "Deployment" and queue and kueue_pods.installed(emulator))
    gated = gated and (old is None or (not node and kueue_pods.held(emulator, old)))
    if gated:
        node = None
    elif node not in {n["metadata"]["name"] for n in nodes}:
        bound = [p for p in emulator.list_objects("v1/pods", copied=False) if (p.get("spec") or {}).get("nodeName")]
        node, message = scheduling.schedule(pod_spec, nodes, bound, pinned)
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            **((old or {}).get("metadata") or {}),
            "name": name,
            "namespace": namespace,
            # a Deployment's live Pod keeps its labels: the ReplicaSet sets them at creation and never
            # rewrites them, so a label changed later (a model pool's Service binding) stays
            # (https://kubernetes.io/docs/concepts/workloads/controllers/replicaset/#isolating-pods-from-a-replicaset);
            # its name carries the template's digest, so a same-named Pod has the same template. DaemonSet
            # Pods keep one name per node, so theirs follow the template.
            "labels": dict(
                (((old or {}).get("metadata") or {}).get("labels") if owner_kind == "Deployment" else None)
                or (template.get("metadata") or {}).get("labels")
                or {}
            ),
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": owner_kind, "name": owner["name"], "uid": owner.get("uid", "")}
            ],
        },
        "spec": {**pod_spec, **({"nodeName": node} if node else {})},
    }
    # the Pod is made from the template's metadata, its annotations as well as its labels
    # (https://kubernetes.io/docs/concepts/workloads/pods/#pod-templates)
    annotations = {
        **((template.get("metadata") or {}).get("annotations") or {}),
        **(((old or {}).get("metadata") or {}).get("annotations") or {}),
    }
    if annotations:
        pod["metadata"]["annotations"] = annotations
    ready = False
    if gated:
        pod["spec"]["schedulingGates"] = [{"name": kueue_pods.GATE}]
        pod["status"] = kueue_pods.gated_status()
    elif node is None:
        pod["status"] = {
            "phase": "Pending",
            "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}],
        }
        previous = ((old or {}).get("status") or {}).get("conditions") or [{}]
        if previous[0].get("message") != message:
            await _event(emulator, namespace, name, "FailedScheduling", message, "default-scheduler")
    else:
        image = pod_spec["containers"][0].get("image", "")
        before = (((old or {}).get("status") or {}).get("containerStatuses") or [{}])[0]
        placed = next((n for n in nodes if n["metadata"]["name"] == node), {})
        internet = (placed.get("metadata", {}).get("annotations") or {}).get(images.INTERNET_ANNOTATION) != "false"
        region = (placed.get("metadata", {}).get("labels") or {}).get("topology.kubernetes.io/region")
        pull_error = images.pull_error(image, region, internet)
        # the kubelet sets volumes up once, before the containers start: a started Pod keeps running
        # when its Secret is deleted later
        started = ((old or {}).get("status") or {}).get("phase") == "Running"
        mount_error = None if started else mounts.failed_mount(emulator, namespace, pod_spec)
        if mount_error is not None:
            container = mounts.container_creating(pod_spec["containers"][0])
            if before.get("state") != container["state"]:
                await _event(emulator, namespace, name, "FailedMount", mount_error, "kubelet")
        elif pull_error is not None:
            first = "waiting" not in (before.get("state") or {})
            container = {
                "name": pod_spec["containers"][0]["name"],
                "image": image,
                "imageID": "",
                "ready": False,
                "started": False,
                "restartCount": 0,
                "state": {"waiting": images.waiting(image, pull_error, first)},
            }
            if first:
                await _event(
                    emulator, namespace, name, "Failed", f'Failed to pull image "{image}": {pull_error}', "kubelet"
                )
        elif operator is not None and operator[0] is not None:
            container = operators.container_status(emulator, operator[0], operator[1], name)
        elif owner_kind == "Deployment" and (error := _serving_error(emulator, namespace, pod_spec)) is not None:
            first = pod_spec["containers"][0]
            container = crashloop.container_status(emulator, life, namespace, name, first, error)
        else:
            crashloop.forget(life)
            started = ((before.get("state") or {}).get("running") or {}).get("startedAt") or timestamp()
            container = {
                "name": pod_spec["containers"][0]["name"],
                "image": pod_spec["containers"][0].get("image", ""),
                "imageID": "",
                "ready": True,
                "started": True,
                "restartCount": 0,
                "state": {"running": {"startedAt": started}},
            }
        up = "True" if container["ready"] else "False"
        pod["status"] = {
            "phase": "Pending" if mount_error is not None else "Running",
            "conditions": [
                {"type": "PodScheduled", "status": "True"},
                {"type": "Ready", "status": up},
                {"type": "ContainersReady", "status": up},
            ],
            "containerStatuses": [container],
        }
        ready = bool(container["ready"])
    gates = ((old or {}).get("spec") or {}).get("schedulingGates") != pod["spec"].get("schedulingGates")
    if old is None or old.get("status") != pod["status"] or gates:
        await emulator.put_object("v1/pods", pod)
    return ready


def _serving_error(emulator: Any, namespace: str, pod_spec: dict[str, Any]) -> str | None:
    """What a model server prints as it exits for want of its model in the bucket (``programs``), or None."""
    container = pod_spec["containers"][0]
    files = programs.Files(programs.mounts(emulator, namespace, pod_spec, container))
    return programs.serving_failure(files, container) if files.mounts else None


async def _event(emulator: Any, namespace: str, pod: str, reason: str, message: str, component: str) -> None:
    now = timestamp()
    await emulator.put_object(
        "v1/events",
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{pod}.{uuid.uuid4().hex[:16]}", "namespace": namespace},
            "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": pod, "namespace": namespace},
            "reason": reason,
            "message": message,
            "type": "Warning",
            "source": {"component": component},
            "reportingComponent": component,
            "count": 1,
            "firstTimestamp": now,
            "lastTimestamp": now,
        },
    )


async def _bind_claims(emulator: Any) -> None:
    """A claim naming a volume binds when that volume exists and its claimRef (if any) names the claim."""
    volumes = {v["metadata"]["name"]: v for v in emulator.list_objects("v1/persistentvolumes")}
    for claim in emulator.list_objects("v1/persistentvolumeclaims"):
        meta, spec = claim["metadata"], claim.get("spec") or {}
        volume = volumes.get(spec.get("volumeName", ""))
        if volume is None or (claim.get("status") or {}).get("phase") == "Bound":
            continue
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        if ref and (ref.get("name"), ref.get("namespace", "default")) != (meta["name"], meta.get("namespace")):
            continue
        capacity = (volume.get("spec") or {}).get("capacity") or {}
        claim["status"] = {"phase": "Bound", "accessModes": spec.get("accessModes", []), "capacity": capacity}
        await emulator.put_object("v1/persistentvolumeclaims", claim)
        volume["status"] = {"phase": "Bound"}
        await emulator.put_object("v1/persistentvolumes", volume)


def reconcile_all(fleet: Any) -> None:
    """One pass of the simulated controllers over every emulated cluster."""
    for name in fleet.names():
        try:
            fleet.call(name, functools.partial(_reconcile, cluster=name))
        except Exception:  # a cluster being deleted, a loop shutting down: try again next tick
            log.debug("workload reconcile failed for %s", name, exc_info=True)


def workload_controller(fleet: Any, interval: float = 0.2) -> Periodic:
    return Periodic("sandbox-workloads", interval, lambda: reconcile_all(fleet))
