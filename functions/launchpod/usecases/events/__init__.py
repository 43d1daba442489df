"""What Launchpod does when AWS tells it something changed (the EventBridge handlers' use cases)."""

from __future__ import annotations

from typing import Any


def cluster_name(detail: dict[str, Any]) -> str | None:
    """HyperPod events name the cluster; the HyperPod and EKS clusters share Launchpod's name."""
    name = detail.get("ClusterName") or str(detail.get("ClusterArn", "")).rpartition("/")[2]
    return name or None
