"""The scheduled drift check: for every registered cluster whose EKS control plane is ACTIVE, compare its
add-ons with the pinned dependency manifest and record what drifted on the cluster: an add-on at another
version than its pin, or whose pin EKS does not offer for the cluster's Kubernetes version."""

from __future__ import annotations

import builtins
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from launchpod.domain import dependencies
from launchpod.domain.clusters.cluster_record import ClusterRecord, Source
from launchpod.domain.errors import LaunchpodError
from launchpod.runtime import wiring
from launchpod.usecases.ports import AddonCatalog, AddonReader, ControlPlanes

log = logging.getLogger(__name__)  # a child of powertools' "launchpod" logger (entrypoints.observability)


class RegisteredClusters(Protocol):
    """Every registered cluster, and its record written (adapters.store.clusters)."""

    def list(self) -> Iterator[ClusterRecord]: ...
    def register(self, name: str, *, source: Source, region: str, drift: builtins.list[str] | None) -> None: ...


class EksAddons(ControlPlanes, AddonReader, AddonCatalog, Protocol):
    """EKS's clusters, their add-ons and the versions it offers (adapters.aws.eks)."""


@dataclass(frozen=True)
class DriftPorts:
    clusters: RegisteredClusters
    eks: EksAddons


def real() -> DriftPorts:
    """The deployed adapters (runtime.wiring)."""
    return DriftPorts(clusters=wiring.clusters(), eks=wiring.eks())


def check(*, ports: DriftPorts) -> dict[str, Any]:
    """Record each ACTIVE cluster's drifted add-ons; how many were checked and which drifted."""
    results: dict[str, list[str]] = {}
    for record in ports.clusters.list():
        name = record.name
        try:
            with wiring.in_region(record.region):  # each cluster is read in its own Region
                eks = ports.eks.cluster(name)
                if eks is None or eks.status != "ACTIVE":
                    continue
                kubernetes = eks.version
                offered = dependencies.offered_addons(kubernetes, ports.eks.addon_versions)
                rows = dependencies.status(ports.eks.addons(name), {}, offered, kubernetes)
        except LaunchpodError as exc:  # one unreachable cluster must not stop the others
            log.warning("drift check skipped a cluster", extra={"cluster": name, "error": exc.message})
            continue
        drifted = [r["name"] for r in rows if r["kind"] == "addon" and r["drift"]]
        ports.clusters.register(name, source=record.source, region=record.region, drift=drifted)
        results[name] = drifted
    return {"checked": len(results), "drifted": {k: v for k, v in results.items() if v}}
