"""CoreAddons: vpc-cni, kube-proxy and eks-pod-identity-agent to ACTIVE; coredns created, and done once
EKS reports it ACTIVE or DEGRADED only for want of nodes (a new cluster has none: "waits for nodes")."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.create_control_plane._common import tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "CoreAddons"


def run(doc: WorkflowInput) -> PhaseResult:
    eks = wiring.eks()
    present = eks.addons(doc.target)
    for name in control_plane.CORE_ADDONS:
        if name not in present:
            eks.create_addon(doc.target, name, tags_of(doc))
            present[name] = {"status": "CREATING"}
    found = {n: present[n] for n in control_plane.CORE_ADDONS}
    broken = [addons.problem(n, a) for n, a in found.items() if addons.broken(a)]
    if broken:
        raise PermanentError(f"Add-ons failed: {'; '.join(broken)}. Fix the cause shown, then retry.")
    versions = {n: a.get("addonVersion") for n, a in found.items()}
    # A DaemonSet add-on must be ACTIVE; coredns is done when it is ACTIVE or only waits for nodes.
    waiting = sorted(
        n
        for n, a in found.items()
        if a.get("status") != "ACTIVE" and (n in control_plane.DAEMONSET_ADDONS or not addons.settled(a))
    )
    if not waiting:
        active = [f"{n} {versions[n]}" for n, a in found.items() if a.get("status") == "ACTIVE"]
        for_nodes = [n for n, a in found.items() if addons.waits_for_nodes(a)]
        message = ", ".join(active) + " ACTIVE."
        if for_nodes:
            message += " " + "; ".join(addons.waiting_note(n, versions[n]) for n in for_nodes) + "."
        return PhaseResult(outputs={"addons": versions, "waitingForNodes": for_nodes}, message=message)
    if doc.poll.get(PHASE, 0) >= control_plane.MAX_ADDON_POLLS:
        raise PermanentError(
            f"Add-ons {', '.join(waiting)} did not become ACTIVE in 20 minutes; check them, then retry."
        )
    return PhaseResult(
        ready=False,
        wait=control_plane.ADDON_POLL_SECONDS,
        message="Waiting for " + ", ".join(f"{n} ({found[n].get('status')})" for n in waiting),
    )


handler = phase(PHASE)(run)
