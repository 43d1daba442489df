"""provision-cluster's own phase (the rest are its children's: create-control-plane, create-hyperpod,
reconcile-dependencies): once HyperPod's nodes joined, the add-ons that waited for them."""

from __future__ import annotations

from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons
from launchpod.domain.clusters import provision
from launchpod.domain.errors import PermanentError
from launchpod.runtime import wiring
from launchpod.usecases.workflows.phase import PhaseResult

AWAIT_ADDONS = "AwaitAddons"


def await_addons(doc: WorkflowInput) -> PhaseResult:
    """AwaitAddons: once HyperPod's nodes joined, coredns and the dependency add-ons (Deployments, DEGRADED
    while there were no nodes) polled until EKS reports every one ACTIVE; bounded, and retryable."""
    request = ReconcileDependenciesInput.model_validate(doc.request["dependencies"])
    names = provision.awaited_addons(request.includeOptional)
    present = wiring.eks().addons(doc.target)
    missing = [n for n in names if n not in present]
    if missing:
        raise PermanentError(
            f"Add-ons {', '.join(missing)} are not on {doc.target}; retry the operation to install them."
        )
    broken = [addons.problem(n, present[n]) for n in names if addons.broken(present[n])]
    if broken:
        raise PermanentError(f"Add-ons failed: {'; '.join(broken)}. Fix the cause shown, then retry.")
    waiting = [n for n in names if present[n].status != "ACTIVE"]
    if not waiting:
        return PhaseResult(
            outputs={"addons": {n: present[n].version for n in names}},
            message=", ".join(f"{n} {present[n].version}" for n in names) + " ACTIVE on the nodes.",
        )
    if doc.poll.get(AWAIT_ADDONS, 0) >= provision.MAX_ADDON_POLLS:
        raise PermanentError(
            "HyperPod's nodes joined, but "
            + "; ".join(addons.problem(n, present[n]) for n in waiting)
            + " after 20 minutes. Check that the nodes are Ready and that no taint keeps these pods off them,"
            " then retry."
        )
    return PhaseResult(
        ready=False,
        wait=provision.ADDON_POLL_SECONDS,
        message="Waiting for " + ", ".join(f"{n} ({present[n].status})" for n in waiting),
    )
