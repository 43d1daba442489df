"""A simulated workload controller for the emulated Kubernetes APIs: Deployments and DaemonSets get
the status a real cluster's controllers would give them (every replica ready; a DaemonSet
scheduled on each node its affinity admits), and statically provisioned PersistentVolumeClaims are bound
to the PersistentVolume they name (as the PV controller would), so code that waits for readiness can be
exercised."""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import uuid
from typing import Any

from sandbox import operators, scheduling
from sandbox.periodic import Periodic

log = logging.getLogger("sandbox.workloads")


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


async def _reconcile(emulator: Any) -> None:
    node_objects = emulator.list_objects("v1/nodes")
    for deployment in emulator.list_objects("apps/v1/deployments"):
        await _run_deployment(emulator, deployment, node_objects)
    for daemonset in emulator.list_objects("apps/v1/daemonsets"):
        generation = daemonset["metadata"].get("generation", 1)
        template = ((daemonset.get("spec") or {}).get("template") or {}).get("spec", {})
        desired = sum(1 for node in node_objects if _daemon_runs_on(template, node))
        status = daemonset.get("status") or {}
        if status.get("observedGeneration") == generation and status.get("desiredNumberScheduled") == desired:
            continue
        daemonset["status"] = {
            "observedGeneration": generation,
            "desiredNumberScheduled": desired,
            "currentNumberScheduled": desired,
            "numberReady": desired,
            "numberAvailable": desired,
            "updatedNumberScheduled": desired,
            "numberMisscheduled": 0,
        }
        await emulator.put_object("apps/v1/daemonsets", daemonset)
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


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def _run_deployment(emulator: Any, deployment: dict[str, Any], nodes: list[dict[str, Any]]) -> None:
    """A Deployment's replicas as Pods: each bound by the scheduler's rules (or Pending, Unschedulable,
    with kube-scheduler's FailedScheduling event), ready once bound unless it is an operator that
    crash-loops (sandbox.operators). ReplicaSets are not modelled: the Pods are owned by the Deployment."""
    meta, spec = deployment["metadata"], deployment.get("spec") or {}
    namespace, template = meta["namespace"], spec.get("template") or {}
    pod_spec = template.get("spec") or {}
    digest = hashlib.sha256(json.dumps(template, sort_keys=True).encode()).hexdigest()[:10]
    replicas = spec.get("replicas", 1)
    wanted = [f"{meta['name']}-{digest}-{i}" for i in range(replicas)]
    operator = operators.operator_of(deployment)
    all_pods = emulator.list_objects("v1/pods")
    node_names = {n["metadata"]["name"] for n in nodes}
    for stale in all_pods:
        owners = stale["metadata"].get("ownerReferences") or []
        if (
            stale["metadata"].get("namespace") == namespace
            and stale["metadata"]["name"] not in wanted
            and any(o.get("kind") == "Deployment" and o.get("uid") == meta.get("uid") for o in owners)
        ):
            await emulator.delete_object("v1/pods", namespace, stale["metadata"]["name"])
    ready = 0
    for name in wanted:
        old = emulator.get_object("v1/pods", namespace, name)
        node = ((old or {}).get("spec") or {}).get("nodeName")
        message = ""
        if node not in node_names:
            bound = [p for p in emulator.list_objects("v1/pods") if (p.get("spec") or {}).get("nodeName")]
            node, message = scheduling.schedule(pod_spec, nodes, bound)
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                **((old or {}).get("metadata") or {}),
                "name": name,
                "namespace": namespace,
                "labels": dict((template.get("metadata") or {}).get("labels") or {}),
                "ownerReferences": [
                    {"apiVersion": "apps/v1", "kind": "Deployment", "name": meta["name"], "uid": meta.get("uid", "")}
                ],
            },
            "spec": {**pod_spec, **({"nodeName": node} if node else {})},
        }
        if node is None:
            pod["status"] = {
                "phase": "Pending",
                "conditions": [
                    {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}
                ],
            }
            previous = ((old or {}).get("status") or {}).get("conditions") or [{}]
            if previous[0].get("message") != message:
                await _event(emulator, namespace, name, "FailedScheduling", message, "default-scheduler")
        else:
            if operator is not None:
                container = operators.container_status(emulator, operator, deployment, name)
            else:
                before = (((old or {}).get("status") or {}).get("containerStatuses") or [{}])[0]
                started = ((before.get("state") or {}).get("running") or {}).get("startedAt") or _now()
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
                "phase": "Running",
                "conditions": [
                    {"type": "PodScheduled", "status": "True"},
                    {"type": "Ready", "status": up},
                    {"type": "ContainersReady", "status": up},
                ],
                "containerStatuses": [container],
            }
            ready += container["ready"]
        if old is None or old.get("status") != pod["status"]:
            await emulator.put_object("v1/pods", pod)
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


async def _event(emulator: Any, namespace: str, pod: str, reason: str, message: str, component: str) -> None:
    now = _now()
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
            fleet.call(name, _reconcile)
        except Exception:  # a cluster being deleted, a loop shutting down: try again next tick
            log.debug("workload reconcile failed for %s", name, exc_info=True)


def workload_controller(fleet: Any, interval: float = 0.2) -> Periodic:
    return Periodic("sandbox-workloads", interval, lambda: reconcile_all(fleet))
