"""HyperPod nodes over REST: each node joined with its Kubernetes Node, the cluster's events, and
the node actions (reboot, replace, delete, deep health checks, moves) that run as operations."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, model_validator

from launchpod.contracts.common import ABSENT, ClusterName, Contract, case, one_of, rules
from launchpod.contracts.hyperpod import InstanceGroupName

# HyperPod node ids are EC2 instance ids (botocore's ClusterNodeId pattern: i-[a-f0-9]{8}(?:[a-f0-9]{9})?).
NodeId = Annotated[str, Field(pattern=r"^i-[a-f0-9]{8}(?:[a-f0-9]{9})?$", examples=["i-0123456789abcdef0"])]
MAX_NODES_PER_REQUEST = 200  # the operation batches them: at most 25 per AWS call (99 for delete)


class PodOnNode(Contract):
    namespace: str
    name: str
    phase: str | None = None
    gpus: int = 0


class NodeCondition(Contract):
    type: str
    status: str
    reason: str | None = None
    message: str | None = None
    lastTransitionTime: str | None = None


class NodeTaint(Contract):
    key: str
    value: str | None = None
    effect: str


class NodeView(Contract):
    """One HyperPod node: what SageMaker says of the instance and what Kubernetes says of its Node."""

    nodeId: str = Field(description="the EC2 instance id HyperPod names the node by")
    instanceGroup: str
    instanceType: str
    availabilityZone: str | None = None
    capacityType: str | None = Field(default=None, description="OnDemand or Spot")
    instanceStatus: str = Field(description="Running, Pending, Failure, DeepHealthCheckInProgress, ...")
    instanceMessage: str | None = None
    launchTime: datetime | None = None
    kubernetesNode: str | None = Field(default=None, description="the Node's name; None until it has joined")
    ready: bool | None = Field(default=None, description="the Node's Ready condition; None until it has joined")
    healthStatus: str | None = Field(
        default=None, description="the health agent's sagemaker.amazonaws.com/node-health-status label"
    )
    deepHealthCheckStatus: str | None = None
    faultTypes: list[str] = Field(default_factory=list, description="the health agent's fault-type labels")
    healthLabels: dict[str, str] = Field(default_factory=dict, description="every sagemaker.amazonaws.com/ label")
    taints: list[NodeTaint] = Field(default_factory=list)
    unschedulable: bool = False
    gpusAllocatable: int = 0
    gpusAllocated: int = 0
    pods: list[PodOnNode] = Field(default_factory=list)


class NodeListView(Contract):
    cluster: str
    items: list[NodeView]


class NodeEventView(Contract):
    """A Kubernetes event about the node (the kubelet's and the health agent's)."""

    type: str | None = None
    reason: str | None = None
    message: str | None = None
    count: int | None = None
    lastTimestamp: str | None = None


class NodeDetailView(NodeView):
    privateIp: str | None = None
    privateDnsName: str | None = None
    lastSoftwareUpdateTime: datetime | None = None
    imageReleaseVersion: str | None = None
    conditions: list[NodeCondition] = Field(default_factory=list)
    events: list[NodeEventView] = Field(default_factory=list)
    hyperpod: dict[str, Any] = Field(default_factory=dict, description="DescribeClusterNode's NodeDetails as AWS sent")


class NodeRef(Contract):
    name: ClusterName
    nodeId: NodeId


class NodeActionRequest(Contract):
    nodeIds: list[NodeId] = Field(
        min_length=1, max_length=MAX_NODES_PER_REQUEST, json_schema_extra={"uniqueItems": True}
    )

    @model_validator(mode="after")
    def _distinct(self) -> NodeActionRequest:
        if len(set(self.nodeIds)) != len(self.nodeIds):
            raise ValueError("nodeIds must be distinct")
        return self


class NodeActionInput(NodeActionRequest):
    name: ClusterName


class DestructiveNodeActionRequest(NodeActionRequest):
    """Replace and delete destroy the nodes' instance volumes (root and secondary): nothing on them survives."""

    # The document requires true; the model takes its absence so that the refusal (usecases.nodes) says why
    # in words, not "field required".
    model_config = ConfigDict(json_schema_extra=rules(required=("acknowledgeDataLoss",)))

    acknowledgeDataLoss: bool = Field(
        default=False,
        description="true: you know every local volume of these nodes (root and secondary) is lost for good;"
        " back up to S3 or FSx for Lustre first",
        json_schema_extra={"const": True},
    )


class DestructiveNodeActionInput(DestructiveNodeActionRequest):
    name: ClusterName


DeepHealthCheckName = Literal["InstanceStress", "InstanceConnectivity"]
_DEFAULT_CHECKS: tuple[DeepHealthCheckName, ...] = ("InstanceStress", "InstanceConnectivity")


class HealthCheckTarget(Contract):
    instanceGroup: InstanceGroupName
    nodeIds: list[NodeId] | None = Field(default=None, max_length=500, description="default: the whole group")


class HealthCheckRequest(Contract):
    """Deep health checks on demand (StartClusterHealthCheck): the nodes leave scheduling while they run."""

    targets: list[HealthCheckTarget] = Field(min_length=1, max_length=99)
    checks: list[DeepHealthCheckName] = Field(default_factory=lambda: list(_DEFAULT_CHECKS), min_length=1, max_length=2)


class HealthCheckInput(HealthCheckRequest):
    name: ClusterName


EventLevel = Literal["Info", "Warn", "Error"]
EventResourceType = Literal["Cluster", "InstanceGroup", "Instance"]


class ListEventsInput(Contract):
    name: ClusterName
    instanceGroup: InstanceGroupName | None = None
    nodeId: NodeId | None = None
    level: EventLevel | None = Field(default=None, description="only events at this level")
    resourceType: EventResourceType | None = None
    after: datetime | None = Field(default=None, description="only events after this time (ISO 8601)")
    before: datetime | None = None
    limit: int = Field(default=50, ge=1, le=100)
    nextToken: str | None = Field(default=None, max_length=8192)
    details: bool = Field(default=True, description="also read each event's details (DescribeClusterEvent)")


class ClusterEventView(Contract):
    eventId: str
    time: datetime | None = None
    level: str | None = None
    resourceType: str | None = None
    instanceGroup: str | None = None
    nodeId: str | None = None
    description: str | None = None
    failureMessage: str | None = Field(default=None, description="from DescribeClusterEvent's metadata")
    metadata: dict[str, Any] | None = None


class ClusterEventListView(Contract):
    cluster: str
    items: list[ClusterEventView]
    nextToken: str | None = None


# MoveClusterNodes takes 1..50 nodes (botocore: MoveClusterNodesInstanceCount, MoveClusterNodeIds).
MAX_NODES_PER_MOVE = 50


class MoveNodesRequest(Contract):
    """Move running nodes to another instance group (MoveClusterNodes), keeping the instances and their capacity."""

    model_config = one_of(
        case("A count of nodes", required=["count"], properties={"count": {"type": "integer"}, "nodeIds": ABSENT}),
        case("Named nodes", required=["nodeIds"], properties={"nodeIds": {"type": "array"}, "count": ABSENT}),
        required=("acknowledgeDataLoss",),
    )

    sourceGroup: InstanceGroupName = Field(description="the instance group the nodes leave")
    targetGroup: InstanceGroupName = Field(description="the instance group the nodes join")
    targetCluster: ClusterName | None = Field(default=None, description="the target group's cluster; default: this one")
    count: int | None = Field(
        default=None,
        ge=1,
        le=MAX_NODES_PER_MOVE,
        description="this many nodes, the Running ones with the fewest pods",
    )
    nodeIds: list[NodeId] | None = Field(
        default=None, min_length=1, max_length=MAX_NODES_PER_MOVE, json_schema_extra={"uniqueItems": True}
    )
    acknowledgeDataLoss: bool = Field(
        default=False,
        description="true: you know a moved node's EBS volumes (root, secondary) are replaced; their data is lost",
        json_schema_extra={"const": True},
    )

    @model_validator(mode="after")
    def _one_selection(self) -> MoveNodesRequest:
        if (self.count is None) == (self.nodeIds is None):
            raise ValueError("give exactly one of count or nodeIds")
        if self.nodeIds and len(set(self.nodeIds)) != len(self.nodeIds):
            raise ValueError("nodeIds must be distinct")
        return self


class MoveNodesInput(MoveNodesRequest):
    name: ClusterName
