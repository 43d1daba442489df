"""What every create-hyperpod phase reads from the workflow document."""

from __future__ import annotations

from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane
from launchpod.runtime.settings import settings


def request_of(doc: WorkflowInput) -> CreateHyperPodInput:
    return CreateHyperPodInput.model_validate(doc.request)


def tags_of(doc: WorkflowInput) -> dict[str, str]:
    return control_plane.tags(doc.target, settings().resource_prefix)


def execution_role_name(cluster: str) -> str:
    return control_plane.resource_name(settings().resource_prefix, cluster, "hp-exec")
