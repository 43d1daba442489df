"""SageMaker HyperPod: reading clusters (creating them arrives with the cluster-lifecycle workflows)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code


class SageMaker:
    def __init__(self) -> None:
        self.sm = client("sagemaker")

    def hyperpod_cluster(self, name: str) -> dict[str, Any] | None:
        with aws_call("sagemaker:DescribeCluster"):
            try:
                return dict(self.sm.describe_cluster(ClusterName=name))
            except ClientError as exc:
                # SageMaker answers ValidationException for a cluster that does not exist.
                if error_code(exc) in ("ResourceNotFound", "ValidationException"):
                    return None
                raise

    def create_cluster(
        self,
        *,
        name: str,
        eks_arn: str,
        instance_groups: list[dict[str, Any]],
        subnet_ids: list[str],
        security_group_ids: list[str],
        node_recovery: str,
        tags: dict[str, str],
    ) -> str:
        with aws_call("sagemaker:CreateCluster"):
            return str(
                self.sm.create_cluster(
                    ClusterName=name,
                    InstanceGroups=instance_groups,
                    VpcConfig={"SecurityGroupIds": security_group_ids, "Subnets": subnet_ids},
                    Orchestrator={"Eks": {"ClusterArn": eks_arn}},
                    NodeRecovery=node_recovery,
                    Tags=[{"Key": k, "Value": v} for k, v in sorted(tags.items())],
                )["ClusterArn"]
            )

    def delete_cluster(self, name: str) -> None:
        with aws_call("sagemaker:DeleteCluster"):
            self.sm.delete_cluster(ClusterName=name)

    def tags(self, arn: str) -> dict[str, str]:
        with aws_call("sagemaker:ListTags"):
            return {t["Key"]: t["Value"] for t in self.sm.list_tags(ResourceArn=arn).get("Tags", [])}

    def update_software(self, params: dict[str, Any]) -> None:
        with aws_call("sagemaker:UpdateClusterSoftware"):
            self.sm.update_cluster_software(**params)
