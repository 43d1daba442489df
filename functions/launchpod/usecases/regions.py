"""Which Region a cluster's work happens in: the one its registry record names (chosen when it was created,
the deployment's by default). Entrypoints wrap a cluster's work in ``in_cluster_region`` and every regional
AWS client below follows it (launchpod.adapters.aws.clients), so no use case passes a Region by hand. The
record is read only when the work first calls a regional service."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def cluster_region(name: str) -> str:
    """The Region ``name`` was registered in; the deployment's for a cluster nobody registered (yet)."""
    record = wiring.clusters().get(name) or {}
    return str(record.get("region") or settings().region)


@contextmanager
def in_cluster_region(name: str) -> Iterator[None]:
    """Within the block, AWS calls about the cluster go to its Region."""
    with wiring.in_region(lambda: cluster_region(name)):
        yield


@contextmanager
def in_region(name: str | None) -> Iterator[None]:
    """Within the block, AWS calls go to ``name`` (a Region a request asked for; None: the deployment's)."""
    with wiring.in_region(name):
        yield


@contextmanager
def in_workflow_region(target: str, request: Mapping[str, Any]) -> Iterator[None]:
    """A workflow's phase runs in its cluster's Region: the one its request asked for (a cluster being
    created may not be registered yet when its first phase runs), else the one the cluster's record names."""
    asked = request.get("region")
    with wiring.in_region(str(asked) if asked else lambda: cluster_region(target)):
        yield
