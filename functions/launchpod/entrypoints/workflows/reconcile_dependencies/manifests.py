"""Manifests: the health agent, device plugins and KubeRay operator applied with server-side apply,
then polled until each DaemonSet or Deployment is ready."""

from __future__ import annotations

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import dependencies
from launchpod.domain.dependencies import objects
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime.settings import settings

PHASE = "Manifests"


def run(doc: WorkflowInput) -> PhaseResult:
    request = ReconcileDependenciesInput.model_validate(doc.request)
    wanted = dependencies.wanted_manifests(request.includeOptional)
    first_pass = doc.poll.get(PHASE, 0) == 0
    waiting = []
    for entry in wanted:
        built = objects.objects_for(entry.name, entry.version, settings().region)
        if first_pass:
            for obj in built:
                k8s.apply(doc.target, obj)
        if not k8s.ready(k8s.read(doc.target, objects.workload_of(built))):
            waiting.append(entry.name)
    if waiting:
        if doc.poll.get(PHASE, 0) >= dependencies.MAX_POLLS:
            raise PermanentError(
                f"{', '.join(waiting)} did not become ready in 20 minutes; check their pods, then retry."
            )
        return PhaseResult(ready=False, wait=dependencies.POLL_SECONDS, message="Waiting for " + ", ".join(waiting))
    versions = {e.name: e.version for e in wanted}
    return PhaseResult(
        outputs={"manifests": versions}, message=", ".join(f"{n} {v}" for n, v in versions.items()) + " ready."
    )


handler = phase(PHASE)(run)
