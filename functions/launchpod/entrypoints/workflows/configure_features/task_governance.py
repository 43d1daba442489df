"""TaskGovernance: the HyperPod task governance add-on (it runs Kueue) created and awaited until ACTIVE
(or only waiting for nodes); or, when turned off, the add-on Launchpod installed deleted and awaited gone."""

from __future__ import annotations

from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons, dependencies, features, ownership
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "TaskGovernance"


def _wait(doc: WorkflowInput, message: str) -> PhaseResult:
    if doc.poll.get(PHASE, 0) >= features.MAX_POLLS:
        raise PermanentError(f"The task governance add-on did not settle in 20 minutes ({message}); retry.")
    return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=message)


def run(doc: WorkflowInput) -> PhaseResult:
    request = UpdateFeaturesInput.model_validate(doc.request)
    if request.taskGovernance is None:
        return PhaseResult(skipped=True, message="The request does not change task governance.")
    tg, prefix = features.task_governance(), settings().resource_prefix
    found = wiring.eks().addons(doc.target).get(tg.addon)
    if request.taskGovernance.enabled:
        if found is None:
            eks = wiring.eks()
            version = dependencies.version_for_cluster(eks, doc.target, tg.addon, tg.version)
            eks.create_addon(doc.target, tg.addon, control_plane.tags(doc.target, prefix), version)
            return _wait(doc, f"Installing {tg.addon} {version}")
        if addons.broken(found):
            raise PermanentError(f"{addons.problem(tg.addon, found)}. Fix the cause shown, then retry.")
        if addons.settled(found):
            note = addons.waiting_note(tg.addon, found.get("addonVersion")) if addons.waits_for_nodes(found) else None
            return PhaseResult(
                outputs={"version": found.get("addonVersion")}, message=(note or f"{tg.addon} is ACTIVE") + "."
            )
        return _wait(doc, f"{tg.addon} is {found.get('status')}")
    if found is None:
        return PhaseResult(message=f"{tg.addon} removed.")
    if not ownership.owns_aws(found.get("tags") or {}, doc.target, prefix):
        raise PermanentError(f"{tg.addon} on {doc.target} was not installed by Launchpod; it is left in place.")
    if found.get("status") != "DELETING":
        wiring.eks().delete_addon(doc.target, tg.addon)
    return _wait(doc, f"Removing {tg.addon}")


handler = phase(PHASE)(run)
