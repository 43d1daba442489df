"""HyperPod-managed Karpenter objects of a cluster, read for the autoscaling and instance-group routes."""

from __future__ import annotations

from typing import Any

from launchpod.domain.errors import LaunchpodError
from launchpod.domain.instance_groups import autoscaling
from launchpod.usecases.ports import KubeReader


def karpenter_objects(
    name: str, described: dict[str, Any], *, read: KubeReader
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The HyperpodNodeClass and NodePool Launchpod applied, when AutoScaling is on (None, None otherwise)."""
    if (described.get("AutoScaling") or {}).get("Mode") != "Enable":
        return None, None
    try:
        return read(name, autoscaling.node_class([])), read(name, autoscaling.node_pool(0))
    except LaunchpodError:  # Karpenter's kinds are not installed yet (AutoScaling still Creating)
        return None, None
