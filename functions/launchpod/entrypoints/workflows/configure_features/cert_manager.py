"""CertManager: the training and inference operators need cert-manager ACTIVE ("Installing the training
operator" and "Setting up your HyperPod clusters for model deployment", AWS SageMaker developer guide);
installed at its pinned version when missing, then awaited. Skipped when the request turns neither on."""

from __future__ import annotations

from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons, dependencies, features
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "CertManager"


def run(doc: WorkflowInput) -> PhaseResult:
    request = UpdateFeaturesInput.model_validate(doc.request)
    wants = [r for r in (request.trainingOperator, request.inferenceOperator) if r is not None and r.enabled]
    if not wants:
        return PhaseResult(
            skipped=True, message="The request turns neither the training nor the inference operator on."
        )
    eks = wiring.eks()
    found = eks.addons(doc.target).get(features.CERT_MANAGER)
    if found is None:
        pinned = next(a for a in dependencies.manifest().addons if a.name == features.CERT_MANAGER)
        version = dependencies.version_for_cluster(eks, doc.target, features.CERT_MANAGER, pinned.version)
        tags = control_plane.tags(doc.target, settings().resource_prefix)
        eks.create_addon(doc.target, features.CERT_MANAGER, tags, version)
        return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=f"Installing cert-manager {version}")
    if addons.broken(found):
        raise PermanentError(f"{addons.problem(features.CERT_MANAGER, found)}; the training operator needs it ACTIVE.")
    if found.get("status") == "ACTIVE":
        return PhaseResult(outputs={"version": found.get("addonVersion")}, message="cert-manager is ACTIVE.")
    if addons.waits_for_nodes(found):
        return PhaseResult(
            outputs={"version": found.get("addonVersion"), "waitingForNodes": True},
            message=addons.waiting_note(features.CERT_MANAGER, found.get("addonVersion")) + ".",
        )
    if doc.poll.get(PHASE, 0) >= features.MAX_POLLS:
        raise PermanentError("cert-manager did not become ACTIVE in 20 minutes; retry.")
    return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=f"cert-manager is {found.get('status')}")


handler = phase(PHASE)(run)
