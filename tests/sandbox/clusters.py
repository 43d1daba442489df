"""The cluster requests the end-to-end tests send: a control plane in the sandbox's two zones and HyperPod in
the first (HyperPod's instance groups launch into one Availability Zone's subnet; EKS wants subnets in at
least two, https://docs.aws.amazon.com/eks/latest/userguide/network-reqs.html)."""

from __future__ import annotations

from typing import Any

ZONES = ["us-east-1a", "us-east-1b"]


def cluster_body(name: str, *groups: dict[str, Any], **hyperpod: Any) -> dict[str, Any]:
    """POST /api/clusters/provision's body: ``name`` with ``groups`` (and any other HyperPod fields)."""
    return {
        "name": name,
        "availabilityZones": ZONES,
        "hyperpod": {"availabilityZone": ZONES[0], "instanceGroups": list(groups), **hyperpod},
    }
