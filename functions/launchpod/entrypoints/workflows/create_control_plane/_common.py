"""What every create-control-plane phase reads from the workflow document."""

from __future__ import annotations

from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane
from launchpod.runtime.settings import settings


def request_of(doc: WorkflowInput) -> CreateClusterRequest:
    return CreateClusterRequest.model_validate(doc.request)


def tags_of(doc: WorkflowInput) -> dict[str, str]:
    # Shared with import-cluster, whose request carries no tags of its own.
    return control_plane.tags(doc.target, settings().resource_prefix, doc.request.get("tags") or {})
