"""SageMaker HyperPod task governance: the cluster scheduler config and the compute quotas of a cluster.

API reference: CreateClusterSchedulerConfig, DescribeClusterSchedulerConfig, ListClusterSchedulerConfigs,
UpdateClusterSchedulerConfig (TargetVersion: the version read, so a concurrent change is a ConflictException),
DeleteClusterSchedulerConfig, and the same five for ComputeQuota
(https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateComputeQuota.html). Lists are filtered
by ClusterArn; an entity being deleted (or Deleted) is not the cluster's any more.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import error_code, translate
from launchpod.adapters.aws.tags import tag_dict, tag_list
from launchpod.domain.errors import Conflict, InvalidInput

_GONE = {"Deleting", "Deleted", "DeleteFailed", "DeleteRollbackFailed"}


@contextmanager
def _call(action: str) -> Iterator[None]:
    try:
        yield
    except ClientError as exc:
        message = exc.response.get("Error", {}).get("Message") or error_code(exc)
        if error_code(exc) == "ConflictException":
            raise Conflict(f"{action} failed: {message}", aws_code="ConflictException") from exc
        if error_code(exc) == "ValidationException":
            raise InvalidInput(f"SageMaker refused it: {message}", field="body", rule="sagemaker_validation") from exc
        raise translate(exc, action) from exc
    except BotoCoreError as exc:
        raise translate(exc, action) from exc


def _clean(found: dict[str, Any]) -> dict[str, Any]:
    found.pop("ResponseMetadata", None)
    return dict(found)


class TaskGovernance:
    def __init__(self) -> None:
        self.sm = client("sagemaker")

    # ---- the scheduler config (one per cluster)

    def scheduler_config(self, cluster_arn: str) -> dict[str, Any] | None:
        with _call("sagemaker:ListClusterSchedulerConfigs"):
            pages = self.sm.get_paginator("list_cluster_scheduler_configs").paginate(ClusterArn=cluster_arn)
            summaries = [s for page in pages for s in page.get("ClusterSchedulerConfigSummaries", [])]
        live = [s for s in summaries if s.get("Status") not in _GONE]
        if not live:
            return None
        with _call("sagemaker:DescribeClusterSchedulerConfig"):
            return _clean(
                self.sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=live[0]["ClusterSchedulerConfigId"])
            )

    def create_scheduler_config(
        self, name: str, cluster_arn: str, config: dict[str, Any], tags: dict[str, str]
    ) -> None:
        with _call("sagemaker:CreateClusterSchedulerConfig"):
            self.sm.create_cluster_scheduler_config(
                Name=name, ClusterArn=cluster_arn, SchedulerConfig=config, Tags=tag_list(tags)
            )

    def update_scheduler_config(self, config_id: str, version: int, config: dict[str, Any]) -> None:
        with _call("sagemaker:UpdateClusterSchedulerConfig"):
            self.sm.update_cluster_scheduler_config(
                ClusterSchedulerConfigId=config_id, TargetVersion=version, SchedulerConfig=config
            )

    # ---- compute quotas (one per team)

    def quotas(self, cluster_arn: str) -> list[dict[str, Any]]:
        """DescribeComputeQuota of every live quota of the cluster."""
        with _call("sagemaker:ListComputeQuotas"):
            pages = self.sm.get_paginator("list_compute_quotas").paginate(ClusterArn=cluster_arn)
            summaries = [s for page in pages for s in page.get("ComputeQuotaSummaries", [])]
        out = []
        for summary in summaries:
            if summary.get("Status") in _GONE:
                continue
            with _call("sagemaker:DescribeComputeQuota"):
                out.append(_clean(self.sm.describe_compute_quota(ComputeQuotaId=summary["ComputeQuotaId"])))
        return out

    def create_quota(self, params: dict[str, Any], tags: dict[str, str]) -> None:
        with _call("sagemaker:CreateComputeQuota"):
            self.sm.create_compute_quota(**params, Tags=tag_list(tags))

    def update_quota(self, quota_id: str, version: int, params: dict[str, Any]) -> None:
        with _call("sagemaker:UpdateComputeQuota"):
            self.sm.update_compute_quota(ComputeQuotaId=quota_id, TargetVersion=version, **params)

    def delete_quota(self, quota_id: str) -> None:
        with _call("sagemaker:DeleteComputeQuota"):
            self.sm.delete_compute_quota(ComputeQuotaId=quota_id)

    def tags(self, arn: str) -> dict[str, str]:
        with _call("sagemaker:ListTags"):
            return tag_dict(self.sm.list_tags(ResourceArn=arn).get("Tags"))
