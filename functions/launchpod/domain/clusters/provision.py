"""The provision-cluster workflow, in the order AWS needs: control plane (EKS and its DaemonSet core
add-ons) -> dependencies (HyperPod's health agent and device plugins must be on the cluster before its
nodes join) -> HyperPod (CreateCluster; its nodes join) with storage alongside -> the Deployment add-ons
(coredns, cert-manager, metrics-server, CSI controllers) awaited to ACTIVE, now that nodes can run them.
Each of the first four is a child execution of one operation. HyperPod's lifecycle scripts, execution
role, subnet and security group do not need EKS, so they are made while EKS is being created."""

from __future__ import annotations

from launchpod.contracts.clusters import CreateClusterRequest, ProvisionClusterRequest
from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.domain import dependencies, storage
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.operations import WorkflowPlan, role_for

KIND = "provision-cluster"
# The last phase, after HyperPod's nodes joined: every add-on ACTIVE (DEGRADED before, for want of nodes).
AWAIT_ADDONS: tuple[tuple[str, str], ...] = (
    ("AwaitAddons", "Deployment add-ons (coredns, cert-manager, metrics-server, CSI controllers) ACTIVE on the nodes"),
)
PHASES = control_plane.PHASES + dependencies.PHASES + hyperpod.PHASES + AWAIT_ADDONS
# A Deployment add-on has a few replicas to schedule and start once nodes are Ready: minutes, not more.
ADDON_POLL_SECONDS = 15
MAX_ADDON_POLLS = 20 * 60 // ADDON_POLL_SECONDS
# Each child's part of the operation's request, by the child's kind; storage's only when asked for.
PARTS = {
    control_plane.KIND: "controlPlane",
    dependencies.KIND: "dependencies",
    hyperpod.KIND: "hyperpod",
    storage.KIND: "storage",
}


def phases(with_storage: bool, include_optional: bool = False) -> tuple[tuple[str, str], ...]:
    """The phases in the order they end: storage's (when asked for) before the add-ons are awaited; the
    dependencies' and the wait's titles name exactly what is installed and awaited."""
    awaited = ", ".join(dependencies.title(a) for a in awaited_addons(include_optional))
    found = (
        control_plane.PHASES
        + dependencies.phases(include_optional)
        + hyperpod.PHASES
        + (storage.PHASES if with_storage else ())
        + (("AwaitAddons", f"Deployment add-ons ACTIVE on the nodes: {awaited}"),)
    )
    return found


def awaited_addons(include_optional: bool) -> tuple[str, ...]:
    """The add-ons AwaitAddons waits for: coredns and the manifest's add-ons (all run Deployments)."""
    return control_plane.NODE_ADDONS + tuple(a.name for a in dependencies.wanted_addons(include_optional))


def plan(request: ProvisionClusterRequest) -> WorkflowPlan:
    cluster = CreateClusterRequest.model_validate(
        request.model_dump(exclude={"hyperpod", "includeOptionalDependencies", "storage"})
    )
    parts = {
        "controlPlane": cluster.model_dump(mode="json"),
        "dependencies": ReconcileDependenciesInput(
            name=request.cluster, includeOptional=request.includeOptionalDependencies
        ).model_dump(mode="json"),
        "hyperpod": CreateHyperPodInput(name=request.cluster, **request.hyperpod.model_dump()).model_dump(mode="json"),
    }
    if request.storage is not None:
        # The same document configure-storage records when it runs alone (storage.plan).
        parts["storage"] = ConfigureStorageInput(
            name=request.cluster, **request.storage.model_dump(exclude_none=True)
        ).model_dump(mode="json", exclude_none=True)
    return WorkflowPlan(
        kind=KIND,
        target=request.cluster,
        request=parts,
        phases=phases(request.storage is not None, request.includeOptionalDependencies),
        role=role_for(KIND),
    )
