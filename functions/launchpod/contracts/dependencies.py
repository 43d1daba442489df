"""Cluster dependencies over REST: the status of each, and the reconcile request."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from launchpod.contracts.common import ClusterName, Contract


class DependencyView(Contract):
    name: str
    kind: Literal["addon", "manifest"]
    required: bool
    pinned: str = Field(description="the version Launchpod's manifest pins")
    installed: str | None = Field(default=None, description="the version found on the cluster")
    state: str = Field(description="the add-on status (ACTIVE, CREATING, ...), Applied, or NOT_INSTALLED")
    drift: bool = Field(description="installed, but not at the pinned version")
    purpose: str
    note: str | None = Field(
        default=None,
        description="why it is not ACTIVE yet when that is expected, e.g. a Deployment add-on that waits for nodes",
    )


class DependencyListView(Contract):
    cluster: ClusterName
    manifestVersion: str
    items: list[DependencyView]


class ReconcileDependenciesRequest(Contract):
    includeOptional: bool = Field(default=False, description="also install optional entries (FSx CSI, Neuron, KubeRay)")


class ReconcileDependenciesInput(ReconcileDependenciesRequest):
    name: ClusterName
