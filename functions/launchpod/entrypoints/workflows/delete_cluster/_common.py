"""What every delete-cluster phase needs: the cluster's ownership tags."""

from __future__ import annotations

from launchpod.domain.clusters import control_plane
from launchpod.runtime.settings import settings


def our_tags(cluster: str) -> dict[str, str]:
    return control_plane.tags(cluster, settings().resource_prefix)
