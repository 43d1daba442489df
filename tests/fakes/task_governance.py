"""SageMaker HyperPod task governance in memory: the TaskGovernance port (adapters.aws.task_governance)."""

from __future__ import annotations

from typing import Any


class TaskGovernance:
    """SageMaker's cluster scheduler config and compute quotas of a cluster as dicts, with every write
    recorded in ``calls``."""

    def __init__(self) -> None:
        self.config: dict[str, Any] | None = None
        self.quota_list: list[dict[str, Any]] = []
        self.tag_map: dict[str, dict[str, str]] = {}
        self.calls: list[str] = []

    def scheduler_config(self, cluster_arn: str) -> dict[str, Any] | None:
        return self.config

    def create_scheduler_config(
        self, name: str, cluster_arn: str, config: dict[str, Any], tags: dict[str, str]
    ) -> None:
        self.calls.append("CreateClusterSchedulerConfig")
        self.config = {
            "ClusterSchedulerConfigId": "c" * 12,
            "ClusterSchedulerConfigVersion": 1,
            "SchedulerConfig": config,
        }

    def update_scheduler_config(self, config_id: str, version: int, config: dict[str, Any]) -> None:
        self.calls.append(f"UpdateClusterSchedulerConfig v{version}")
        assert self.config is not None
        self.config["SchedulerConfig"] = config

    def quotas(self, cluster_arn: str) -> list[dict[str, Any]]:
        return self.quota_list

    def create_quota(self, params: dict[str, Any], tags: dict[str, str]) -> None:
        self.calls.append("CreateComputeQuota")
        arn = f"arn:aws:sagemaker:us-east-1:123456789012:compute-quota/q{len(self.quota_list):011d}"
        self.tag_map[arn] = tags
        self.quota_list.append(
            {
                **params,
                "ComputeQuotaArn": arn,
                "ComputeQuotaId": arn[-12:],
                "ComputeQuotaVersion": 1,
                "Status": "Created",
            }
        )

    def update_quota(self, quota_id: str, version: int, params: dict[str, Any]) -> None:
        self.calls.append(f"UpdateComputeQuota v{version}")
        quota = next(q for q in self.quota_list if q["ComputeQuotaId"] == quota_id)
        quota.update(params, ComputeQuotaVersion=version + 1)

    def delete_quota(self, quota_id: str) -> None:
        self.calls.append("DeleteComputeQuota")
        self.quota_list = [q for q in self.quota_list if q["ComputeQuotaId"] != quota_id]

    def tags(self, arn: str) -> dict[str, str]:
        return self.tag_map.get(arn, {})
