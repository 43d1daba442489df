"""What a provisioning phase's own route and its re-run (the phases route) share: the control plane's
checks, plan and submit (POST /api/clusters), and a cluster's dependencies (their status and reconciling
them), each against an ACTIVE control plane. Every use case takes its ports; ``real()`` builds the deployed
ones and unit tests pass in-memory fakes."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.dependencies import DependencyListView, DependencyView, ReconcileDependenciesInput
from launchpod.contracts.operations import OperationView
from launchpod.domain import dependencies
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane, plans
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.clusters.views import owned_by_launchpod
from launchpod.domain.concurrency import ContextPool
from launchpod.domain.dependencies import objects
from launchpod.domain.errors import Conflict
from launchpod.domain.plan import Plan
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.ports import ClusterRegistry, ControlPlanes, Ec2Offerings, EksClusters, KubeReader, Subnets
from launchpod.usecases.proposal import Proposal


@dataclass(frozen=True)
class ProvisioningPorts:
    region: str
    prefix: str
    clusters: ClusterRegistry
    operations: ops.OperationStore
    workflows: ops.WorkflowRunner
    eks: EksClusters
    ec2: Ec2Offerings
    read: KubeReader


def real() -> ProvisioningPorts:
    """The deployed adapters (runtime.wiring)."""
    return ProvisioningPorts(
        region=wiring.region(),  # the cluster's (usecases.regions), the deployment's by default
        prefix=settings().resource_prefix,
        clusters=wiring.clusters(),
        operations=wiring.operations(),
        workflows=wiring.workflows(),
        eks=wiring.eks(),
        ec2=wiring.ec2(),
        read=wiring.kube().read,
    )


def require_active(name: str, needs: str, *, eks_clusters: ControlPlanes) -> EksCluster:
    """The cluster as EKS describes it; 409 unless its control plane is ACTIVE (``needs`` names what asked,
    "storage needs")."""
    eks = eks_clusters.cluster(name)
    if eks is None or eks.status != "ACTIVE":
        state = eks.status if eks else "not created"
        raise Conflict(f"The EKS control plane of {name} is {state}; {needs} an ACTIVE cluster.")
    return eks


def subnet_zones(eks: EksCluster | None, *, ec2: Subnets) -> list[str]:
    """The zones of an EKS cluster's subnets, as the request's availabilityZones would name them."""
    ids = list(eks.subnet_ids) if eks else []
    return [s.zone for s in ec2.subnets(ids)] if ids else []


# ---------------------------------------------------------------------------- the control plane


def check_region(name: str, *, ports: ProvisioningPorts) -> None:
    """A cluster stays in the Region it was created in: asking for it in another is 409 naming its Region."""
    record = ports.clusters.get(name)
    if record and record.region != ports.region:
        raise Conflict(
            f"Cluster {name} lives in {record.region}, not {ports.region}; a cluster cannot move between Regions."
            f" Ask for region {record.region}, or choose another name for a cluster in {ports.region}."
        )


def check_control_plane(request: CreateClusterRequest, *, ports: ProvisioningPorts) -> EksCluster | None:
    """The cluster is asked for in its own Region, the zones exist there and any EKS cluster of that name is
    Launchpod's; returns that cluster."""
    check_region(request.cluster, ports=ports)
    control_plane.check_zones(request, [z["name"] for z in ports.ec2.zones()], ports.region)
    existing = ports.eks.cluster(request.cluster)
    if existing is not None and not owned_by_launchpod(existing, request.cluster, ports.prefix):
        raise Conflict(
            f"An EKS cluster named {request.cluster} already exists and Launchpod did not create it;"
            " choose another name."
        )
    return existing


def submit_control_plane(
    request: CreateClusterRequest, who: ops.Principal, steps: Plan | None = None, *, ports: ProvisioningPorts
) -> OperationView:
    """Record and start create-control-plane, and register the cluster as created by Launchpod."""
    workflow = control_plane.plan(request)
    if steps is not None:
        workflow = replace(workflow, steps=steps.views())
    operation, _ = ops.submit(ports.operations, ports.workflows, workflow, who)
    ports.clusters.register(request.cluster, source="created", region=ports.region)
    return operation


def create_cluster(request: CreateClusterRequest, who: ops.Principal, *, ports: ProvisioningPorts) -> Proposal:
    """POST /api/clusters: the control plane planned against EKS's real cluster of that name (a settled one
    asked again is NOOP; a field it cannot change is 409), started by create-control-plane."""
    existing = check_control_plane(request, ports=ports)
    record = ports.clusters.get(request.cluster)
    settled = bool(existing and existing.status == "ACTIVE" and record and not record.locked_by)
    plan = plans.control_plane_plan(request, existing, subnet_zones(existing, ec2=ports.ec2), settled)
    return Proposal(
        plan,
        lambda: submit_control_plane(request, who, plan, ports=ports),
        noop=f"Cluster {request.cluster} already exists as asked; no changes.",
    )


def start_control_plane(
    request: CreateClusterRequest, who: ops.Principal, *, ports: ProvisioningPorts
) -> OperationView:
    """create-control-plane whatever EKS's state: each of its phases skips what is already done."""
    check_control_plane(request, ports=ports)
    return submit_control_plane(request, who, ports=ports)


# ---------------------------------------------------------------------------- dependencies


def dependency_rows(name: str, ports: ProvisioningPorts, eks: EksCluster | None) -> list[dict[str, Any]]:
    """Each dependency's pinned version beside the one installed (EKS add-on, or its workload's label), for
    the cluster as EKS described it to the caller (``eks``: not described again).

    A dozen reads, none waiting for another but the offered versions for the cluster's Kubernetes
    version: they are asked side by side, as the clusters of a page are (usecases.clusters)."""

    def installed(entry: Any) -> str | None:
        workload = objects.entry_workload(entry.name, entry.version, ports.region)
        found = ports.read(name, workload)
        return ((found or {}).get("metadata", {}).get("labels") or {}).get("app.kubernetes.io/version")

    entries = dependencies.manifest().manifests
    with ContextPool(max_workers=8, thread_name_prefix="dependency") as pool:
        addons = pool.submit(ports.eks.addons, name)
        versions = pool.map(installed, entries)
        kubernetes = eks.version if eks else None
        pinned = [a.name for a in dependencies.manifest().addons] if kubernetes else []
        asked = dict(zip(pinned, pool.map(lambda a: ports.eks.addon_versions(a, str(kubernetes)), pinned), strict=True))
        found = dict(zip((e.name for e in entries), versions, strict=True))
        offered = dependencies.offered_addons(kubernetes, lambda addon, _version: asked[addon])
        return dependencies.status(addons.result(), found, offered, kubernetes)


def list_dependencies(name: str, *, ports: ProvisioningPorts) -> DependencyListView:
    eks = require_active(name, "dependencies need", eks_clusters=ports.eks)
    return DependencyListView(
        cluster=name,
        manifestVersion=dependencies.manifest().version,
        items=[
            DependencyView(**{k: v for k, v in r.items() if k != "wanted"}) for r in dependency_rows(name, ports, eks)
        ],
    )


def start_reconcile(
    request: ReconcileDependenciesInput, who: ops.Principal, steps: Plan | None = None, *, ports: ProvisioningPorts
) -> OperationView:
    require_active(request.name, "dependencies need", eks_clusters=ports.eks)
    workflow = dependencies.plan(request.name, request.includeOptional)
    if steps is not None:
        workflow = replace(workflow, steps=steps.views())
    operation, _ = ops.submit(ports.operations, ports.workflows, workflow, who)
    return operation


def reconcile_dependencies(
    request: ReconcileDependenciesInput, who: ops.Principal, *, ports: ProvisioningPorts
) -> Proposal:
    """The dependencies not at their pinned version, planned and started by reconcile-dependencies."""
    eks = require_active(request.name, "dependencies need", eks_clusters=ports.eks)
    rows = dependency_rows(request.name, ports, eks)
    found = dependencies.reconcile_plan(request.name, rows, request.includeOptional)
    return Proposal(
        found,
        lambda: start_reconcile(request, who, found, ports=ports),
        noop=f"Every dependency of {request.name} is at its pinned version; no changes.",
    )
