"""What every autoscaling phase reads."""

from __future__ import annotations

from launchpod.contracts.autoscaling import AutoscalingInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane
from launchpod.runtime.settings import settings


def request_of(doc: WorkflowInput) -> AutoscalingInput:
    return AutoscalingInput.model_validate(doc.request)


def role_name(cluster: str) -> str:
    return control_plane.resource_name(settings().resource_prefix, cluster, "hp-autoscale")


def tags_of(doc: WorkflowInput) -> dict[str, str]:
    return control_plane.tags(doc.target, settings().resource_prefix)
