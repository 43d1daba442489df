"""The provision-cluster workflow: control plane -> dependencies -> HyperPod (-> storage) as child
executions of one operation. HyperPod's lifecycle scripts and execution role do not need EKS, so they
are made while EKS is being created; dependencies and HyperPod's ~15 minutes of node start-up overlap
too, and storage, which needs the CSI drivers the dependencies install, follows them meanwhile."""

from __future__ import annotations

from launchpod.contracts.clusters import CreateClusterRequest, ProvisionClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.domain import dependencies, storage
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.operations import WorkflowPlan

KIND = "provision-cluster"
PHASES = control_plane.PHASES + dependencies.PHASES + hyperpod.PHASES
# Each child's part of the operation's request, by the child's kind; storage's only when asked for.
PARTS = {
    control_plane.KIND: "controlPlane",
    dependencies.KIND: "dependencies",
    hyperpod.KIND: "hyperpod",
    storage.KIND: "storage",
}


def phases(with_storage: bool) -> tuple[tuple[str, str], ...]:
    return PHASES + (storage.PHASES if with_storage else ())


def plan(request: ProvisionClusterRequest) -> WorkflowPlan:
    cluster = CreateClusterRequest.model_validate(
        request.model_dump(exclude={"hyperpod", "includeOptionalDependencies", "storage"})
    )
    parts = {
        "controlPlane": cluster.model_dump(mode="json"),
        "dependencies": ReconcileDependenciesInput(
            name=request.name, includeOptional=request.includeOptionalDependencies
        ).model_dump(mode="json"),
        "hyperpod": CreateHyperPodInput(name=request.name, **request.hyperpod.model_dump()).model_dump(mode="json"),
    }
    if request.storage is not None:
        # The same document configure-storage records when it runs alone (storage.plan).
        parts["storage"] = ConfigureStorageInput(
            name=request.name, **request.storage.model_dump(exclude_none=True)
        ).model_dump(mode="json", exclude_none=True)
    return WorkflowPlan(
        kind=KIND,
        target=request.name,
        request=parts,
        phases=phases(request.storage is not None),
        role=Role.ADMIN,
    )
