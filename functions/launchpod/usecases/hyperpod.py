"""The HyperPod cluster of a Launchpod cluster: its checks before anything is created (zone, offered types,
quotas, an ACTIVE control plane, its dependencies), created or provisioned whole (control plane, HyperPod and
storage in one operation) as planned against the real resources, and its software updated. Every use case
takes its ports; ``real()`` builds the deployed ones and unit tests pass in-memory fakes."""

from __future__ import annotations

from dataclasses import dataclass, replace

from launchpod.contracts.clusters import ProvisionClusterRequest
from launchpod.contracts.hyperpod import CreateHyperPodInput, CreateHyperPodRequest, UpdateSoftwareInput
from launchpod.contracts.operations import OperationView
from launchpod.domain import dependencies
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane, hyperpod, plans, provision, software
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.clusters.instance_types import to_ec2, to_sagemaker
from launchpod.domain.clusters.views import owned_by_launchpod
from launchpod.domain.dependencies import objects as dependency_objects
from launchpod.domain.errors import Conflict, InvalidInput, next_step
from launchpod.domain.instance_groups import placement, preflight
from launchpod.runtime import wiring
from launchpod.usecases.ports import HyperPods, KubeReader, Quotas
from launchpod.usecases.proposal import Proposal
from launchpod.usecases.provisioning import ProvisioningPorts, check_region, dependency_rows, subnet_zones
from launchpod.usecases.provisioning import real as provisioning_real
from launchpod.usecases.storage import volume_and_claim


@dataclass(frozen=True)
class HyperPodPorts(ProvisioningPorts):
    """What the provisioning use cases read, and SageMaker's HyperPod clusters and the account's quotas."""

    sagemaker: HyperPods
    quotas: Quotas


def real() -> HyperPodPorts:
    """The deployed adapters (runtime.wiring and the Kubernetes reader)."""
    return HyperPodPorts(**vars(provisioning_real()), sagemaker=wiring.sagemaker(), quotas=wiring.service_quotas())


# ---------------------------------------------------------------------------- checks


def check_offered(request: CreateHyperPodInput, zones: list[str], at: str = "body", *, ports: HyperPodPorts) -> None:
    """The zone exists and offers every instance type asked for (422 naming the field otherwise)."""
    if request.availabilityZone not in zones:
        raise InvalidInput(
            f"{request.availabilityZone} is not an availability zone in {ports.region}; "
            f"choose from {', '.join(zones)}.",
            field=f"{at}.availabilityZone",
            rule="offered_zone",
        )
    types = sorted({t for g in request.instanceGroups for t in g.types})
    offered = {to_sagemaker(k): v for k, v in ports.ec2.offerings([to_ec2(t) for t in types]).items()}
    hyperpod.check_instance_types(request, {t: offered.get(t, []) for t in types}, at)
    for index, group in enumerate(request.instanceGroups):
        placement.check_continuous(
            group,
            request.nodeProvisioningMode == "Continuous",
            f"{at}.instanceGroups.{index}",
            f"nodeProvisioningMode is not Continuous; set it to Continuous (the cluster keeps provisioning as "
            f"capacity frees up), or give group {group.instanceGroup} one instanceType and no minInstanceCount.",
        )
        if group.trainingPlanArn:
            preflight.check_plan_at_create(
                f"{at}.instanceGroups.{index}.trainingPlanArn",
                group.trainingPlanArn,
                group.first_type,
                group.instanceCount,
                request.availabilityZone,
                ports.sagemaker.training_plan(group.trainingPlanArn),
            )


def check_quotas(request: CreateHyperPodInput, *, ports: HyperPodPorts) -> None:
    """The account's HyperPod cluster-usage quota (Service Quotas) covers every type asked for: 409 naming
    the quota and how much to raise it otherwise, before anything is created."""
    asked: dict[str, int] = {}
    for group in request.instanceGroups:
        if group.instanceType:
            asked[group.instanceType] = asked.get(group.instanceType, 0) + group.instanceCount
    flexible = [g for g in request.instanceGroups if g.instanceTypes and g.instanceCount > 0]
    names = {preflight.quota_name(t) for t, count in asked.items() if count > 0}
    names |= {preflight.quota_name(t) for g in flexible for t in g.types}
    quotas = ports.quotas.sagemaker_quotas(names) if names else {}
    if not quotas:
        return
    own = hyperpod.hyperpod_name(request.name)  # this cluster, if it exists, is what is asked
    clusters = ports.sagemaker.hyperpod_clusters()
    types = {*asked, *(t for g in flexible for t in g.types)}
    standing = preflight.standing(quotas, clusters, own, types)
    for instance_type, (quota, used) in standing.items():
        preflight.check_quota(instance_type, quota, used, asked.get(instance_type, 0))
    for group in flexible:

        def room(instance_type: str, count: int = group.instanceCount) -> None:
            quota, used = standing.get(instance_type, (None, 0))
            preflight.check_quota(instance_type, quota, used + asked.get(instance_type, 0), count)

        preflight.any_type_with_room(group.types, room)


def check_dependencies(name: str, *, read: KubeReader) -> None:
    """HyperPod's dependencies are on the EKS cluster: AWS requires them before CreateCluster ("This Helm
    installation step is required", developer guide, "Installing packages on the Amazon EKS cluster using
    Helm"). Without the health-monitoring agent no node fault is ever reported and deep health checks
    cannot run, so a cluster created without it looks healthy and is not resilient."""
    if read(name, dependency_objects.health_agent_ref()) is None:
        ns, agent = dependency_objects.HEALTH_AGENT
        raise Conflict(
            f"HyperPod's dependencies are not installed on {name} (no DaemonSet {ns}/{agent}); AWS requires them"
            " before the HyperPod cluster is created. Install the cluster's dependencies, wait until that operation"
            " succeeds, then try again (provisioning a cluster does both in order).",
            details=[next_step(f"POST /api/clusters/{name}/dependencies")],
        )


def check_hyperpod(request: CreateHyperPodInput, *, ports: HyperPodPorts) -> None:
    """The zone offers the instance types, and the EKS control plane is ACTIVE."""
    check_offered(request, [z["name"] for z in ports.ec2.zones()], ports=ports)
    check_quotas(request, ports=ports)
    eks = ports.eks.cluster(request.name)
    if eks is None or eks.status != "ACTIVE":
        state = eks.status if eks else "not created"
        raise Conflict(
            f"The EKS control plane of {request.name} is {state}; create it first and wait until that operation"
            " succeeds.",
            details=[next_step("POST /api/clusters")],
        )
    check_dependencies(request.name, read=ports.read)


def hyperpod_zone(cluster: HyperPodCluster | None, *, ports: HyperPodPorts) -> str | None:
    """The zone of the HyperPod cluster's compute subnet."""
    ids = list(cluster.subnets) if cluster is not None else []
    found = ports.ec2.subnets(ids) if ids else []
    return found[0].zone if found else None


# ---------------------------------------------------------------------------- create, provision, update


def _submit(workflow: ops.WorkflowPlan, who: ops.Principal, ports: HyperPodPorts) -> OperationView:
    return ops.submit(ports.operations, ports.workflows, workflow, who)[0]


def start_hyperpod(request: CreateHyperPodInput, who: ops.Principal, *, ports: HyperPodPorts) -> OperationView:
    """create-hyperpod whatever HyperPod's state: each of its phases skips what is already done."""
    check_hyperpod(request, ports=ports)
    return _submit(hyperpod.plan(request), who, ports)


def create_hyperpod(name: str, request: CreateHyperPodRequest, who: ops.Principal, *, ports: HyperPodPorts) -> Proposal:
    """The HyperPod cluster planned against SageMaker's real one (its zone read from its subnet)."""
    full = CreateHyperPodInput(name=name, **request.model_dump())
    check_hyperpod(full, ports=ports)
    existing = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name))
    found = plans.hyperpod_plan(name, request, existing, hyperpod_zone(existing, ports=ports))
    return Proposal(
        found,
        lambda: _submit(replace(hyperpod.plan(full), steps=found.views()), who, ports),
        noop=f"HyperPod cluster {name} is already InService as asked; no changes.",
    )


def provision_cluster(request: ProvisionClusterRequest, who: ops.Principal, *, ports: HyperPodPorts) -> Proposal:
    """Control plane, dependencies, HyperPod and (optionally) storage in one operation, each part planned
    against what exists; everything checkable is checked before anything is created."""
    check_region(request.cluster, ports=ports)
    zones = [z["name"] for z in ports.ec2.zones()]
    control_plane.check_zones(request, zones, ports.region)
    hyperpod_request = CreateHyperPodInput(name=request.cluster, **request.hyperpod.model_dump())
    check_offered(hyperpod_request, zones, "body.hyperpod", ports=ports)
    check_quotas(hyperpod_request, ports=ports)
    existing = ports.eks.cluster(request.cluster)
    if existing is not None and not owned_by_launchpod(existing, request.cluster, ports.prefix):
        raise Conflict(
            f"An EKS cluster named {request.cluster} already exists and Launchpod did not create it; "
            "import it into Launchpod or choose another name.",
            details=[next_step("POST /api/clusters/import")],
        )
    hp = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(request.cluster))
    volume, claim = (
        volume_and_claim(request.cluster, request.storage.storageName, read=ports.read)
        if request.storage is not None and existing is not None and existing.status == "ACTIVE"
        else (None, None)
    )
    zones_now = subnet_zones(existing, ec2=ports.ec2)
    active = existing is not None and existing.status == "ACTIVE"
    # Installed dependencies are read from the cluster; a cluster still to be made has none.
    rows = dependency_rows(request.cluster, ports, existing) if active else dependencies.status({}, {})
    deps = dependencies.reconcile_plan(request.cluster, rows, request.includeOptionalDependencies)
    found = plans.provision_plan(request, existing, zones_now, hp, hyperpod_zone(hp, ports=ports), volume, claim, deps)

    def start() -> OperationView:
        operation = _submit(replace(provision.plan(request), steps=found.views()), who, ports)
        ports.clusters.register(request.cluster, source="created", region=ports.region)
        return operation

    return Proposal(found, start, noop=f"Cluster {request.cluster} is already provisioned as asked; no changes.")


def update_software(request: UpdateSoftwareInput, who: ops.Principal, *, ports: HyperPodPorts) -> Proposal:
    """The AMI update of each instance group (UpdateClusterSoftware) on an InService cluster."""
    name = request.name
    existing = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name))
    if existing is None:
        raise hyperpod.no_hyperpod(name)
    if existing.status not in ("InService", "SystemUpdating"):
        raise Conflict(f"The HyperPod cluster {name} is {existing.status}; update it once it is InService.")
    groups = [g.name for g in existing.instance_groups]
    found = plans.software_plan(name, request, groups)
    return Proposal(found, lambda: _submit(replace(software.plan(request), steps=found.views()), who, ports))
