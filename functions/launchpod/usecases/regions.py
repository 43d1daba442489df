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


def cluster_region(name: str, unregistered: str | None = None) -> str:
    """The Region ``name`` was registered in; for a cluster nobody registered (yet), ``unregistered`` or the
    deployment's."""
    record = wiring.clusters().get(name)
    return (record.region if record else None) or unregistered or settings().region


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
    """A workflow's phase runs in its cluster's Region: the one the cluster's record names, or, for a cluster
    not registered yet (the first phases of its creation or import), the one its request asked for. A request's
    ``region`` is not always the cluster's (an endpoint's names its model bucket's), so the record wins."""
    asked = request.get("region") if isinstance(request.get("region"), str) else None
    with wiring.in_region(lambda: cluster_region(target, asked)):
        yield
