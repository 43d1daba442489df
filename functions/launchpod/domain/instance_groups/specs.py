"""Every instance group of a cluster for UpdateCluster, and the roles such a call passes.

UpdateCluster takes the whole instance-group list and applies each entry as the group's new
specification: a field left out is reset, not kept. So every call sends each group it does not mean to
change as it is: its ``InstanceGroupState.spec``, which the adapter rebuilds from DescribeCluster through
one whitelist (adapters.aws.instance_groups.SPEC_FROM_DETAILS).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from launchpod.domain.clusters.hyperpod_cluster import InstanceGroupState
from launchpod.domain.errors import Conflict


def specs_for_update(
    groups: Sequence[InstanceGroupState], changed: dict[str, Any] | None = None, deleted: str | None = None
) -> list[dict[str, Any]]:
    """Every group of the cluster for UpdateCluster: each unchanged one as it is (its spec), ``changed`` (a full
    specification) in place of its namesake or appended; ``deleted`` left out (it goes in InstanceGroupsToDelete)."""
    out = []
    for group in groups:
        if group.name == deleted or group.status == "Deleting":
            continue
        if changed is not None and group.name == changed["InstanceGroupName"]:
            out.append(copy.deepcopy(changed))
            continue
        out.append(copy.deepcopy(group.spec))
    if changed is not None and not any(s["InstanceGroupName"] == changed["InstanceGroupName"] for s in out):
        out.append(copy.deepcopy(changed))
    return out


def check_passable(cluster: str, groups: Sequence[InstanceGroupState], prefix: str, deleted: str | None = None) -> None:
    """Refuse, before anything starts, an UpdateCluster that would pass an execution role Launchpod may not.
    UpdateCluster hands every group's ExecutionRole to HyperPod again, which needs the caller's
    ``iam:PassRole`` on each ("iam:PassRole is a dependent action of sagemaker:UpdateCluster", Service
    Authorization Reference for SageMaker), and Launchpod's functions may pass only the roles it creates,
    ``<prefix>-*`` (least privilege: never a role of an imported cluster it did not make). So on an imported
    cluster whose groups run as other roles, the update fails at AWS; it is refused here with the roles to
    name instead. ``deleted``: the group an update removes (its role is not passed)."""
    foreign = sorted(
        {
            g.execution_role
            for g in groups
            if g.execution_role
            and g.name != deleted
            and g.status != "Deleting"
            and not g.execution_role.partition(":role/")[2].startswith(f"{prefix}-")
        }
    )
    if foreign:
        raise Conflict(
            f"Changing the instance groups of {cluster} passes every group's execution role to HyperPod again "
            f"(iam:PassRole), and Launchpod may pass only the roles it creates ({prefix}-*), not "
            f"{', '.join(foreign)}. Change this imported cluster's instance groups with the SageMaker console or "
            "`aws sagemaker update-cluster`, as a principal allowed iam:PassRole on those roles."
        )
