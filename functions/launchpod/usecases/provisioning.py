"""What a provisioning phase's own route and its re-run (the phases route) share: the control plane's
checks and submit, a cluster's dependencies and storage (each needs an ACTIVE control plane). A plain move from the
clusters, dependencies and storage routers: they read their adapters through wiring (require_active and
subnet_zones take their EKS and EC2 ports)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.operations import OperationView
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.domain import dependencies, storage
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane
from launchpod.domain.clusters.views import owned_by_launchpod
from launchpod.domain.errors import Conflict
from launchpod.domain.plan import Plan
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.ports import ControlPlanes, Subnets


def require_active(name: str, needs: str, *, eks_clusters: ControlPlanes) -> None:
    """409 unless the cluster's EKS control plane is ACTIVE; ``needs`` names what asked ("storage needs")."""
    eks = eks_clusters.cluster(name)
    if eks is None or eks.get("status") != "ACTIVE":
        state = eks.get("status") if eks else "not created"
        raise Conflict(f"The EKS control plane of {name} is {state}; {needs} an ACTIVE cluster.")


def check_control_plane(request: CreateClusterRequest) -> dict[str, Any] | None:
    """The zones exist and any EKS cluster of that name is Launchpod's; returns that cluster."""
    control_plane.check_zones(request, [z["name"] for z in wiring.ec2().zones()], settings().region)
    existing = wiring.eks().cluster(request.name)
    if existing is not None and not owned_by_launchpod(existing, request.name, settings().resource_prefix):
        raise Conflict(
            f"An EKS cluster named {request.name} already exists and Launchpod did not create it; choose another name."
        )
    return existing


def submit_control_plane(request: CreateClusterRequest, who: ops.Principal, steps: Plan | None = None) -> OperationView:
    workflow = control_plane.plan(request)
    if steps is not None:
        workflow = replace(workflow, steps=steps.views())
    operation, _ = ops.submit(wiring.operations(), wiring.workflows(), workflow, who)
    wiring.clusters().register(request.name, source="created", region=settings().region)
    return operation


def start_control_plane(request: CreateClusterRequest, who: ops.Principal) -> OperationView:
    """create-control-plane whatever EKS's state: each of its phases skips what is already done."""
    check_control_plane(request)
    return submit_control_plane(request, who)


def subnet_zones(eks: dict[str, Any] | None, *, ec2: Subnets) -> list[str]:
    """The zones of an EKS cluster's subnets, as the request's availabilityZones would name them."""
    ids = list(((eks or {}).get("resourcesVpcConfig") or {}).get("subnetIds") or [])
    return [s["AvailabilityZone"] for s in ec2.subnets(ids)] if ids else []


def start_reconcile(
    request: ReconcileDependenciesInput, who: ops.Principal, steps: Plan | None = None
) -> OperationView:
    require_active(request.name, "dependencies need", eks_clusters=wiring.eks())
    workflow = dependencies.plan(request.name, request.includeOptional)
    if steps is not None:
        workflow = replace(workflow, steps=steps.views())
    operation, _ = ops.submit(wiring.operations(), wiring.workflows(), workflow, who)
    return operation


def start_configure(request: ConfigureStorageInput, who: ops.Principal, steps: Plan | None = None) -> OperationView:
    require_active(request.name, "storage needs", eks_clusters=wiring.eks())
    workflow = storage.plan(request)
    if steps is not None:
        workflow = replace(workflow, steps=steps.views())
    operation, _ = ops.submit(wiring.operations(), wiring.workflows(), workflow, who)
    return operation
