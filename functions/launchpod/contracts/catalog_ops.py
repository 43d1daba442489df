"""The operation catalog: every REST operation, once.

The API routes, the role checks, the MCP tools and the web client all read this list, so a new
operation is added here and appears everywhere. ``input`` is the one model a caller fills: fields
named in the path template go in the path, the rest go in the query string (GET, DELETE) or the
JSON body (POST, PATCH, PUT).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from launchpod.contracts.catalog import AvailabilityZoneListView, InstanceTypeListView
from launchpod.contracts.clusters import (
    ClusterListView,
    ClusterView,
    CreateClusterRequest,
    DeleteClusterInput,
    ImportClusterRequest,
    ProvisionClusterRequest,
    RunPhaseInput,
)
from launchpod.contracts.common import AvailabilityZoneName, ClusterName, Contract, OperationId, Role
from launchpod.contracts.dependencies import DependencyListView, ReconcileDependenciesInput
from launchpod.contracts.hyperpod import CreateHyperPodInput, UpdateSoftwareInput
from launchpod.contracts.operations import (
    CancelOperationRequest,
    OperationAcceptedView,
    OperationListView,
    OperationStatus,
    OperationView,
)
from launchpod.contracts.preferences import MeView, PreferencesView, UpdatePreferencesRequest
from launchpod.contracts.storage import (
    BrowseStorageInput,
    ConfigureStorageInput,
    DeleteStorageView,
    StorageListView,
    StorageObjectListView,
    StorageRef,
)


class NoInput(Contract):
    """This operation takes no input."""


class ClusterRef(Contract):
    name: ClusterName


class OperationRef(Contract):
    operationId: OperationId


class CancelOperationInput(CancelOperationRequest):
    operationId: OperationId


class ListOperationsInput(Contract):
    cluster: ClusterName | None = Field(default=None, description="only operations on this cluster")
    status: OperationStatus | None = None
    limit: int = Field(default=50, ge=1, le=200)


class InstanceTypesInput(Contract):
    zone: AvailabilityZoneName | None = Field(default=None, description="only types offered in this zone")


class HealthView(Contract):
    status: str = "ok"
    version: str


@dataclass(frozen=True)
class CatalogEntry:
    id: str
    method: str
    path: str
    summary: str
    input: type[BaseModel]
    response: type[BaseModel]
    role: Role | None  # None: no token needed (health only)
    mutates: bool = False
    destructive: bool = False
    idempotent: bool = True
    tags: tuple[str, ...] = ()
    accepted: bool = field(default=False)  # answers 202 with an operation
    immediate: bool = field(default=False)  # a write that is complete when the call returns (no operation)
    # The operation kinds (workflows) this route starts; retrying or cancelling one needs this route's role.
    starts: tuple[str, ...] = ()

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(re.findall(r"{(\w+)}", self.path))

    @property
    def status_tool(self) -> str | None:
        return "get_operation" if self.accepted else None

    @property
    def description(self) -> str:
        text = self.summary
        if self.accepted:
            text += (
                " Answers with an operation; the work is done only when get_operation reports"
                " SUCCEEDED (or FAILED/CANCELLED). Use wait_for_operation to follow it."
            )
        return text


CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry("health", "GET", "/api/health", "Liveness of the API.", NoInput, HealthView, None, tags=("meta",)),
    CatalogEntry(
        "list_availability_zones",
        "GET",
        "/api/catalog/availability-zones",
        "List the region's availability zones with their zone ids.",
        NoInput,
        AvailabilityZoneListView,
        Role.VIEWER,
        tags=("catalog",),
    ),
    CatalogEntry(
        "list_instance_types",
        "GET",
        "/api/catalog/instance-types",
        "List HyperPod instance types and the zones that offer each.",
        InstanceTypesInput,
        InstanceTypeListView,
        Role.VIEWER,
        tags=("catalog",),
    ),
    CatalogEntry(
        "list_clusters",
        "GET",
        "/api/clusters",
        "List clusters with EKS and HyperPod status read from AWS.",
        NoInput,
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
        CreateClusterRequest,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("create-control-plane",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "provision_cluster",
        "POST",
        "/api/clusters/provision",
        "Create a whole cluster in one operation: EKS control plane, pinned dependencies and the HyperPod cluster"
        " (node auto-recovery on), as child executions; a failed one resumes where it stopped on retry.",
        ProvisionClusterRequest,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("provision-cluster",),
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
        ImportClusterRequest,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("import-cluster",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "delete_cluster",
        "DELETE",
        "/api/clusters/{name}",
        "Delete a cluster and everything Launchpod created for it (HyperPod, EKS, roles, network, scripts);"
        " anything it did not create is left in place. Give the name again as confirm.",
        DeleteClusterInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        accepted=True,
        starts=("delete-cluster",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "create_hyperpod",
        "POST",
        "/api/clusters/{name}/hyperpod",
        "Create the HyperPod cluster on an ACTIVE control plane: lifecycle scripts, execution role, /20 compute"
        " subnet, EFA security group, access entry, CreateCluster with node auto-recovery, wait until InService.",
        CreateHyperPodInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("create-hyperpod",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "update_software",
        "POST",
        "/api/clusters/{name}/software-update",
        "Patch the HyperPod nodes' software in rolling batches (UpdateClusterSoftware) and wait until InService.",
        UpdateSoftwareInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("update-software",),
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
        ReconcileDependenciesInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("reconcile-dependencies",),
        tags=("clusters",),
    ),
    CatalogEntry(
        "configure_storage",
        "POST",
        "/api/clusters/{name}/storage",
        "Expose storage to pods as a PersistentVolumeClaim: the shared S3 bucket (or a prefix of it) through"
        " Mountpoint for S3, or an existing FSx for Lustre file system. Needs the dependencies installed.",
        ConfigureStorageInput,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("configure-storage",),
        tags=("storage",),
    ),
    CatalogEntry(
        "list_storage",
        "GET",
        "/api/clusters/{name}/storage",
        "List the storage Launchpod configured on the cluster: claim, namespace, kind, source, Bound or Pending.",
        ClusterRef,
        StorageListView,
        Role.VIEWER,
        tags=("storage",),
    ),
    CatalogEntry(
        "delete_storage",
        "DELETE",
        "/api/clusters/{name}/storage/{storageName}",
        "Remove a storage's PersistentVolumeClaim and PersistentVolume (only ones Launchpod created);"
        " the data in S3 or FSx is kept.",
        StorageRef,
        DeleteStorageView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        tags=("storage",),
    ),
    CatalogEntry(
        "browse_storage",
        "GET",
        "/api/clusters/{name}/storage/{storageName}/objects",
        "List objects and folders under a prefix of an S3 storage, at most 1000 per page (continuationToken pages on).",
        BrowseStorageInput,
        StorageObjectListView,
        Role.VIEWER,
        tags=("storage",),
    ),
    CatalogEntry(
        "get_me",
        "GET",
        "/api/me",
        "Who you are to Launchpod: your user and the role (viewer, operator, admin) your groups give you.",
        NoInput,
        MeView,
        Role.VIEWER,
        tags=("preferences",),
    ),
    CatalogEntry(
        "get_preferences",
        "GET",
        "/api/preferences",
        "Get your preferences: the active cluster you and your agents work on by default.",
        NoInput,
        PreferencesView,
        Role.VIEWER,
        tags=("preferences",),
    ),
    CatalogEntry(
        "set_preferences",
        "PUT",
        "/api/preferences",
        "Set your active cluster (a preference, effective at once; it changes nothing in AWS).",
        UpdatePreferencesRequest,
        PreferencesView,
        Role.VIEWER,
        mutates=True,
        immediate=True,
        tags=("preferences",),
    ),
    CatalogEntry(
        "list_operations",
        "GET",
        "/api/operations",
        "List operations, newest first, optionally by cluster and status.",
        ListOperationsInput,
        OperationListView,
        Role.VIEWER,
        tags=("operations",),
    ),
    CatalogEntry(
        "get_operation",
        "GET",
        "/api/operations/{operationId}",
        "Get an operation with every phase: status, times, attempts and errors. Decides completion.",
        OperationRef,
        OperationView,
        Role.VIEWER,
        tags=("operations",),
    ),
    CatalogEntry(
        "retry_operation",
        "POST",
        "/api/operations/{operationId}/retry",
        "Resume a FAILED or CANCELLED operation from the phase that did not finish. Needs the role of the"
        " route that started it (admin for cluster operations).",
        OperationRef,
        OperationAcceptedView,
        Role.OPERATOR,
        mutates=True,
        accepted=True,
        tags=("operations",),
    ),
    CatalogEntry(
        "cancel_operation",
        "POST",
        "/api/operations/{operationId}/cancel",
        "Stop a running operation. Resources already created are kept; retry resumes it. Needs the role of"
        " the route that started it (admin for cluster operations).",
        CancelOperationInput,
        OperationView,
        Role.OPERATOR,
        mutates=True,
        destructive=True,
        tags=("operations",),
    ),
)

BY_ID = {entry.id: entry for entry in CATALOG}


def entry(op_id: str) -> CatalogEntry:
    return BY_ID[op_id]
