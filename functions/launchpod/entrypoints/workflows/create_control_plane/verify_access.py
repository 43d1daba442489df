"""VerifyAccess: reaches the cluster's Kubernetes API with Launchpod's role, proving the access entry works."""

from __future__ import annotations

from launchpod.adapters.k8s.reads import server_version_and_namespaces
from launchpod.contracts.workflows import WorkflowInput
from launchpod.entrypoints.workflows.phase import PhaseResult, phase


def run(doc: WorkflowInput) -> PhaseResult:
    version, namespaces = server_version_and_namespaces(doc.target)
    return PhaseResult(
        outputs={"serverVersion": version, "namespaces": namespaces},
        message=f"Kubernetes {version} answers; namespaces: {', '.join(sorted(namespaces))}.",
    )


handler = phase("VerifyAccess")(run)
