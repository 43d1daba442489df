"""Nodes: their state and events, node actions, moves between groups, health checks, incidents with the
remediation ladder, diagnostics."""

from __future__ import annotations

from launchpod.contracts.catalog_ops.entry import CatalogEntry, ClusterRef
from launchpod.contracts.common import Role
from launchpod.contracts.incidents import (
    DiagnoseCreationInput,
    DiagnoseNcclInput,
    DiagnosisView,
    IncidentListView,
    LadderPolicyInput,
    LadderPolicyView,
)
from launchpod.contracts.nodes import (
    ClusterEventListView,
    DestructiveNodeActionInput,
    HealthCheckInput,
    ListEventsInput,
    MoveNodesInput,
    NodeActionInput,
    NodeDetailView,
    NodeListView,
    NodeRef,
)
from launchpod.contracts.operations import (
    OperationAcceptedView,
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "list_nodes",
        "GET",
        "/api/clusters/{name}/nodes",
        "List the cluster's HyperPod nodes joined with their Kubernetes Nodes: group, instance type, zone, capacity"
        " type, instance status, Ready, the health agent's labels and taints, GPUs allocatable and allocated, pods.",
        ClusterRef,
        NodeListView,
        Role.VIEWER,
        tags=("nodes",),
    ),
    CatalogEntry(
        "get_node",
        "GET",
        "/api/clusters/{name}/nodes/{nodeId}",
        "Get one node: DescribeClusterNode with its Kubernetes conditions, health labels, taints, events and pods.",
        NodeRef,
        NodeDetailView,
        Role.VIEWER,
        tags=("nodes",),
    ),
    CatalogEntry(
        "list_cluster_events",
        "GET",
        "/api/clusters/{name}/events",
        "List the HyperPod cluster's events (ListClusterEvents), newest first, by instance group, node, level,"
        " resource type and time, each with DescribeClusterEvent's details (the failure message events omit).",
        ListEventsInput,
        ClusterEventListView,
        Role.VIEWER,
        tags=("nodes",),
    ),
    CatalogEntry(
        "reboot_nodes",
        "POST",
        "/api/clusters/{name}/nodes/reboot",
        "Reboot nodes (BatchRebootClusterNodes, 25 per call) and follow each until it is Running again; nodes AWS"
        " refuses or that come back failed are reported one by one. Workloads on them are interrupted.",
        NodeActionInput,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        idempotent=False,
        accepted=True,
        starts=("reboot-nodes",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "replace_nodes",
        "POST",
        "/api/clusters/{name}/nodes/replace",
        "Replace nodes with new hardware (BatchReplaceClusterNodes, 25 per call) and follow each replacement until"
        " it is Running. DATA LOSS: every local volume of the nodes (root and secondary) is destroyed; back up"
        " first and send acknowledgeDataLoss: true. Try reboot_nodes first.",
        DestructiveNodeActionInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        idempotent=False,
        accepted=True,
        starts=("replace-nodes",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "delete_nodes",
        "POST",
        "/api/clusters/{name}/nodes/delete",
        "Delete nodes from the cluster (BatchDeleteClusterNodes; the groups shrink) and follow each until it is"
        " gone. DATA LOSS: every local volume of the nodes is destroyed; send acknowledgeDataLoss: true.",
        DestructiveNodeActionInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        idempotent=False,
        accepted=True,
        starts=("delete-nodes",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "start_health_check",
        "POST",
        "/api/clusters/{name}/health-checks",
        "Run deep health checks on demand (StartClusterHealthCheck) on instance groups or nodes and follow each"
        " node to passed or failed. The nodes stop taking work meanwhile, and HyperPod reboots or replaces the"
        " ones that fail (replacement loses local volumes), so this needs admin.",
        HealthCheckInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        idempotent=False,
        accepted=True,
        starts=("health-check",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "move_nodes",
        "POST",
        "/api/clusters/{name}/nodes/move",
        "Move running nodes to another instance group, here or in another cluster of the Region (MoveClusterNodes),"
        " keeping the instances and their capacity (training plan, reservation). Give count or nodeIds; the nodes"
        " are drained first (cordon, evict), then followed until Running in the target group. Needs continuous"
        " provisioning and InService on both clusters, the nodes' type and zone in the target group. DATA LOSS:"
        " EBS volumes replaced; send acknowledgeDataLoss: true.",
        MoveNodesInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        idempotent=False,
        accepted=True,
        starts=("move-nodes",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "list_incidents",
        "GET",
        "/api/clusters/{name}/incidents",
        "List the cluster's node incidents, newest first: HyperPod's health events folded per node (duplicates"
        " counted, not repeated), the remediation ladder's state and steps (investigate, reboot, replace) and the"
        " suggested next step as a tool call. Also says the ladder's policy.",
        ClusterRef,
        IncidentListView,
        Role.VIEWER,
        tags=("nodes",),
    ),
    CatalogEntry(
        "set_ladder_policy",
        "PUT",
        "/api/clusters/{name}/ladder-policy",
        "Set the remediation ladder's policy for the cluster: off (incidents only), suggest (default: record the"
        " next command for a person or agent) or auto (run it as an operation: reboot once, then replace)."
        " A setting, effective at once (from the next health event on); it changes nothing in AWS. NOOP when the"
        " cluster already has that policy; dryRun true answers the plan.",
        LadderPolicyInput,
        LadderPolicyView,
        Role.ADMIN,
        mutates=True,
        immediate=True,
        query=("dryRun",),
        tags=("nodes",),
    ),
    CatalogEntry(
        "diagnose_node",
        "GET",
        "/api/clusters/{name}/nodes/{nodeId}/diagnosis",
        "Diagnose one node, read-only: HyperPod status, Kubernetes conditions, the health agent's labels and taints,"
        " HyperPod and Kubernetes events, its incident and the ladder's next step. Suggests commands, runs none.",
        NodeRef,
        DiagnosisView,
        Role.VIEWER,
        tags=("diagnostics",),
    ),
    CatalogEntry(
        "diagnose_cluster_creation",
        "GET",
        "/api/clusters/{name}/diagnosis/creation",
        "Diagnose a cluster's creation, read-only: HyperPod's failure message and likely cause, failed operations"
        " and their phase, Error events with details, the lifecycle scripts' log location, and where the instance"
        " types are offered. Suggests the next step, runs none.",
        DiagnoseCreationInput,
        DiagnosisView,
        Role.VIEWER,
        tags=("diagnostics",),
    ),
    CatalogEntry(
        "diagnose_nccl",
        "GET",
        "/api/clusters/{name}/diagnosis/nccl",
        "Diagnose NCCL for a job's pods, read-only: their nodes' spread over zones, EFA present and requested,"
        " FI_PROVIDER and NCCL_* environment, NCCL errors in their logs, nodes with earlier incidents. The job's"
        " pods are found by Launchpod's job label, else by their job-name label or name prefix.",
        DiagnoseNcclInput,
        DiagnosisView,
        Role.VIEWER,
        tags=("diagnostics",),
    ),
)
