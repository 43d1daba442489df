"""A cluster's managed features: their real state read from EKS, SageMaker, IAM and the cluster's API
server, and toggles planned against it (NOOP, dry run, or the update-features operation). Every use case
takes its ports; ``real()`` builds the deployed ones and unit tests pass in-memory fakes."""

from __future__ import annotations

from dataclasses import dataclass

from launchpod.contracts.features import FeatureListView, UpdateFeaturesInput, UpdateFeaturesRequest
from launchpod.domain import features, hyperpod_observability
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.errors import LaunchpodError
from launchpod.domain.metrics.workspaces import GrafanaWorkspace
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.ports import EksClusters, GrafanaWorkspaces, HyperPods, KubeReader, OwnedRoles
from launchpod.usecases.proposal import Proposal
from launchpod.usecases.provisioning import require_active


@dataclass(frozen=True)
class FeaturePorts:
    prefix: str
    bucket: str
    operations: ops.OperationStore
    workflows: ops.WorkflowRunner
    eks: EksClusters
    sagemaker: HyperPods
    iam: OwnedRoles
    read: KubeReader
    grafana: GrafanaWorkspaces | None = None


def real() -> FeaturePorts:
    """The deployed adapters (runtime.wiring and the Kubernetes reader)."""
    return FeaturePorts(
        prefix=settings().resource_prefix,
        bucket=settings().bucket,
        operations=wiring.operations(),
        workflows=wiring.workflows(),
        eks=wiring.eks(),
        sagemaker=wiring.sagemaker(),
        iam=wiring.iam(),
        read=wiring.kube().read,
        grafana=wiring.grafana_workspaces(),
    )


def real_state(name: str, *, ports: FeaturePorts) -> features.RealState:
    """Everything the features depend on, read from EKS, SageMaker, IAM and the cluster's API server."""
    require_active(name, "managed features need", eks_clusters=ports.eks)
    role = ports.iam.owned_role(
        features.checkpoint_role_name(ports.prefix, name), control_plane.tags(name, ports.prefix)
    )
    addons = ports.eks.addons(name)
    return features.RealState(
        cluster=name,
        addons=addons,
        hyperpod=ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name)),
        checkpoint_account=ports.read(name, features.service_account(name, None)),
        checkpoint_role=role,
        prefix=ports.prefix,
        bucket=ports.bucket,
        grafana=_grafana(name, addons, ports),
    )


def _grafana(name: str, addons: dict[str, EksAddon], ports: FeaturePorts) -> GrafanaWorkspace | None:
    """The Grafana workspace Launchpod made for the cluster's dashboards: looked for only while the HyperPod
    observability add-on is there (Launchpod makes one only with it). Grafana not answering (a Region without
    it) leaves the features readable: the view then shows none."""
    if ports.grafana is None or hyperpod_observability.entry().addon not in addons:
        return None
    try:
        return ports.grafana.owned(
            hyperpod_observability.grafana_name(ports.prefix, name), control_plane.tags(name, ports.prefix)
        )
    except LaunchpodError:
        return None


def list_features(name: str, *, ports: FeaturePorts) -> FeatureListView:
    return FeatureListView(cluster=name, items=features.views(real_state(name, ports=ports)))


def update_features(name: str, body: UpdateFeaturesRequest, who: ops.Principal, *, ports: FeaturePorts) -> Proposal:
    """Only the features the body names, planned against their real state."""
    request = UpdateFeaturesInput(name=name, **body.model_dump(exclude_unset=True, exclude_none=True))
    plan = features.plan(request, real_state(name, ports=ports))
    return Proposal(
        plan,
        lambda: ops.submit(ports.operations, ports.workflows, features.workflow(request, plan), who)[0],
        noop=f"The features of {name} already match the request; no changes.",
    )
