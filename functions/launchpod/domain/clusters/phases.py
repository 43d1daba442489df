"""One provisioning phase run alone: each phase of provision-cluster is a workflow of its own, run
again with the settings recorded for the cluster, taken from the newest operation that has them (a
provision-cluster's part for that phase, or an operation of the phase's own kind)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, get_args

from pydantic import ValidationError

from launchpod.contracts.clusters import CreateClusterRequest, ProvisionPhase
from launchpod.contracts.common import Contract
from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.contracts.operations import OperationView
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.domain import dependencies, storage
from launchpod.domain.clusters import control_plane, hyperpod, provision
from launchpod.domain.errors import Conflict

NAMES: tuple[str, ...] = get_args(ProvisionPhase)
# phase -> (its workflow's kind, the input that workflow records)
WORKFLOWS: dict[str, tuple[str, type[Contract]]] = {
    "control-plane": (control_plane.KIND, CreateClusterRequest),
    "dependencies": (dependencies.KIND, ReconcileDependenciesInput),
    "hyperpod": (hyperpod.KIND, CreateHyperPodInput),
    "storage": (storage.KIND, ConfigureStorageInput),
}


def dedicated_route(phase: str, cluster: str) -> str:
    """The route that runs the phase with settings given in full."""
    if phase == "control-plane":
        return f'POST /api/clusters with {{"cluster": "{cluster}", ...}}'
    return f"POST /api/clusters/{cluster}/{phase}"


def recorded_settings(phase: str, history: Iterable[OperationView]) -> dict[str, Any] | None:
    """The request part for ``phase`` of the newest operation that has one, from a cluster's operations."""
    kind, _ = WORKFLOWS[phase]
    part = provision.PARTS[kind]
    for operation in sorted(history, key=lambda o: o.createdAt, reverse=True):
        if operation.kind == kind:
            return operation.request
        if operation.kind == provision.KIND and part in operation.request:
            return dict(operation.request[part])
    return None


def recorded_input(phase: str, cluster: str, history: Iterable[OperationView]) -> Contract:
    """The input to run ``phase`` of ``cluster`` again, or Conflict naming the route that takes settings."""
    kind, model = WORKFLOWS[phase]
    found = recorded_settings(phase, history)
    route = dedicated_route(phase, cluster)
    if found is None:
        raise Conflict(
            f"No settings are recorded for the {phase} phase of {cluster}: neither provision-cluster nor {kind}"
            f" has run on it. Run it once with its settings ({route}); after that this route re-runs it."
        )
    # The control plane's request names the cluster ``cluster`` (recorded before: ``name``); the others' inputs
    # take it from the path, as ``name``.
    key = "cluster" if "cluster" in model.model_fields else "name"
    settings = {k: v for k, v in found.items() if k not in ("cluster", "name")}
    try:
        return model.model_validate({**settings, key: cluster})
    except ValidationError as exc:
        raise Conflict(
            f"The settings recorded for the {phase} phase of {cluster} are no longer valid"
            f" ({exc.errors()[0]['msg']}); run it with new settings: {route}."
        ) from exc
