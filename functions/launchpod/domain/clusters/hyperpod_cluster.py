"""A HyperPod cluster as Launchpod reads it: its identity, state, network, provisioning and recovery modes,
autoscaling and tiered storage, and each instance group's state.

The HyperPod ports (adapters.aws.sagemaker) build it from DescribeCluster's answer, so the AWS shape stays in the
adapter (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribeCluster.html,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterInstanceGroupDetails.html)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class InstanceGroupState:
    """One entry of DescribeCluster's InstanceGroups (ClusterInstanceGroupDetails)."""

    name: str
    status: str | None = None  # InService, Creating, Updating, Failed, Degraded, SystemUpdating, Deleting
    instance_type: str | None = None  # None for a flexible group (instance_types)
    # InstanceRequirements of a flexible group: the types it runs now
    current_instance_types: tuple[str, ...] = ()
    current_count: int = 0
    target_count: int = 0
    # InstanceTypeDetails: the instances a flexible group runs, per type
    type_counts: dict[str, int] = field(default_factory=dict)
    training_plan_arn: str | None = None


@dataclass(frozen=True)
class AutoScaling:
    """DescribeCluster's AutoScaling: HyperPod-managed Karpenter."""

    mode: str | None = None  # Enable or Disable
    autoscaler_type: str | None = None  # Karpenter
    status: str | None = None  # Creating, InService, Failed, Deleting
    failure_message: str | None = None


@dataclass(frozen=True)
class HyperPodCluster:
    name: str
    arn: str
    status: str  # Creating, InService, Updating, SystemUpdating, RollingBack, Failed, Deleting
    failure_message: str | None = None
    node_recovery: str | None = None  # Automatic or None
    node_provisioning_mode: str | None = None  # Continuous, or absent
    subnets: tuple[str, ...] = ()  # VpcConfig.Subnets
    security_group_ids: tuple[str, ...] = ()  # VpcConfig.SecurityGroupIds
    eks_arn: str | None = None  # Orchestrator.Eks.ClusterArn
    autoscaling: AutoScaling | None = None
    cluster_role: str | None = None  # the role HyperPod assumes for autoscaling
    # TieredStorageConfig: Mode Enable or Disable, and the share of instance memory it takes
    tiered_storage_mode: str | None = None
    tiered_storage_memory_percentage: int | None = None
    instance_groups: tuple[InstanceGroupState, ...] = ()

    @property
    def continuous(self) -> bool:
        """Whether the cluster provisions continuously (NodeProvisioningMode Continuous)."""
        return self.node_provisioning_mode == "Continuous"

    def group(self, name: str) -> InstanceGroupState | None:
        return next((g for g in self.instance_groups if g.name == name), None)
