"""A simulated workload controller for the emulated Kubernetes APIs: Deployments and DaemonSets get
the status a real cluster's controllers would give them (every replica ready; a DaemonSet
scheduled on each node its affinity admits), and statically provisioned PersistentVolumeClaims are bound
to the PersistentVolume they name (as the PV controller would), so code that waits for readiness can be
exercised."""

from __future__ import annotations

import logging
from typing import Any

from sandbox import operators
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
    nodes = [(n.get("metadata") or {}).get("labels") or {} for n in emulator.list_objects("v1/nodes")]
    for deployment in emulator.list_objects("apps/v1/deployments"):
        generation = deployment["metadata"].get("generation", 1)
        operator = operators.operator_of(deployment)
        if operator is not None:
            await _run_operator(emulator, operator, deployment, generation)
            continue
        if (deployment.get("status") or {}).get("observedGeneration") == generation:
            continue
        replicas = (deployment.get("spec") or {}).get("replicas", 1)
        deployment["status"] = {
            "observedGeneration": generation,
            "replicas": replicas,
            "readyReplicas": replicas,
            "availableReplicas": replicas,
            "updatedReplicas": replicas,
        }
        await emulator.put_object("apps/v1/deployments", deployment)
    for daemonset in emulator.list_objects("apps/v1/daemonsets"):
        generation = daemonset["metadata"].get("generation", 1)
        affinity = ((daemonset.get("spec") or {}).get("template") or {}).get("spec", {}).get("affinity")
        desired = sum(1 for labels in nodes if _admits(affinity, labels))
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


async def _run_operator(
    emulator: Any, operator: operators.Operator, deployment: dict[str, Any], generation: int
) -> None:
    """An operator's Deployment counts its Pod ready only while the operator's process is up."""
    pod = operators.pod_for(emulator, operator, deployment)
    meta = pod["metadata"]
    old = emulator.get_object("v1/pods", meta["namespace"], meta["name"])
    if old is None or old.get("status") != pod["status"]:
        if old is not None:
            pod["metadata"] = {**old["metadata"], **meta}
        await emulator.put_object("v1/pods", pod)
    for stale in emulator.list_objects("v1/pods", meta["namespace"]):
        owners = stale["metadata"].get("ownerReferences") or []
        if stale["metadata"]["name"] != meta["name"] and any(
            o.get("kind") == "Deployment" and o.get("name") == deployment["metadata"]["name"] for o in owners
        ):
            await emulator.delete_object("v1/pods", meta["namespace"], stale["metadata"]["name"])
    ready = 1 if pod["status"]["containerStatuses"][0]["ready"] else 0
    status = {
        "observedGeneration": generation,
        "replicas": 1,
        "readyReplicas": ready,
        "availableReplicas": ready,
        "updatedReplicas": 1,
    }
    if not ready:
        status["unavailableReplicas"] = 1
    if deployment.get("status") != status:
        deployment["status"] = status
        await emulator.put_object("apps/v1/deployments", deployment)


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
