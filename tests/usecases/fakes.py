"""In-memory ports for the use cases: what each would read from AWS, Kubernetes or the store, and what
was asked of it."""

from __future__ import annotations

from typing import Any

from launchpod.domain.errors import LaunchpodError


class Records:
    """The cluster registry: records by cluster name."""

    def __init__(self, records: dict[str, dict[str, Any]]) -> None:
        self.records = records

    def get(self, name: str) -> dict[str, Any] | None:
        return self.records.get(name)


class Servers:
    """SageMaker managed MLflow: tracking servers by name, and which names were described."""

    def __init__(self, servers: dict[str, dict[str, Any]]) -> None:
        self.servers, self.asked = servers, list[str]()

    def describe(self, name: str) -> dict[str, Any] | None:
        self.asked.append(name)
        return self.servers.get(name)


class Subnets:
    """EC2's subnets by id, and which ids were asked for."""

    def __init__(self, zones: dict[str, str]) -> None:
        self.zones, self.asked = zones, list[list[str]]()

    def subnets(self, subnet_ids: list[str] | None = None, vpc_id: str | None = None) -> list[dict[str, Any]]:
        self.asked.append(list(subnet_ids or []))
        return [{"SubnetId": s, "AvailabilityZone": self.zones[s]} for s in subnet_ids or [] if s in self.zones]


class ControlPlanes:
    """EKS: clusters by name, as DescribeCluster answers them."""

    def __init__(self, clusters: dict[str, dict[str, Any]]) -> None:
        self.clusters = clusters

    def cluster(self, name: str) -> dict[str, Any] | None:
        return self.clusters.get(name)


class Kube:
    """A cluster's Kubernetes objects by kind; ``error`` is raised on every read (the API or kind is missing)."""

    def __init__(self, objects: dict[str, dict[str, Any]], error: LaunchpodError | None = None) -> None:
        self.objects, self.error, self.reads = objects, error, list[str]()

    def __call__(self, cluster: str, obj: dict[str, Any]) -> dict[str, Any] | None:
        self.reads.append(obj["kind"])
        if self.error is not None:
            raise self.error
        return self.objects.get(obj["kind"])
