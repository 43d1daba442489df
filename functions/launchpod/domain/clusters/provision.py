"""The provision-cluster workflow: control plane -> dependencies -> HyperPod as child executions of
one operation. HyperPod's lifecycle scripts and execution role do not need EKS, so they are made
while EKS is being created; dependencies and HyperPod's ~15 minutes of node start-up overlap too."""

from __future__ import annotations

from launchpod.contracts.clusters import CreateClusterRequest, ProvisionClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.domain import dependencies
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.operations import WorkflowPlan

KIND = "provision-cluster"
PHASES = control_plane.PHASES + dependencies.PHASES + hyperpod.PHASES


def plan(request: ProvisionClusterRequest) -> WorkflowPlan:
    cluster = CreateClusterRequest.model_validate(
        request.model_dump(exclude={"hyperpod", "includeOptionalDependencies"})
    )
    return WorkflowPlan(
        kind=KIND,
        target=request.name,
        request={
            "controlPlane": cluster.model_dump(mode="json"),
            "dependencies": ReconcileDependenciesInput(
                name=request.name, includeOptional=request.includeOptionalDependencies
            ).model_dump(mode="json"),
            "hyperpod": CreateHyperPodInput(name=request.name, **request.hyperpod.model_dump()).model_dump(mode="json"),
        },
        phases=PHASES,
        role=Role.ADMIN,
    )
