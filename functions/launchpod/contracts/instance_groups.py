"""Instance groups of a running HyperPod cluster: list, add, change (explicit diff) and delete."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from launchpod.contracts.common import (
    ABSENT,
    AvailabilityZoneName,
    ClusterName,
    Contract,
    PartitionType,
    case,
    one_of,
    rules,
)
from launchpod.contracts.hyperpod import (
    ONE_TYPE_OR_FLEXIBLE,
    AutoPatch,
    BatchSize,
    DeepHealthCheck,
    FlexibleTypes,
    GroupTypes,
    HyperPodInstanceType,
    ImageId,
    ImageReleaseVersion,
    InstanceGroupName,
    MinInstanceCount,
    TrainingPlanArn,
    check_group_shape,
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


# GPU partitions (MIG) of a group: HyperPod reads the group's label nvidia.com/mig.config ("Set up GPU partitions
# on HyperPod", https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-gpu-partitioning-setup.html).
# single: every GPU split into one profile (all-<profile>); mixed: every GPU split into the same mix
# (mixed-<n>-<profile>-...); disabled: whole GPUs (all-disabled). Pods ask for nvidia.com/mig-<profile> either way.
_ONE_TYPE = "acceleratorPartitionType"
_NO_TYPE = {_ONE_TYPE: ABSENT, "profile": ABSENT}  # profile: its older spelling (launchpod.contracts.naming)


class MigLayout(Contract):
    # the by-mode rule of the validator below, stated for the document and the tools (the tools' schemas drop
    # the older spelling's branch, naming.without_older_spellings)
    model_config = one_of(
        case(
            "One partition type on every GPU",
            anyOf=[{"required": [_ONE_TYPE]}, {"required": ["profile"]}],
            properties={
                "mode": {"const": "single"},
                _ONE_TYPE: {"type": "string"},
                "profile": {"type": "string"},
                "perGpu": ABSENT,
            },
        ),
        case(
            "A mix on every GPU",
            required=["perGpu"],
            properties={"mode": {"const": "mixed"}, "perGpu": {"type": "object"}, **_NO_TYPE},
        ),
        case("Whole GPUs", properties={"mode": {"const": "disabled"}, "perGpu": ABSENT, **_NO_TYPE}),
    )

    mode: Literal["single", "mixed", "disabled"] = Field(
        description="single: one profile on every GPU; mixed: a mix per GPU; disabled: whole GPUs"
    )
    # the profiles a type offers are checked against its GPU (domain.mig), naming them; the schema keeps the form
    acceleratorPartitionType: PartitionType | None = Field(
        default=None,
        description="single: every GPU as many of this MIG profile as it holds",
        validation_alias=renamed("acceleratorPartitionType", "profile"),
    )
    perGpu: dict[PartitionType, Annotated[int, Field(ge=1, le=7)]] | None = Field(
        default=None, min_length=2, max_length=4, description="mixed: of each profile per GPU"
    )

    @model_validator(mode="after")
    def _by_mode(self) -> Self:
        one = self.acceleratorPartitionType
        if self.mode == "single" and (one is None or self.perGpu is not None):
            raise ValueError("mode single takes acceleratorPartitionType (and no perGpu)")
        if self.mode == "mixed" and (self.perGpu is None or one is not None):
            raise ValueError("mode mixed takes perGpu, two or more profiles (and no acceleratorPartitionType)")
        if self.mode == "disabled" and (one is not None or self.perGpu is not None):
            raise ValueError("mode disabled takes neither acceleratorPartitionType nor perGpu")
        return self


class MigView(Contract):
    config: str = Field(description="the nvidia.com/mig.config label", examples=["all-1g.10gb"])
    mode: Literal["single", "mixed", "disabled"]
    perGpu: dict[str, int] = Field(default_factory=dict, description="instances of each profile on one GPU")
    perNode: dict[str, int] = Field(
        default_factory=dict, description="nvidia.com/<profile> each node advertises once partitioned"
    )


_MIG_LABEL = "nvidia.com/mig.config"


def _mig_once(mig: MigLayout | None, labels: dict[str, str] | None) -> None:
    if mig is not None and labels and _MIG_LABEL in labels:
        raise ValueError(f"give the GPU partitions as mig or as the label {_MIG_LABEL}, not both")


class Taint(Contract):
    key: LabelKey
    value: LabelValue | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class AddInstanceGroupRequest(GroupTypes, Contract):
    """One new instance group, added by UpdateCluster without touching the other groups."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            allOf=[
                {
                    "oneOf": [
                        case(
                            "A training plan's capacity",
                            required=["capacityType", "trainingPlanArn"],
                            properties={
                                "capacityType": {"const": "trainingPlan"},
                                "trainingPlanArn": {"type": "string"},
                                "instanceTypes": ABSENT,
                            },
                        ),
                        case(
                            "On-demand or spot capacity",
                            properties={"capacityType": {"enum": ["onDemand", "spot"]}, "trainingPlanArn": ABSENT},
                        ),
                    ]
                },
                ONE_TYPE_OR_FLEXIBLE,
                # MIG partitions the GPUs of one instance type: a flexible group takes none
                {"anyOf": [{"properties": {"mig": ABSENT}}, {"properties": {"instanceTypes": ABSENT}}]},
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
    mig: MigLayout | None = Field(default=None, description="GPU partitions (MIG) of every GPU; one instanceType")

    @model_validator(mode="after")
    def _plan_with_its_type(self) -> Self:
        _mig_once(self.mig, self.labels)
        # "GPU partitioning with MIG is not supported with flexible instance groups" (AWS, "Using GPU
        # partitions in Amazon SageMaker HyperPod")
        if self.mig is not None and self.instanceTypes is not None:
            raise ValueError("MIG needs a group of one instanceType: flexible groups cannot be partitioned")
        if (self.capacityType == "trainingPlan") != (self.trainingPlanArn is not None):
            raise ValueError("give trainingPlanArn exactly when capacityType is trainingPlan")
        check_group_shape(
            self.instanceType,
            self.instanceTypes,
            self.instanceCount,
            self.minInstanceCount,
            on_plan=self.capacityType == "trainingPlan",
        )
        return self


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
    mig: MigLayout | None = Field(
        default=None, description="GPU partitions (MIG); refused while pods on the group's nodes use GPUs"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        _mig_once(self.mig, self.labels)
        check_group_shape(None, self.instanceTypes, self.instanceCount, self.minInstanceCount, either=False)
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
    mig: MigView | None = Field(default=None, description="the GPU partitions the group's label asks for")
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
