"""The HyperPod cluster's checks before anything is created (zone, offered types, quotas, an ACTIVE
control plane, its dependencies) and its submit, shared by the hyperpod, provision and phase routes.
A plain move from the hyperpod router: it reads its adapters through wiring."""

from __future__ import annotations

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.contracts.operations import OperationView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.instance_types import to_ec2, to_sagemaker
from launchpod.domain.dependencies import objects as dependency_objects
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.instance_groups import preflight
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def check_offered(request: CreateHyperPodInput, zones: list[str], at: str = "body") -> None:
    """The zone exists and offers every instance type asked for (422 naming the field otherwise)."""
    if request.availabilityZone not in zones:
        raise InvalidInput(
            f"{request.availabilityZone} is not an availability zone in {settings().region}; "
            f"choose from {', '.join(zones)}.",
            field=f"{at}.availabilityZone",
            rule="offered_zone",
        )
    types = sorted({g.instanceType for g in request.instanceGroups})
    offered = {to_sagemaker(k): v for k, v in wiring.ec2().offerings([to_ec2(t) for t in types]).items()}
    hyperpod.check_instance_types(request, {t: offered.get(t, []) for t in types}, at)


def check_quotas(request: CreateHyperPodInput) -> None:
    """The account's HyperPod cluster-usage quota (Service Quotas) covers every type asked for: 409 naming
    the quota and how much to raise it otherwise, before anything is created."""
    asked: dict[str, int] = {}
    for group in request.instanceGroups:
        asked[group.instanceType] = asked.get(group.instanceType, 0) + group.instanceCount
    names = {preflight.quota_name(t) for t, count in asked.items() if count > 0}
    quotas = wiring.service_quotas().sagemaker_quotas(names) if names else {}
    if not quotas:
        return
    own = hyperpod.hyperpod_name(request.name)  # this cluster, if it exists, is what is asked
    clusters = wiring.sagemaker().hyperpod_clusters()
    for instance_type, (quota, used) in preflight.standing(quotas, clusters, own, asked).items():
        preflight.check_quota(instance_type, quota, used, asked[instance_type])


def check_hyperpod(request: CreateHyperPodInput) -> None:
    """The zone offers the instance types, and the EKS control plane is ACTIVE."""
    check_offered(request, [z["name"] for z in wiring.ec2().zones()])
    check_quotas(request)
    eks = wiring.eks().cluster(request.name)
    if eks is None or eks.get("status") != "ACTIVE":
        state = eks.get("status") if eks else "not created"
        raise Conflict(
            f"The EKS control plane of {request.name} is {state}; create it with POST /api/clusters and wait for"
            " SUCCEEDED."
        )
    check_dependencies(request.name)


def check_dependencies(name: str) -> None:
    """HyperPod's dependencies are on the EKS cluster: AWS requires them before CreateCluster ("This Helm
    installation step is required", developer guide, "Installing packages on the Amazon EKS cluster using
    Helm"). Without the health-monitoring agent no node fault is ever reported and deep health checks
    cannot run, so a cluster created without it looks healthy and is not resilient."""
    if k8s.read(name, dependency_objects.health_agent_ref()) is None:
        ns, agent = dependency_objects.HEALTH_AGENT
        raise Conflict(
            f"HyperPod's dependencies are not installed on {name} (no DaemonSet {ns}/{agent}); AWS requires them"
            f" before the HyperPod cluster is created. Run POST /api/clusters/{name}/dependencies and wait for"
            " SUCCEEDED, then retry; POST /api/clusters/provision does both in order."
        )


def submit_hyperpod(request: CreateHyperPodInput, who: ops.Principal) -> OperationView:
    operation, _ = ops.submit(wiring.operations(), wiring.workflows(), hyperpod.plan(request), who)
    return operation


def start_hyperpod(request: CreateHyperPodInput, who: ops.Principal) -> OperationView:
    """create-hyperpod whatever HyperPod's state: each of its phases skips what is already done."""
    check_hyperpod(request)
    return submit_hyperpod(request, who)
