"""The ports the use cases read through: only the methods they call, so an in-memory fake satisfies them."""

from __future__ import annotations

from typing import Any, Protocol


class ClusterRecords(Protocol):
    """The cluster registry (adapters.store.clusters)."""

    def get(self, name: str) -> dict[str, Any] | None: ...


class ControlPlanes(Protocol):
    """EKS's clusters (adapters.aws.eks)."""

    def cluster(self, name: str) -> dict[str, Any] | None: ...


class TrackingServers(Protocol):
    """SageMaker managed MLflow (adapters.aws.mlflow)."""

    def describe(self, name: str) -> dict[str, Any] | None: ...


class Subnets(Protocol):
    """EC2's subnets (adapters.aws.ec2)."""

    def subnets(self, subnet_ids: list[str] | None = None, vpc_id: str | None = None) -> list[dict[str, Any]]: ...


class KubeReader(Protocol):
    """A read of one Kubernetes object of a cluster (adapters.k8s.apply.read): None when it is absent."""

    def __call__(self, cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None: ...


class ShippedLogs(Protocol):
    """CloudWatch Logs' container lines (adapters.aws.logs)."""

    def container_lines(self, group: str, pattern: str, tail: int, start_ms: int | None = None) -> Any: ...


class AddonReader(Protocol):
    """EKS's add-ons of a cluster by name (adapters.aws.eks)."""

    def addons(self, cluster: str) -> dict[str, dict[str, Any]]: ...


class HyperPodNodes(Protocol):
    """SageMaker's HyperPod cluster, its nodes and its events (adapters.aws.sagemaker)."""

    def hyperpod_cluster(self, name: str) -> dict[str, Any] | None: ...
    def list_nodes(self, name: str) -> list[dict[str, Any]]: ...
    def describe_node(self, name: str, node_id: str) -> dict[str, Any] | None: ...
    def list_events(self, name: str, filters: dict[str, Any], limit: int, token: str | None) -> dict[str, Any]: ...
    def describe_event(self, name: str, event_id: str) -> dict[str, Any] | None: ...


class KubeLister(Protocol):
    """Every object of one kind (Node, Pod, Event) of a cluster's Kubernetes API (adapters.k8s.listing.items)."""

    def __call__(self, cluster: str, kind: str) -> list[dict[str, Any]]: ...


class IncidentDocs(Protocol):
    """A cluster's incidents and ladder policy, one versioned document (adapters.store.incidents)."""

    def get(self, cluster: str) -> tuple[dict[str, Any], int]: ...
    def put(self, cluster: str, doc: dict[str, Any], version: int) -> bool: ...


class HyperPodClusters(Protocol):
    """SageMaker's HyperPod clusters, as DescribeCluster answers them (adapters.aws.sagemaker)."""

    def hyperpod_cluster(self, name: str) -> dict[str, Any] | None: ...


class KubeObjects(Protocol):
    """A cluster's Kubernetes objects: read, server-side apply, delete, a raw GET (adapters.k8s.apply)."""

    def read(self, cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None: ...
    def ready(self, found: dict[str, Any] | None) -> bool: ...
    def apply(self, cluster: str, obj: dict[str, Any]) -> None: ...
    def delete(self, cluster: str, obj: dict[str, Any]) -> bool: ...
    def get(self, cluster: str, path: str) -> Any: ...


class MlflowUi(TrackingServers, Protocol):
    """SageMaker managed MLflow's servers and presigned URLs to their UI (adapters.aws.mlflow)."""

    def presigned_url(self, name: str, expires: int = 300) -> str: ...


class MlflowRuns(Protocol):
    """The runs on a SageMaker managed MLflow tracking server, through its MLflow REST API (adapters.aws.mlflow)."""

    def latest_run(self, arn: str, experiment: str) -> dict[str, Any] | None: ...


class HyperPodReader(Protocol):
    """SageMaker's DescribeCluster of one HyperPod cluster (adapters.aws.sagemaker): None when it is absent."""

    def hyperpod_cluster(self, name: str) -> dict[str, Any] | None: ...
