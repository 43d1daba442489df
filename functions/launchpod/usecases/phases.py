"""One provisioning phase of a cluster run again on its own (control-plane, dependencies, hyperpod or
storage) with the settings recorded for the cluster, through the same checks and submit as its own route
(without that route's NOOP: a re-run always runs, and each of the workflow's phases skips what is done)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.contracts.operations import OperationView
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.domain import operations as ops
from launchpod.domain.clusters import phases
from launchpod.domain.errors import NotFound
from launchpod.runtime import wiring
from launchpod.usecases import hyperpod, provisioning, storage
from launchpod.usecases.ports import ClusterRecords, ControlPlanes, OperationLog

# Enough of a cluster's newest operations to find the last settings of each phase.
HISTORY = 100


@dataclass(frozen=True)
class PhasePorts:
    clusters: ClusterRecords
    eks: ControlPlanes
    operations: OperationLog
    provisioning: provisioning.ProvisioningPorts
    hyperpod: hyperpod.HyperPodPorts
    storage: storage.StoragePorts


def real() -> PhasePorts:
    """The deployed adapters (runtime.wiring, and each phase's own use case's)."""
    return PhasePorts(
        clusters=wiring.clusters(),
        eks=wiring.eks(),
        operations=wiring.operations(),
        provisioning=provisioning.real(),
        hyperpod=hyperpod.real(),
        storage=storage.real(),
    )


def _start(request: Any, who: ops.Principal, ports: PhasePorts) -> OperationView:
    """The phase's own start, chosen by the input its recorded settings validated as."""
    if isinstance(request, CreateClusterRequest):
        return provisioning.start_control_plane(request, who, ports=ports.provisioning)
    if isinstance(request, ReconcileDependenciesInput):
        return provisioning.start_reconcile(request, who, ports=ports.provisioning)
    if isinstance(request, CreateHyperPodInput):
        return hyperpod.start_hyperpod(request, who, ports=ports.hyperpod)
    if isinstance(request, ConfigureStorageInput):
        return storage.start_configure(request, who, ports=ports.storage)
    raise TypeError(f"no phase takes {type(request).__name__}")


def run_phase(name: str, phase: str, who: ops.Principal, *, ports: PhasePorts) -> OperationView:
    """Run ``phase`` of ``name`` again with the settings its last run recorded (409 when none are)."""
    if ports.clusters.get(name) is None and ports.eks.cluster(name) is None:
        raise NotFound(f"Cluster {name} is not known to Launchpod and EKS has no cluster by that name.")
    history = ports.operations.list(target=name, status=None, limit=HISTORY)
    return _start(phases.recorded_input(phase, name, history), who, ports)
