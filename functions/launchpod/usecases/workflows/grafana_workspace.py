"""The Amazon Managed Grafana workspace the HyperPod observability phase makes when asked
(``createGrafanaWorkspace``; launchpod.domain.hyperpod_observability says what and why): its role, trusted by
``grafana.amazonaws.com`` and allowed to query the cluster's Prometheus workspace, then the workspace itself
(found again by its name and Launchpod's tags), awaited until ACTIVE; and both removed when the feature is
turned off."""

from __future__ import annotations

from collections.abc import Callable

from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import hyperpod_observability as hp_observability
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError
from launchpod.domain.metrics.workspaces import GrafanaWorkspace
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.phase import PhaseResult

TRUSTED_SERVICE = "grafana.amazonaws.com"
POLICY_NAME = "launchpod-grafana-prometheus"
FAILED = ("CREATION_FAILED", "FAILED", "DELETION_FAILED")


def ensure(
    doc: WorkflowInput, prometheus_arn: str, sign_in: str, wait: Callable[[str], PhaseResult]
) -> GrafanaWorkspace | PhaseResult:
    """The workspace, ACTIVE; ``wait(message)`` while it is not yet."""
    prefix = settings().resource_prefix
    name, tags = hp_observability.grafana_name(prefix, doc.target), control_plane.tags(doc.target, prefix)
    iam = wiring.iam()
    role = iam.ensure_role(
        name, TRUSTED_SERVICE, [], tags, f"The Amazon Managed Grafana workspace of {doc.target}, created by Launchpod"
    )
    iam.put_inline_policy(name, POLICY_NAME, hp_observability.grafana_policy(prometheus_arn))
    workspaces = wiring.grafana_workspaces()
    found = workspaces.owned(name, tags) or workspaces.create(name, role, sign_in, tags)
    status = found.status
    if status in FAILED:
        raise PermanentError(
            f"The Amazon Managed Grafana workspace {name} ({found.id}) is {status}; delete it"
            f" (aws grafana delete-workspace --workspace-id {found.id}), then retry."
        )
    if status != "ACTIVE":
        return wait(f"Amazon Managed Grafana workspace {name} is {status}")
    return found


def remove(doc: WorkflowInput) -> None:
    """Delete the workspace Launchpod made (if any; DeleteWorkspace, not awaited) and its role."""
    prefix = settings().resource_prefix
    name, tags = hp_observability.grafana_name(prefix, doc.target), control_plane.tags(doc.target, prefix)
    workspaces = wiring.grafana_workspaces()
    found = workspaces.owned(name, tags)
    if found is not None:
        workspaces.delete(found.id)
    wiring.iam().delete_owned_role(name, tags)
