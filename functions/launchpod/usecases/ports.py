"""The ports the use cases read through: only the methods they call, so an in-memory fake satisfies them."""

from __future__ import annotations

import builtins
from typing import Any, Protocol

from launchpod.contracts.operations import OperationView
from launchpod.domain.clusters.cluster_record import ClusterRecord, Source
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.jobs.hardware import Accelerators
from launchpod.domain.metrics.series import RangeSeries
from launchpod.domain.metrics.workspaces import GrafanaWorkspace, PrometheusWorkspace
from launchpod.domain.mlflow import MetricPoint, MlflowRun, TrackingServer
from launchpod.domain.network import Subnet
from launchpod.domain.nodes.hyperpod_event import ClusterEventDetails, ClusterEventPage, EventFilter
from launchpod.domain.nodes.hyperpod_node import HyperPodNode, NodeDetails
from launchpod.domain.nodes.ladder import IncidentsDocument
from launchpod.domain.nodes.moves import MovedNodes, NodeMove
from launchpod.domain.notifications import Notification, Subscriber
from launchpod.domain.observability import ShippedLines
from launchpod.domain.operations import OperationStore
from launchpod.domain.preferences import CallerPreferences
from launchpod.domain.quotas import Quota
from launchpod.domain.storage import ObjectPage
from launchpod.domain.training_plans import (
    CapacitySearch,
    ExtensionOffering,
    TrainingPlan,
    TrainingPlanExtension,
    TrainingPlanOffering,
)

# ---- The registry, the operations and each caller's preferences (adapters.store)


class ClusterRecords(Protocol):
    """The cluster registry (adapters.store.clusters)."""

    def get(self, name: str) -> ClusterRecord | None: ...


class ClusterRegistry(ClusterRecords, Protocol):
    """The cluster registry, paged and written (adapters.store.clusters)."""

    def page(self, *, limit: int, cursor: str | None = None) -> tuple[list[ClusterRecord], str | None]: ...
    def register(self, name: str, *, source: Source, region: str) -> None: ...


class OperationLog(OperationStore, Protocol):
    """The operations table, written by submit and read by the routes (adapters.store.operations)."""

    def list(self, *, target: str | None, status: str | None, limit: int) -> builtins.list[OperationView]: ...
    def page(
        self, *, target: str | None, status: str | None, limit: int, cursor: str | None = None
    ) -> tuple[builtins.list[OperationView], str | None]: ...


class Preferences(Protocol):
    """Each caller's preferences (adapters.store.preferences)."""

    def get(self, subject: str) -> CallerPreferences: ...
    def set_active_cluster(self, subject: str, cluster: str | None) -> CallerPreferences: ...


# ---- EKS (adapters.aws.eks)


class ControlPlanes(Protocol):
    """EKS's clusters (adapters.aws.eks)."""

    def cluster(self, name: str) -> EksCluster | None: ...


class AddonReader(Protocol):
    """EKS's add-ons of a cluster by name (adapters.aws.eks)."""

    def addons(self, cluster: str) -> dict[str, EksAddon]: ...


class AddonCatalog(Protocol):
    """The add-on versions EKS offers per Kubernetes version, and its default (adapters.aws.eks)."""

    def addon_versions(self, name: str, kubernetes_version: str) -> tuple[list[str], str | None]: ...


class EksClusters(ControlPlanes, AddonReader, AddonCatalog, Protocol):
    """EKS's clusters and their add-ons (adapters.aws.eks)."""

    def cluster_names(self) -> set[str]: ...


# ---- EC2, Service Quotas and IAM (adapters.aws.ec2, instance_facts, service_quotas, iam)


class Subnets(Protocol):
    """EC2's subnets (adapters.aws.ec2)."""

    def subnets(self, subnet_ids: list[str] | None = None, vpc_id: str | None = None) -> list[Subnet]: ...


class Ec2Offerings(Subnets, Protocol):
    """EC2's zones, instance-type offerings and subnets (adapters.aws.ec2)."""

    def zones(self) -> list[dict[str, str]]: ...
    def offerings(self, instance_types: list[str], zone: str | None = None) -> dict[str, list[str]]: ...


class InstanceFacts(Protocol):
    """What each HyperPod instance type carries, from EC2 (adapters.aws.instance_facts)."""

    def all(self) -> dict[str, Accelerators]: ...
    def of(self, instance_type: str) -> Accelerators: ...


class Quotas(Protocol):
    """Service Quotas' SageMaker quotas by name (adapters.aws.service_quotas)."""

    def sagemaker_quota(self, name: str) -> Quota | None: ...
    def sagemaker_quotas(self, names: set[str]) -> dict[str, Quota]: ...


class OwnedRoles(Protocol):
    """IAM roles Launchpod created, by name and ownership tags (adapters.aws.iam)."""

    def owned_role(self, name: str, tags: dict[str, str]) -> str | None: ...


# ---- SageMaker HyperPod: clusters, nodes, events, training plans (adapters.aws.sagemaker)


class HyperPodReader(Protocol):
    """SageMaker's DescribeCluster of one HyperPod cluster (adapters.aws.sagemaker): None when it is absent."""

    def hyperpod_cluster(self, name: str) -> HyperPodCluster | None: ...


class HyperPodClusters(Protocol):
    """SageMaker's HyperPod clusters, each read from DescribeCluster (adapters.aws.sagemaker)."""

    def hyperpod_cluster(self, name: str) -> HyperPodCluster | None: ...


class HyperPodNodes(Protocol):
    """SageMaker's HyperPod cluster, its nodes and its events (adapters.aws.sagemaker)."""

    def hyperpod_cluster(self, name: str) -> HyperPodCluster | None: ...
    def list_nodes(self, name: str) -> list[HyperPodNode]: ...
    def describe_node(self, name: str, node_id: str) -> NodeDetails | None: ...
    def list_events(self, name: str, filters: EventFilter, limit: int, token: str | None) -> ClusterEventPage: ...
    def describe_event(self, name: str, event_id: str) -> ClusterEventDetails | None: ...


class HyperPodMoves(HyperPodNodes, Protocol):
    """HyperPodNodes and MoveClusterNodes (adapters.aws.sagemaker)."""

    def move_nodes(self, move: NodeMove) -> MovedNodes: ...


class HyperPods(Protocol):
    """SageMaker HyperPod's clusters and training plans (adapters.aws.sagemaker)."""

    def hyperpod_cluster(self, name: str) -> HyperPodCluster | None: ...
    def hyperpod_names(self) -> list[str]: ...
    def hyperpod_clusters(self) -> list[HyperPodCluster]: ...
    def training_plan(self, arn: str) -> TrainingPlan | None: ...


class TrainingPlans(Protocol):
    """SageMaker's training plans: offerings, purchase, plans, extensions (adapters.aws.sagemaker)."""

    def search_training_plan_offerings(self, search: CapacitySearch) -> list[TrainingPlanOffering]: ...
    def create_training_plan(self, name: str, offering_id: str) -> str | None: ...
    def training_plan(self, arn: str) -> TrainingPlan | None: ...
    def training_plans(self, status: str | None = None) -> list[TrainingPlan]: ...
    def training_plan_extension_offerings(self, arn: str) -> list[ExtensionOffering]: ...
    def extend_training_plan(self, offering_id: str) -> list[TrainingPlanExtension]: ...
    def training_plan_extensions(self, arn: str) -> list[TrainingPlanExtension]: ...
    def hyperpod_clusters(self) -> list[HyperPodCluster]: ...


# ---- A cluster's Kubernetes API (adapters.k8s)


class KubeReader(Protocol):
    """A read of one Kubernetes object of a cluster (adapters.k8s.apply.read): None when it is absent."""

    def __call__(self, cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None: ...


class KubeLister(Protocol):
    """Every object of one kind (Node, Pod, Event) of a cluster's Kubernetes API (adapters.k8s.listing.items)."""

    def __call__(self, cluster: str, kind: str) -> list[dict[str, Any]]: ...


class KubeObjects(Protocol):
    """A cluster's Kubernetes objects: read, server-side apply, delete, a raw GET (adapters.k8s.apply)."""

    def read(self, cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None: ...
    def ready(self, found: dict[str, Any] | None) -> bool: ...
    def apply(self, cluster: str, obj: dict[str, Any]) -> None: ...
    def delete(self, cluster: str, obj: dict[str, Any]) -> bool: ...
    def get(self, cluster: str, path: str) -> Any: ...


class KubeDeleter(Protocol):
    """A delete of one Kubernetes object of a cluster (adapters.k8s.apply.delete): False when it was absent."""

    def __call__(self, cluster: str, obj: dict[str, Any]) -> bool: ...


class KubeLabelled(Protocol):
    """The objects of a kind carrying a label selector (adapters.k8s.apply.list_labelled)."""

    def __call__(self, cluster: str, api_version: str, kind: str, selector: str) -> list[dict[str, Any]]: ...


# ---- SageMaker managed MLflow (adapters.aws.mlflow)


class TrackingServers(Protocol):
    """SageMaker managed MLflow (adapters.aws.mlflow)."""

    def describe(self, name: str) -> TrackingServer | None: ...


class MlflowUi(TrackingServers, Protocol):
    """SageMaker managed MLflow's servers and presigned URLs to their UI (adapters.aws.mlflow)."""

    def presigned_url(self, name: str, expires: int = 300) -> str: ...


class MlflowRuns(Protocol):
    """The runs on a SageMaker managed MLflow tracking server, through its MLflow REST API (adapters.aws.mlflow)."""

    def latest_run(self, arn: str, experiment: str) -> MlflowRun | None: ...

    def metric_history(self, arn: str, run_id: str, key: str) -> list[MetricPoint]: ...


# ---- Logs and storage (adapters.aws.logs, s3)


class ShippedLogs(Protocol):
    """CloudWatch Logs' container lines (adapters.aws.logs)."""

    def container_lines(
        self, group: str, pattern: str, tail: int, start_ms: int | None = None
    ) -> ShippedLines | None: ...


class ObjectPages(Protocol):
    """One page of an S3 prefix's objects and folders (adapters.aws.s3.list_page)."""

    def __call__(self, bucket: str, prefix: str, token: str | None) -> ObjectPage: ...


# ---- Incidents and notifications (adapters.store, adapters.aws.sns)


class IncidentDocs(Protocol):
    """A cluster's incidents and ladder policy, one versioned document (adapters.store.incidents)."""

    def get(self, cluster: str) -> tuple[IncidentsDocument, int]: ...
    def put(self, cluster: str, doc: IncidentsDocument, version: int) -> bool: ...


class NotificationTopic(Protocol):
    """The deployment's SNS topic (adapters.aws.sns)."""

    def publish(self, notification: Notification) -> str: ...
    def subscribe_email(self, address: str, filter_policy: dict[str, list[str]]) -> str: ...
    def set_filter(self, subscription_arn: str, filter_policy: dict[str, list[str]]) -> None: ...
    def pending(self, subscription_arn: str) -> bool | None: ...
    def unsubscribe(self, subscription_arn: str) -> None: ...


class NotificationDocs(Protocol):
    """Subscribers per cluster and the keys of notifications sent (adapters.store.notifications)."""

    def subscribers(self, cluster: str) -> tuple[list[Subscriber], int]: ...
    def put_subscribers(self, cluster: str, subscribers: list[Subscriber], version: int) -> bool: ...
    def claim(self, key: str) -> bool: ...
    def release(self, key: str) -> None: ...


# ---- Observability: Prometheus and Grafana (adapters.aws.amp, grafana)


class PrometheusWorkspaces(Protocol):
    """Amazon Managed Prometheus workspaces (adapters.aws.amp.AmpWorkspaces): the one Launchpod made, found by
    its alias and ownership tags, and new ones."""

    def owned(self, alias: str, tags: dict[str, str]) -> PrometheusWorkspace | None: ...

    def create(self, alias: str, tags: dict[str, str]) -> PrometheusWorkspace: ...


class GrafanaWorkspaces(Protocol):
    """Amazon Managed Grafana workspaces (adapters.aws.grafana): the one Launchpod made, found by its name and
    ownership tags, new ones (CREATING, then ACTIVE), and their deletion."""

    def owned(self, name: str, tags: dict[str, str]) -> GrafanaWorkspace | None: ...

    def create(self, name: str, role_arn: str, authentication: str, tags: dict[str, str]) -> GrafanaWorkspace: ...

    def describe(self, workspace_id: str) -> GrafanaWorkspace | None: ...

    def delete(self, workspace_id: str) -> None: ...


class PrometheusQueries(Protocol):
    """A Prometheus-compatible query API: an Amazon Managed Prometheus workspace's (adapters.aws.amp)."""

    def query_range(self, endpoint: str, query: str, start: float, end: float, step: float) -> list[RangeSeries]: ...
