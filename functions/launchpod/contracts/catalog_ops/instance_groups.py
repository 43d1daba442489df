"""Instance groups of the HyperPod cluster, and HyperPod-managed Karpenter over them."""

from __future__ import annotations

from launchpod.contracts.autoscaling import AutoscalingInput
from launchpod.contracts.catalog_ops.entry import CatalogEntry, ClusterRef
from launchpod.contracts.common import Role
from launchpod.contracts.instance_groups import (
    AddInstanceGroupInput,
    DeleteInstanceGroupInput,
    InstanceGroupAcceptedView,
    InstanceGroupListView,
    UpdateInstanceGroupInput,
)
from launchpod.contracts.operations import (
    OperationAcceptedView,
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "list_instance_groups",
        "GET",
        "/api/clusters/{name}/instance-groups",
        "List the HyperPod cluster's instance groups: instance type, current/target/min counts, status, capacity"
        " type, NIC mode, zone and subnet, training plan, deep health checks, image version, Karpenter management.",
        ClusterRef,
        InstanceGroupListView,
        Role.VIEWER,
        tags=("instance-groups",),
    ),
    CatalogEntry(
        "add_instance_group",
        "POST",
        "/api/clusters/{name}/instance-groups",
        "Add one instance group to the HyperPod cluster (UpdateCluster; the other groups keep every field):"
        " instance type, count (0 allowed), zone or a dedicated /20 subnet, capacity onDemand, spot or"
        " trainingPlan (the plan's zone wins), EFA-only interfaces, threads per core, EBS size, deep health"
        " checks, labels and taints. Checks first that the zone offers the type and the quota allows it.",
        AddInstanceGroupInput,
        InstanceGroupAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("instance-groups",),
        tags=("instance-groups",),
    ),
    CatalogEntry(
        "update_instance_group",
        "PATCH",
        "/api/clusters/{name}/instance-groups/{group}",
        "Change an instance group: send only what changed (instance count, labels, taints, deep health checks,"
        " scheduled update). Answers NOOP when nothing differs. Capacity type, NIC mode, instance type and subnet"
        " are fixed for the life of a group: add a new group to change them.",
        UpdateInstanceGroupInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("instance-groups",),
        tags=("instance-groups",),
    ),
    CatalogEntry(
        "delete_instance_group",
        "DELETE",
        "/api/clusters/{name}/instance-groups/{group}",
        "Delete an instance group and terminate its nodes (and its dedicated subnet, if Launchpod made one)."
        " Give the group's name again as confirm.",
        DeleteInstanceGroupInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        accepted=True,
        starts=("instance-groups",),
        tags=("instance-groups",),
    ),
    CatalogEntry(
        "set_autoscaling",
        "PUT",
        "/api/clusters/{name}/autoscaling",
        "Enable or disable HyperPod-managed Karpenter for instance groups: enable makes the cluster role, turns on"
        " AutoScaling (Karpenter), waits until InService, then applies a HyperpodNodeClass (at most 10 groups; each"
        " starts at 0) and a NodePool; disable removes them in reverse. It scales HyperPod instance groups only, not"
        " plain EC2 instances or EKS node groups. Enabling needs a cluster created with continuous provisioning, a"
        " group outside autoscaling with a node for system pods, no group on a training plan or with deep health"
        " checks, and each group with nodes named in confirmScaleToZero. Answers NOOP when nothing changes.",
        AutoscalingInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("autoscaling",),
        tags=("instance-groups",),
    ),
)
