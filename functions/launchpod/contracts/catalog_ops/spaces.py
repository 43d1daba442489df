"""Development environments: HyperPod Spaces (JupyterLab or Code Editor) per user on a cluster."""

from __future__ import annotations

from launchpod.contracts.catalog_ops.entry import CatalogEntry
from launchpod.contracts.common import Role
from launchpod.contracts.spaces import (
    CreateSpaceInput,
    DeleteSpaceInput,
    DeleteSpaceView,
    ListSpacesInput,
    SpaceListView,
    SpaceRef,
    SpaceView,
    UpdateSpaceInput,
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "create_space",
        "POST",
        "/api/clusters/{name}/spaces",
        "Create a development environment for the signed-in user: a HyperPod Space (JupyterLab or Code Editor),"
        " CPU or with GPUs, on an instance group, with the shared bucket's claim mounted at /data as in the jobs'"
        " pods, stopped after idleTimeoutMinutes idle. Applied at once: follow it with get_space until Running."
        " Needs the amazon-sagemaker-spaces add-on (optional dependencies). dryRun true answers the plan.",
        CreateSpaceInput,
        SpaceView,
        Role.OPERATOR,
        mutates=True,
        immediate=True,
        idempotent=False,
        query=("dryRun",),
        tags=("spaces",),
    ),
    CatalogEntry(
        "list_spaces",
        "GET",
        "/api/clusters/{name}/spaces",
        "List the cluster's Spaces with owner, IDE, GPUs and status.",
        ListSpacesInput,
        SpaceListView,
        Role.VIEWER,
        tags=("spaces",),
    ),
    CatalogEntry(
        "get_space",
        "GET",
        "/api/clusters/{name}/spaces/{spaceName}",
        "Get a Space: status (Starting, Running, Stopping, Stopped, Degraded), where /data is mounted, and how"
        " to open it (its URL, or the kubectl port-forward command).",
        SpaceRef,
        SpaceView,
        Role.VIEWER,
        tags=("spaces",),
    ),
    CatalogEntry(
        "update_space",
        "PATCH",
        "/api/clusters/{name}/spaces/{spaceName}",
        "Stop (desiredStatus Stopped) or start (Running) a Space; applied at once, follow it with get_space."
        " The same status again is NOOP; dryRun true answers the plan.",
        UpdateSpaceInput,
        SpaceView,
        Role.OPERATOR,
        mutates=True,
        immediate=True,
        query=("dryRun", "namespace"),
        tags=("spaces",),
    ),
    CatalogEntry(
        "delete_space",
        "DELETE",
        "/api/clusters/{name}/spaces/{spaceName}",
        "Delete a Space: its pod and home go; the shared bucket (/data) is kept. Give its name again as"
        " confirm. dryRun true answers the plan; a Space that is not there is 404.",
        DeleteSpaceInput,
        DeleteSpaceView,
        Role.OPERATOR,
        mutates=True,
        destructive=True,
        immediate=True,
        query=("dryRun",),
        tags=("spaces",),
    ),
)
