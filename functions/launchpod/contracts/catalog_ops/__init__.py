"""The operation catalog: every REST operation, once, assembled from one module per capability.

The API routes, the role checks, the MCP tools and the web client all read this list, so a new
operation is added to its capability's module and appears everywhere. ``input`` is the one model a
caller fills: fields named in the path template go in the path, the rest go in the query string (GET,
DELETE) or the JSON body (POST, PATCH, PUT).
"""

from __future__ import annotations

from launchpod.contracts.catalog_ops import (
    capacity,
    clusters,
    features,
    inference,
    instance_groups,
    jobs,
    meta,
    metrics,
    nodes,
    notifications,
    operations,
    spaces,
    storage,
)
from launchpod.contracts.catalog_ops.entry import CatalogEntry, ClusterRef, DryRun, NoInput
from launchpod.contracts.health import HealthView

__all__ = ["BY_ID", "CATALOG", "TOOLS", "CatalogEntry", "ClusterRef", "DryRun", "HealthView", "NoInput", "entry"]

CATALOG: tuple[CatalogEntry, ...] = (
    *meta.ENTRIES,
    *capacity.ENTRIES,
    *clusters.ENTRIES,
    *nodes.ENTRIES,
    *notifications.ENTRIES,
    *instance_groups.ENTRIES,
    *storage.ENTRIES,
    *features.ENTRIES,
    *operations.ENTRIES,
    *inference.ENTRIES,
    *jobs.ENTRIES,
    *spaces.ENTRIES,
    *metrics.ENTRIES,
)

BY_ID = {entry.id: entry for entry in CATALOG}
if len(BY_ID) != len(CATALOG):
    raise ValueError("two catalog entries share an id")
# The operations the MCP gateway offers as tools.
TOOLS: tuple[CatalogEntry, ...] = tuple(e for e in CATALOG if e.tool)


def entry(op_id: str) -> CatalogEntry:
    return BY_ID[op_id]
