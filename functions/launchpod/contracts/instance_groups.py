"""Instance groups of a running HyperPod cluster: list, add, change (explicit diff) and delete."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import AwareDatetime, ConfigDict, Field, model_validator

from launchpod.contracts.common import ABSENT, AvailabilityZoneName, ClusterName, Contract, refused, rules
from launchpod.contracts.hyperpod import (
    BatchSize,
    DeepHealthCheck,
    HyperPodInstanceType,
    InstanceGroupName,
    TrainingPlanArn,
)
from launchpod.contracts.naming import renamed
from launchpod.contracts.operations import OperationAcceptedView

CapacityType = Literal["onDemand", "spot", "trainingPlan"]
NicMode = Literal["efa", "efa-only", "ena"]


# SageMaker's ClusterKubernetesLabelKey / ClusterKubernetesTaintKey (1-317 characters) and
# ClusterKubernetesLabelValue / ClusterKubernetesTaintValue (1-63): an optional DNS-subdomain prefix and "/",
# then a name that starts and ends alphanumeric; a value is never empty (API reference,
# https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterKubernetesTaint.html and
# API_ClusterKubernetesConfig.html). Kubernetes' own limits hold too where a pattern can say them: each DNS
# label of the prefix and the name 63 characters at most
# (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set).
LabelKey = Annotated[
    str,
    Field(
        min_length=1,
        max_length=317,
        pattern=r"^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*/)?"
        r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$",
        examples=["example.com/team"],
    ),
]
LabelValue = Annotated[
    str, Field(min_length=1, max_length=63, pattern=r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
]
# AWS's cron() form for ScheduledUpdateConfig.ScheduleExpression (botocore: CronScheduleExpression).
ScheduleExpression = Annotated[str, Field(min_length=1, max_length=256, examples=["cron(0 3 ? * SUN *)"])]


# ClusterInstanceGroupSpecification.ImageId and ImageReleaseVersion (botocore sagemaker 2017-07-24; API
# reference API_ClusterInstanceGroupSpecification.html): a HyperPod public or custom AMI, or "default" (the
# latest image; on a Continuous cluster a new group inherits the earliest group's AMI); a managed-AMI version
# MAJOR.MINOR.PATCH, latest when omitted.
ImageId = Annotated[
    str, Field(min_length=7, max_length=21, pattern=r"^(ami-[0-9a-fA-F]{8,17}|default)$", examples=["default"])
]
ImageReleaseVersion = Annotated[str, Field(max_length=64, pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$", examples=["1.2.3"])]
# ClusterInstanceRequirements.InstanceTypes: 1-20 types, tried in order (the first that has capacity).
FlexibleTypes = Annotated[
    list[HyperPodInstanceType],
    Field(
        min_length=1,
        max_length=20,
        description="flexible group: types tried in order when one lacks capacity (Continuous clusters)",
        json_schema_extra={"uniqueItems": True},
    ),
]
MinInstanceCount = Annotated[
    int,
    Field(
        ge=0,
        le=6758,
        description="InService once this many run; at most instanceCount (Continuous clusters)",
    ),
]
PatchingStrategy = Literal["WhenIdle", "WhenAllIdle", "DrainFirst"]


# ClusterDrainPolicy: how long DrainFirst waits for a node's pods to leave, and what then.
class DrainPolicy(Contract):
    drainTimeoutSeconds: int = Field(default=3600, ge=0, le=5400)
    onDrainTimeout: Literal["Skip", "Force"] = Field(
        default="Skip", description="Skip: node left unpatched, pods keep running; Force: delete pods, ignore PDBs"
    )


# ClusterAutoPatchConfig: HyperPod applies security-patch AMIs to the group by itself. WhenIdle and WhenAllIdle
# never stop a running job (a busy node stays on its AMI); DrainFirst evicts pods, for inference groups that
# are never idle.
class AutoPatch(Contract):
    model_config = ConfigDict(
        json_schema_extra=rules(
            oneOf=[
                {
                    "title": "Idle nodes only",
                    "type": "object",
                    "properties": {
                        "strategy": {"enum": ["WhenIdle", "WhenAllIdle"]},
                        "drain": ABSENT,
                        "maxBatchSize": ABSENT,
                    },
                },
                {
                    "title": "Drain first",
                    "type": "object",
                    "required": ["maxBatchSize"],
                    "properties": {
                        "strategy": {"const": "DrainFirst"},
                        "maxBatchSize": {"type": "object"},
                        "idleWaitWindowSeconds": ABSENT,
                    },
                },
            ]
        )
    )

    strategy: PatchingStrategy = Field(
        description="WhenIdle/WhenAllIdle: patch idle nodes, never stop a job; DrainFirst: evict pods, patch in batches"
    )
    idleWaitWindowSeconds: int | None = Field(default=None, ge=3600, le=2160000)
    drain: DrainPolicy | None = None
    maxBatchSize: BatchSize | None = None
    nextPatchDate: AwareDatetime | None = Field(default=None, description="moves HyperPod's next patch")

    @model_validator(mode="after")
    def _by_strategy(self) -> Self:
        if self.strategy == "DrainFirst":
            if self.maxBatchSize is None:
                raise ValueError("DrainFirst needs maxBatchSize (AutoPatchConfig.DeploymentConfig)")
            if self.idleWaitWindowSeconds is not None:
                raise ValueError("idleWaitWindowSeconds applies to WhenIdle and WhenAllIdle, not DrainFirst")
        elif self.drain is not None or self.maxBatchSize is not None:
            raise ValueError("drain and maxBatchSize apply to DrainFirst only")
        return self


class Taint(Contract):
    key: LabelKey
    value: LabelValue | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class AddInstanceGroupRequest(Contract):
    """One new instance group, added by UpdateCluster without touching the other groups."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            allOf=[
                {
                    "oneOf": [
                        {
                            "title": "A training plan's capacity",
                            "type": "object",
                            "required": ["capacityType", "trainingPlanArn"],
                            "properties": {
                                "capacityType": {"const": "trainingPlan"},
                                "trainingPlanArn": {"type": "string"},
                                "instanceTypes": ABSENT,
                            },
                        },
                        {
                            "title": "On-demand or spot capacity",
                            "type": "object",
                            "properties": {"capacityType": {"enum": ["onDemand", "spot"]}, "trainingPlanArn": ABSENT},
                        },
                    ]
                },
                {
                    "oneOf": [
                        {
                            "title": "One instance type",
                            "type": "object",
                            "required": ["instanceType"],
                            "properties": {"instanceType": {"type": "string"}, "instanceTypes": ABSENT},
                        },
                        {
                            "title": "Flexible group",
                            "type": "object",
                            "required": ["instanceTypes"],
                            "properties": {"instanceTypes": {"type": "array"}, "instanceType": ABSENT},
                        },
                    ]
                },
            ]
        )
    )

    instanceGroup: InstanceGroupName = Field(
        validation_alias=renamed("instanceGroup", "group"), description="the new group's name, unique in the cluster"
    )
    instanceType: HyperPodInstanceType | None = None
    instanceTypes: FlexibleTypes | None = None
    instanceCount: int = Field(ge=0, le=6758, description="0 is allowed: a group to scale up later")
    minInstanceCount: MinInstanceCount | None = None
    availabilityZone: AvailabilityZoneName | None = Field(
        default=None, description="default: the zone of the cluster's compute subnet; a training plan's zone wins"
    )
    capacityType: CapacityType = Field(
        default="onDemand", description="onDemand, spot (can be reclaimed), or trainingPlan (give trainingPlanArn)"
    )
    trainingPlanArn: TrainingPlanArn | None = None
    efaOnly: bool = Field(
        default=False, description="EFA-only network interfaces (no IP traffic on them): types with several EFA cards"
    )
    dedicatedSubnet: bool = Field(
        default=False, description="a new /20 subnet for this group alone, deleted with the group"
    )
    threadsPerCore: Literal[1, 2] | None = Field(default=None, description="default: AWS's recommendation for the type")
    ebsVolumeGb: int = Field(default=500, ge=1, le=16384, description="extra EBS volume per node, in GiB")
    deepHealthChecks: list[DeepHealthCheck] = Field(default_factory=list, max_length=2)
    labels: dict[LabelKey, LabelValue] = Field(default_factory=dict, max_length=50)
    taints: list[Taint] = Field(default_factory=list, max_length=50)
    autoPatch: AutoPatch | None = None
    imageId: ImageId | None = Field(default=None, description="custom or HyperPod AMI, or default")
    imageReleaseVersion: ImageReleaseVersion | None = Field(default=None, description="HyperPod AMI release; latest")

    @model_validator(mode="after")
    def _plan_with_its_type(self) -> Self:
        if (self.capacityType == "trainingPlan") != (self.trainingPlanArn is not None):
            raise ValueError("give trainingPlanArn exactly when capacityType is trainingPlan")
        # InstanceType and InstanceRequirements are mutually exclusive (ClusterInstanceGroupSpecification).
        if (self.instanceType is None) == (self.instanceTypes is None):
            raise ValueError("give instanceType, or instanceTypes for a flexible group, not both")
        if self.instanceTypes is not None and self.capacityType == "trainingPlan":
            raise ValueError("a training plan reserves one instance type: give instanceType")
        if self.instanceTypes is not None and len(set(self.instanceTypes)) != len(self.instanceTypes):
            raise ValueError("each instance type appears once in instanceTypes")
        if self.minInstanceCount is not None and self.minInstanceCount > self.instanceCount:
            raise refused("ordered", "minInstanceCount is at most instanceCount")
        return self

    @property
    def types(self) -> list[str]:
        """The group's instance types in HyperPod's order of preference (one for a single-type group)."""
        return list(self.instanceTypes or [self.instanceType or ""])

    @property
    def first_type(self) -> str:
        return self.types[0]


class AddInstanceGroupInput(AddInstanceGroupRequest):
    name: ClusterName


class UpdateInstanceGroupRequest(Contract):
    """Explicit diff: send only what changed. Capacity type, NIC mode, instance type and subnet are fixed
    for the life of a group; sending a different value is refused (add a new group instead)."""

    instanceCount: int | None = Field(default=None, ge=0, le=6758)
    minInstanceCount: MinInstanceCount | None = None
    instanceTypes: FlexibleTypes | None = None
    autoPatch: AutoPatch | None = None
    imageId: ImageId | None = None
    imageReleaseVersion: ImageReleaseVersion | None = None
    labels: dict[LabelKey, LabelValue] | None = Field(default=None, max_length=50)
    taints: list[Taint] | None = Field(default=None, max_length=50)
    deepHealthChecks: list[DeepHealthCheck] | None = Field(default=None, max_length=2)
    scheduledUpdate: ScheduleExpression | None = Field(
        default=None, description="cron() of the group's scheduled software update"
    )
    instanceType: HyperPodInstanceType | None = Field(default=None, description="fixed: refused if different")
    capacityType: CapacityType | None = Field(default=None, description="fixed: refused if different")
    efaOnly: bool | None = Field(default=None, description="fixed (NIC mode): refused if different")
    subnetId: str | None = Field(default=None, description="fixed: refused if different")

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.instanceTypes is not None and len(set(self.instanceTypes)) != len(self.instanceTypes):
            raise ValueError("each instance type appears once in instanceTypes")
        low, count = self.minInstanceCount, self.instanceCount
        if low is not None and count is not None and low > count:
            raise refused("ordered", "minInstanceCount is at most instanceCount")
        return self

    def sent(self) -> dict[str, Any]:
        """The fields the client sent, as sent."""
        return {k: v for k, v in self.model_dump(mode="json").items() if k in self.model_fields_set}


class UpdateInstanceGroupInput(UpdateInstanceGroupRequest):
    name: ClusterName
    group: InstanceGroupName


class InstanceGroupRef(Contract):
    name: ClusterName
    group: InstanceGroupName


class DeleteInstanceGroupInput(InstanceGroupRef):
    confirm: str = Field(description="the group's name, typed again: its nodes are terminated")


class AutoPatchView(Contract):
    strategy: str
    nextPatchDate: datetime | None = Field(
        default=None, description="when HyperPod patches next (CurrentPatchSchedule)"
    )
    requestedPatchDate: datetime | None = Field(default=None, description="a reschedule not yet taken up")
    idleWaitWindowSeconds: int | None = None
    drainTimeoutSeconds: int | None = None
    onDrainTimeout: str | None = None
    maxBatchSize: BatchSize | None = None


class InstanceGroupView(Contract):
    instanceGroup: str
    instanceType: str | None
    instanceTypes: list[str] = Field(default_factory=list, description="a flexible group's types, in order")
    typeCounts: dict[str, int] = Field(
        default_factory=dict, description="a flexible group: the instances running of each type"
    )
    currentCount: int
    targetCount: int
    minInstanceCount: int | None = None
    status: str = Field(examples=["InService"])
    capacityType: CapacityType
    nicMode: NicMode = Field(
        description="efa: EFA and IP on the interfaces; efa-only: EFA only; ena: no EFA (the type has none)"
    )
    availabilityZones: list[str] = Field(default_factory=list)
    subnetIds: list[str] = Field(default_factory=list, description="the group's own subnets, or the cluster's")
    dedicatedSubnet: bool = False
    trainingPlanArn: str | None = None
    trainingPlanStatus: str | None = None
    deepHealthChecks: list[str] = Field(default_factory=list)
    threadsPerCore: int | None = None
    ebsVolumeGb: int | None = None
    imageVersion: str | None = Field(default=None, description="the image release version or AMI the nodes run")
    imageId: str | None = Field(default=None, description="the AMI asked for (DesiredImageId)")
    imageReleaseVersion: str | None = Field(default=None, description="the release asked for")
    imageVersionStatus: str | None = Field(default=None, examples=["UpToDate"])
    autoPatch: AutoPatchView | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[Taint] = Field(default_factory=list)
    scheduledUpdate: str | None = None
    karpenterManaged: bool = Field(default=False, description="HyperPod-managed Karpenter scales this group")
    scaling: bool = Field(
        default=False,
        description="a scaling operation is in progress for the group (DescribeCluster's ActiveOperations); "
        "its progress is the instance-groups operation that started it",
    )


class AutoscalingStateView(Contract):
    """HyperPod-managed Karpenter as DescribeCluster reports it; it scales HyperPod instance groups only."""

    mode: Literal["Enable", "Disable"]
    status: str | None = Field(default=None, examples=["InService"])
    failureMessage: str | None = None
    consolidateAfterSeconds: int | None = None


class InstanceGroupListView(Contract):
    cluster: str
    clusterStatus: str
    items: list[InstanceGroupView]
    autoscaling: AutoscalingStateView | None = None


class InstanceGroupChangeInput(Contract):
    """The instance-groups workflow's request: one change to one group."""

    name: ClusterName
    action: Literal["add", "update", "delete"]
    group: InstanceGroupName
    add: AddInstanceGroupRequest | None = None
    changes: dict[str, Any] = Field(default_factory=dict, description="update: the fields that differ")
    zone: str | None = Field(default=None, description="add: the zone the group is placed in")


class InstanceGroupAcceptedView(OperationAcceptedView):
    """202, with what Launchpod decided for the group that the request did not say (zone, subnet, threads)."""

    notes: list[str] = Field(default_factory=list)
