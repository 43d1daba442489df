"""A HyperPod node as Launchpod reads it: its instance, group, type, status and launch time, and what
DescribeClusterNode adds for one node.

The HyperPodNodes port (adapters.aws.sagemaker) builds them from ListClusterNodes' ClusterNodeSummary and
DescribeClusterNode's NodeDetails, so the AWS shape stays in the adapter
(https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterNodeSummary.html,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterNodeDetails.html)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class HyperPodNode:
    node_id: str  # the EC2 instance id
    group: str  # the instance group's name
    instance_type: str
    status: str | None  # InstanceStatus.Status: Running, Failure, Pending, ShuttingDown, SystemUpdating, ...
    message: str = ""  # InstanceStatus.Message: why, when HyperPod says
    launch_time: datetime | None = None


@dataclass(frozen=True)
class NodeDetails(HyperPodNode):
    zone: str | None = None  # Placement.AvailabilityZone
    capacity_type: str | None = None  # Spot or OnDemand, when AWS says
    private_ip: str | None = None
    private_dns: str | None = None
    last_software_update: datetime | None = None
    image_release_version: str | None = None
    # NodeDetails as AWS sent it: the node's detail view shows it whole (contracts.nodes NodeDetailView.hyperpod).
    described: dict[str, Any] = field(default_factory=dict)
