"""Storage exposed to pods: the shared bucket through Mountpoint for S3, or FSx for Lustre."""

from __future__ import annotations

from launchpod.contracts.catalog_ops.entry import CatalogEntry, ClusterRef, DryRun
from launchpod.contracts.common import Role
from launchpod.contracts.operations import (
    OperationAcceptedView,
)
from launchpod.contracts.storage import (
    BrowseStorageInput,
    ConfigureStorageInput,
    DeleteStorageView,
    StorageListView,
    StorageObjectListView,
    StorageRef,
)


class ConfigureStorageCall(ConfigureStorageInput, DryRun):
    """Expose storage to pods as a PersistentVolumeClaim."""


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "configure_storage",
        "POST",
        "/api/clusters/{name}/storage",
        "Expose storage to pods as a PersistentVolumeClaim: the shared S3 bucket (or a prefix of it) through"
        " Mountpoint for S3, or an existing FSx for Lustre file system. Needs the dependencies installed.",
        ConfigureStorageCall,
        OperationAcceptedView,
        Role.ADMIN,
        mutates=True,
        accepted=True,
        starts=("configure-storage",),
        query=("dryRun",),
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
        "Remove a storage's PersistentVolumeClaim and PersistentVolume (only ones Launchpod created), effective"
        " at once; the data in S3 or FSx is kept. NOOP when the storage is already gone; dryRun true answers the"
        " plan.",
        StorageRef,
        DeleteStorageView,
        Role.ADMIN,
        mutates=True,
        destructive=True,
        immediate=True,
        query=("dryRun",),
        tags=("storage",),
    ),
    CatalogEntry(
        "browse_storage",
        "GET",
        "/api/clusters/{name}/storage/{storageName}/objects",
        "List objects and folders under a prefix of an S3 storage, at most 1000 per page (nextToken pages on).",
        BrowseStorageInput,
        StorageObjectListView,
        Role.VIEWER,
        tags=("storage",),
    ),
)
