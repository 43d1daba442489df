"""A HyperPod cluster as Launchpod reads it: its identity, state, network, provisioning and recovery modes,
autoscaling and tiered storage, and each instance group's state.

The HyperPod ports (adapters.aws.sagemaker) build it from DescribeCluster's answer, so the AWS shape stays in the
adapter (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribeCluster.html,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterInstanceGroupDetails.html)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class NodeTaint:
    """A Kubernetes taint HyperPod puts on a group's nodes (ClusterKubernetesTaint)."""

    key: str
    effect: str  # NoSchedule, PreferNoSchedule, NoExecute
    value: str | None = None


@dataclass(frozen=True)
class AutoPatchState:
    """A group's automatic patching (ClusterAutoPatchConfigDetails)."""

    strategy: str | None = None  # PatchingStrategy: DrainFirst, ...
    idle_wait_seconds: int | None = None
    drain: bool = False  # a DrainPolicy is set (AWS's defaults fill what it leaves out)
    drain_timeout_seconds: int | None = None
    on_drain_timeout: str | None = None
    batch_size_type: str | None = None  # DeploymentConfig.RollingUpdatePolicy.MaximumBatchSize
    batch_size_value: int | None = None
    next_patch_date: datetime | str | None = None  # CurrentPatchSchedule: when HyperPod patches next
    requested_patch_date: datetime | str | None = None  # DesiredPatchSchedule: a reschedule asked for


@dataclass(frozen=True)
class InstanceGroupState:
    """One entry of DescribeCluster's InstanceGroups (ClusterInstanceGroupDetails). Where DescribeCluster reports
    a current and a desired value (labels, taints, image), the plain name is the desired one."""

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
    training_plan_status: str | None = None
    desired_instance_types: tuple[str, ...] = ()  # InstanceRequirements of a flexible group: the types asked
    min_count: int | None = None  # the count HyperPod calls the group InService from
    spot: bool = False  # CapacityRequirements Spot (else on-demand, or the training plan's)
    interface_type: str | None = None  # NetworkInterface: efa-only, or None
    override_subnets: tuple[str, ...] = ()  # OverrideVpcConfig.Subnets: the group's own subnets
    labels: dict[str, str] = field(default_factory=dict)  # KubernetesConfig.DesiredLabels
    current_labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[NodeTaint, ...] = ()  # KubernetesConfig.DesiredTaints
    current_taints: tuple[NodeTaint, ...] = ()
    deep_health_checks: tuple[str, ...] = ()  # OnStartDeepHealthChecks
    scheduled_update: str | None = None  # ScheduledUpdateConfig.ScheduleExpression
    auto_patch: AutoPatchState | None = None
    desired_image_id: str | None = None
    desired_image_release_version: str | None = None
    current_image_id: str | None = None
    current_image_release_version: str | None = None
    image_version_status: str | None = None
    threads_per_core: int | None = None
    ebs_volume_gb: int | None = None  # InstanceStorageConfigs' EbsVolumeConfig
    execution_role: str | None = None
    scaling: bool = False  # ActiveOperations has a Scaling operation in flight
    # The ClusterInstanceGroupSpecification that keeps the group exactly as it is: UpdateCluster resets whatever a
    # group's entry leaves out, so each group a change does not touch is sent back as this (built by the adapter
    # from every member DescribeCluster reports; domain.instance_groups.specs).
    spec: dict[str, Any] = field(default_factory=dict, repr=False)


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
