"""A user's own preferences, shared by every way in (console, agents): the active cluster."""

from __future__ import annotations

from pydantic import Field

from launchpod.contracts.common import ClusterName, Contract, Role


class PreferencesView(Contract):
    subject: str
    activeCluster: ClusterName | None = Field(default=None, description="the cluster you and your agents work on")


class UpdatePreferencesRequest(Contract):
    activeCluster: ClusterName | None = Field(description="a cluster Launchpod knows, or null to clear")


class MeView(Contract):
    """Who the API sees: the signed-in subject and the Launchpod role its groups give."""

    subject: str
    role: Role
