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
