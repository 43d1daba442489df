"""Clusters: the control plane, its dependencies and the HyperPod cluster, created, imported, patched and deleted."""

from __future__ import annotations

from pydantic import Field

from launchpod.contracts.catalog_ops.entry import CatalogEntry, ClusterRef, DryRun
from launchpod.contracts.clusters import (
    ClusterListView,
    ClusterView,
    CreateClusterRequest,
    DeleteClusterInput,
    DeleteHyperPodInput,
    ImportClusterRequest,
    ProvisionClusterRequest,
    RunPhaseInput,
)
from launchpod.contracts.common import Contract, Role
from launchpod.contracts.dependencies import DependencyListView, ReconcileDependenciesInput
from launchpod.contracts.hyperpod import CreateHyperPodInput, UpdateSoftwareInput
from launchpod.contracts.operations import (
    OperationAcceptedView,
)


class ListClustersInput(Contract):
    limit: int = Field(default=50, ge=1, le=200)
    nextToken: str | None = Field(default=None, max_length=2048, description="the nextToken of the previous page")


# The inputs of the mutating routes the planner answers: the request plus dryRun (sent in the query).
class CreateClusterInput(CreateClusterRequest, DryRun):
    """Create the EKS control plane for a HyperPod cluster."""


class ProvisionClusterInput(ProvisionClusterRequest, DryRun):
    """Everything in one request: control plane, dependencies, HyperPod and, optionally, storage."""


class ImportClusterInput(ImportClusterRequest, DryRun):
    """Bring an existing EKS cluster under Launchpod."""


class DeleteClusterCall(DeleteClusterInput, DryRun):
    """Delete a cluster and everything Launchpod created for it; type its name back to confirm."""


class DeleteHyperPodCall(DeleteHyperPodInput, DryRun):
    """Delete only the cluster's HyperPod cluster; type the cluster's name back to confirm."""


class CreateHyperPodCall(CreateHyperPodInput, DryRun):
    """Create the HyperPod cluster of an existing Launchpod cluster."""


class ReconcileDependenciesCall(ReconcileDependenciesInput, DryRun):
    """Install or update the pinned dependencies."""


class UpdateSoftwareCall(UpdateSoftwareInput, DryRun):
    """Patch the nodes' software in rolling batches."""


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "list_clusters",
        "GET",
        "/api/clusters",
        "List clusters by name with EKS and HyperPod status read from AWS, a page at a time (nextToken).",
        ListClustersInput,
        ClusterListView,
        Role.VIEWER,
        tags=("clusters",),
    ),
    CatalogEntry(
        "get_cluster",
        "GET",
        "/api/clusters/{name}",
        "Get one cluster with EKS and HyperPod status read from AWS.",
        ClusterRef,
        ClusterView,
        Role.VIEWER,
        tags=("clusters",),
    ),
    CatalogEntry(
        "create_cluster",
        "POST",
        "/api/clusters",
        "Create the EKS control plane of a new cluster: network, IAM role, EKS, OIDC, access entry, core add-ons.",
        CreateClusterInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("create-control-plane",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "provision_cluster",
        "POST",
        "/api/clusters/provision",
        "Create a whole cluster in one operation: EKS control plane, pinned dependencies and the HyperPod cluster"
        " (node auto-recovery on), as child executions; a failed one resumes where it stopped on retry.",
        ProvisionClusterInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("provision-cluster",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "run_cluster_phase",
        "POST",
        "/api/clusters/{name}/phases/{phase}",
        "Run one provisioning phase of a cluster again on its own: control-plane, dependencies, hyperpod or"
        " storage, with the settings recorded for the cluster (its last provision_cluster, or the last run of that"
        " phase's own tool). Each step of the phase checks the real state first and skips what is already done.",
        RunPhaseInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("create-control-plane", "reconcile-dependencies", "create-hyperpod", "configure-storage"),
        tags=("clusters",),
    ),
    CatalogEntry(
        "import_cluster",
        "POST",
        "/api/clusters/import",
        "Import an existing EKS cluster (API or API_AND_CONFIG_MAP authentication): give Launchpod's role an access"
        " entry, check it reaches the Kubernetes API, and record the cluster as imported.",
        ImportClusterInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("import-cluster",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "create_hyperpod",
        "POST",
        "/api/clusters/{name}/hyperpod",
        "Create the HyperPod cluster on an ACTIVE control plane: lifecycle scripts, execution role, /20 compute"
        " subnet, EFA security group, access entry, CreateCluster with node auto-recovery, wait until InService.",
        CreateHyperPodCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("create-hyperpod",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "update_software",
        "POST",
        "/api/clusters/{name}/software-update",
        "Patch the HyperPod nodes' software in rolling batches (UpdateClusterSoftware) and wait until InService.",
        UpdateSoftwareCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("update-software",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "delete_hyperpod",
        "DELETE",
        "/api/clusters/{name}/hyperpod",
        "Delete only the HyperPod cluster Launchpod created, and wait until it is gone; the EKS control plane,"
        " its add-ons and storage stay. Use it to give up a failed HyperPod cluster (to create it again with"
        " create_hyperpod later) or to stop paying for its nodes. Give the cluster's name again as confirm.",
        DeleteHyperPodCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        accepted=True,
        starts=("delete-hyperpod",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "delete_cluster",
        "DELETE",
        "/api/clusters/{name}",
        "Delete a cluster and everything Launchpod created for it (HyperPod, EKS, its MLflow tracking server"
        " with the runs on it, roles, network, scripts); anything it did not create, such as a tracking server"
        " you picked or the artifacts in the shared bucket, is left in place. Give the name again as confirm.",
        DeleteClusterCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        accepted=True,
        starts=("delete-cluster",),
        query=("dryRun",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "list_dependencies",
        "GET",
        "/api/clusters/{name}/dependencies",
        "List the cluster's dependencies: required or optional, pinned vs installed version, drift.",
        ClusterRef,
        DependencyListView,
        Role.VIEWER,
        tags=("clusters",),
    ),
    CatalogEntry(
        "reconcile_dependencies",
        "POST",
        "/api/clusters/{name}/dependencies",
        "Install or update the pinned dependencies (EKS add-ons and Kubernetes manifests), each to ACTIVE or ready.",
        ReconcileDependenciesCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("reconcile-dependencies",),
        query=("dryRun",),
        tags=("clusters",),
    ),
)
