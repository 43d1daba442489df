"""The delete-cluster workflow's rules: the order things are torn down in, and the rule that
Launchpod deletes only what it created (found by its tags), never anything else."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.clusters import DeleteClusterInput
from launchpod.domain import ownership
from launchpod.domain.errors import InvalidInput
from launchpod.domain.operations import WorkflowPlan, role_for

KIND = "delete-cluster"
PHASES: tuple[tuple[str, str], ...] = (
    ("DeleteHyperPod", "Delete the HyperPod cluster and wait until it is gone"),
    ("DeleteControlPlane", "Delete the EKS cluster (its add-ons and access entries go with it)"),
    (
        "DeleteTrackingServer",
        "Delete the MLflow tracking server Launchpod created (its runs go with it; artifacts stay in the bucket)",
    ),
    ("DeleteIdentity", "Delete the IAM roles and OIDC provider Launchpod created"),
    ("DeleteNetwork", "Delete the NAT gateway, subnets, route tables, gateways and VPC Launchpod created"),
    ("DeleteScripts", "Delete the lifecycle scripts from the shared bucket"),
    ("Deregister", "Forget the cluster"),
)
MAX_POLLS = 120
POLL_SECONDS = 30


def check_confirmation(request: DeleteClusterInput) -> None:
    if request.confirm != request.name:
        raise InvalidInput(
            f"Type the cluster's name, {request.name}, as confirm to delete it; deleting cannot be undone.",
            field="query.confirm",
            rule="confirm_matches_name",
        )


def plan(request: DeleteClusterInput) -> WorkflowPlan:
    check_confirmation(request)
    return WorkflowPlan(
        kind=KIND, target=request.name, request=request.model_dump(mode="json"), phases=PHASES, role=role_for(KIND)
    )


def ours(tags: dict[str, str], cluster: str, prefix: str) -> bool:
    return ownership.owns_aws(tags, cluster, prefix)


def created_here(
    tags: dict[str, str], cluster: str, prefix: str, record: dict[str, Any] | None, fact: str, arn: str
) -> bool:
    """An EKS or HyperPod cluster delete-cluster may remove: Launchpod's tags, and the registry's record
    of Launchpod's create phase having made exactly this cluster (a tag alone can be forged)."""
    return ours(tags, cluster, prefix) and ownership.recorded_as_created(record, fact, arn)
