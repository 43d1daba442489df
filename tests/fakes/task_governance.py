"""SageMaker HyperPod task governance in memory: the TaskGovernance port (adapters.aws.task_governance).

Held to the adapter on the sandbox's SageMaker by tests/ports/test_task_governance.py."""

from __future__ import annotations

import copy
from typing import Any

from launchpod.domain.errors import Conflict


def queue_usage(flavor: str, resources: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """A Kueue ClusterQueue's ``status`` as Kueue reports what its admitted workloads hold of one ResourceFlavor:
    resource name -> (total, borrowed), in Kubernetes quantities (domain.team_resources.usage reads it)."""
    used = [{"name": name, "total": total, "borrowed": borrowed} for name, (total, borrowed) in resources.items()]
    return {"flavorsUsage": [{"name": flavor, "resources": used}]}


class TaskGovernance:
    """The cluster scheduler config and the compute quotas of a cluster as SageMaker describes them, with every
    write recorded in ``calls``. As SageMaker: one config per cluster and one quota per team (a second is a
    ConflictException), and an update names the version it read (an older one is a ConflictException)
    (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_UpdateComputeQuota.html)."""

    def __init__(self) -> None:
        self.config: dict[str, Any] | None = None
        self.quota_list: list[dict[str, Any]] = []
        self.tag_map: dict[str, dict[str, str]] = {}
        self.calls: list[str] = []

    @staticmethod
    def _stale(action: str, what: str, current: int, version: int) -> Conflict:
        return Conflict(
            f"sagemaker:{action} failed: {what} is at version {current}, not {version}.", aws_code="ConflictException"
        )

    def scheduler_config(self, cluster_arn: str) -> dict[str, Any] | None:
        return copy.deepcopy(self.config)

    def create_scheduler_config(
        self, name: str, cluster_arn: str, config: dict[str, Any], tags: dict[str, str]
    ) -> None:
        self.calls.append("CreateClusterSchedulerConfig")
        if self.config is not None:
            raise Conflict(
                "sagemaker:CreateClusterSchedulerConfig failed: the cluster already has a scheduler config.",
                aws_code="ConflictException",
            )
        self.config = {
            "ClusterSchedulerConfigId": "c" * 12,
            "ClusterSchedulerConfigVersion": 1,
            "Name": name,
            "ClusterArn": cluster_arn,
            "SchedulerConfig": copy.deepcopy(config),
            "Status": "Created",
        }

    def update_scheduler_config(self, config_id: str, version: int, config: dict[str, Any]) -> None:
        self.calls.append(f"UpdateClusterSchedulerConfig v{version}")
        assert self.config is not None and self.config["ClusterSchedulerConfigId"] == config_id
        current = int(self.config["ClusterSchedulerConfigVersion"])
        if version != current:
            raise self._stale("UpdateClusterSchedulerConfig", config_id, current, version)
        self.config.update(
            SchedulerConfig=copy.deepcopy(config), ClusterSchedulerConfigVersion=current + 1, Status="Updated"
        )

    def quotas(self, cluster_arn: str) -> list[dict[str, Any]]:
        return copy.deepcopy(self.quota_list)

    def create_quota(self, params: dict[str, Any], tags: dict[str, str]) -> None:
        self.calls.append("CreateComputeQuota")
        team = (params.get("ComputeQuotaTarget") or {}).get("TeamName")
        if any((q.get("ComputeQuotaTarget") or {}).get("TeamName") == team for q in self.quota_list):
            raise Conflict(
                f"sagemaker:CreateComputeQuota failed: team {team} already has a compute quota.",
                aws_code="ConflictException",
            )
        arn = f"arn:aws:sagemaker:us-east-1:123456789012:compute-quota/q{len(self.quota_list):011d}"
        self.tag_map[arn] = dict(tags)
        self.quota_list.append(
            {
                **copy.deepcopy(params),
                "ComputeQuotaArn": arn,
                "ComputeQuotaId": arn[-12:],
                "ComputeQuotaVersion": 1,
                "Status": "Created",
            }
        )

    def update_quota(self, quota_id: str, version: int, params: dict[str, Any]) -> None:
        self.calls.append(f"UpdateComputeQuota v{version}")
        quota = next(q for q in self.quota_list if q["ComputeQuotaId"] == quota_id)
        if version != quota["ComputeQuotaVersion"]:
            raise self._stale("UpdateComputeQuota", quota_id, quota["ComputeQuotaVersion"], version)
        quota.update(copy.deepcopy(params), ComputeQuotaVersion=version + 1)

    def delete_quota(self, quota_id: str) -> None:
        self.calls.append("DeleteComputeQuota")
        self.quota_list = [q for q in self.quota_list if q["ComputeQuotaId"] != quota_id]

    def tags(self, arn: str) -> dict[str, str]:
        return dict(self.tag_map.get(arn, {}))
