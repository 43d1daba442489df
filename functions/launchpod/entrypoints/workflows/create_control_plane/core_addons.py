"""CoreAddons: vpc-cni, kube-proxy, coredns and eks-pod-identity-agent, each to ACTIVE."""

from __future__ import annotations

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.create_control_plane._common import tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "CoreAddons"
BROKEN = {"CREATE_FAILED", "DEGRADED", "DELETE_FAILED", "UPDATE_FAILED"}


def run(doc: WorkflowInput) -> PhaseResult:
    eks = wiring.eks()
    present = eks.addons(doc.target)
    for name in control_plane.CORE_ADDONS:
        if name not in present:
            eks.create_addon(doc.target, name, tags_of(doc))
            present[name] = {"status": "CREATING"}
    statuses = {n: present[n]["status"] for n in control_plane.CORE_ADDONS}
    broken = {n: s for n, s in statuses.items() if s in BROKEN}
    if broken:
        issues = "; ".join(
            f"{n} is {s}: " + ", ".join(i.get("message", "") for i in present[n].get("health", {}).get("issues", []))
            for n, s in broken.items()
        )
        raise PermanentError(f"Add-ons failed: {issues}. Fix the cause shown, then retry.")
    versions = {n: present[n].get("addonVersion") for n in control_plane.CORE_ADDONS}
    waiting = sorted(n for n, s in statuses.items() if s != "ACTIVE")
    polls = doc.poll.get(PHASE, 0)
    if not waiting:
        return PhaseResult(
            outputs={"addons": versions},
            message=", ".join(f"{n} {v}" for n, v in versions.items()) + " ACTIVE.",
        )
    if polls >= control_plane.MAX_ADDON_POLLS:
        raise PermanentError(
            f"Add-ons {', '.join(waiting)} did not become ACTIVE in 20 minutes; check them, then retry."
        )
    return PhaseResult(
        ready=False,
        wait=control_plane.ADDON_POLL_SECONDS,
        message="Waiting for " + ", ".join(f"{n} ({statuses[n]})" for n in waiting),
    )


handler = phase(PHASE)(run)
