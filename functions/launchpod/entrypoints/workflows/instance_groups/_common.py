"""What every instance-groups phase reads: the change asked for, the cluster as DescribeCluster has it."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.instance_groups import InstanceGroupChangeInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def change_of(doc: WorkflowInput) -> InstanceGroupChangeInput:
    return InstanceGroupChangeInput.model_validate(doc.request)


def cluster_of(doc: WorkflowInput) -> dict[str, Any]:
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
    if cluster is None:
        raise PermanentError(f"{doc.target} has no HyperPod cluster any more.")
    return cluster


def group_of(cluster: dict[str, Any], group: str) -> dict[str, Any] | None:
    return next((g for g in cluster.get("InstanceGroups", []) if g.get("InstanceGroupName") == group), None)


def tags_of(doc: WorkflowInput) -> dict[str, str]:
    return control_plane.tags(doc.target, settings().resource_prefix)
