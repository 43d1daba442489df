"""Requests for the HyperPod cluster that runs on an EKS control plane, and the instance-group fields and rules
every group specification shares (the first groups here, a group added later in contracts.instance_groups)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import AwareDatetime, ConfigDict, Field, model_validator

from launchpod.contracts.common import (
    ABSENT,
    AvailabilityZoneName,
    ClusterName,
    Contract,
    case,
    one_of,
    refuse_repeats,
    refused,
    rules,
)
from launchpod.contracts.naming import renamed

InstanceGroupName = Annotated[
    str,
    Field(min_length=1, max_length=63, pattern=r"^[a-zA-Z0-9](-*[a-zA-Z0-9])*$", examples=["gpu-workers"]),
]
HyperPodInstanceType = Annotated[str, Field(pattern=r"^ml\.[a-z0-9-]+\.[a-z0-9]+$", examples=["ml.p5.48xlarge"])]
DeepHealthCheck = Literal["InstanceStress", "InstanceConnectivity"]


TrainingPlanArn = Annotated[
    str,
    Field(
        pattern=r"^arn:aws[a-z\-]*:sagemaker:[a-z0-9\-]+:[0-9]{12}:training-plan/[a-z0-9\-]+$",
        examples=["arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5-week"],
    ),
]


class BatchSize(Contract):
    type: Literal["INSTANCE_COUNT", "CAPACITY_PERCENTAGE"] = "CAPACITY_PERCENTAGE"
    value: int = Field(default=25, ge=1, le=100)


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
    model_config = one_of(
        case(
            "Idle nodes only",
            properties={
                "strategy": {"enum": ["WhenIdle", "WhenAllIdle"]},
                "drain": ABSENT,
                "maxBatchSize": ABSENT,
            },
        ),
        case(
            "Drain first",
            required=["maxBatchSize"],
            properties={
                "strategy": {"const": "DrainFirst"},
                "maxBatchSize": {"type": "object"},
                "idleWaitWindowSeconds": ABSENT,
            },
        ),
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


# The rules a group's depth fields follow wherever a group is specified (a cluster's first groups and a group
# added later), stated once: as JSON Schema for the document and the tools, and as the validator's checks.
ONE_TYPE_OR_FLEXIBLE: dict[str, Any] = {
    "oneOf": [
        case(
            "One instance type",
            required=["instanceType"],
            properties={"instanceType": {"type": "string"}, "instanceTypes": ABSENT},
        ),
        case(
            "Flexible group",
            required=["instanceTypes"],
            # a training plan reserves one instance type
            properties={"instanceTypes": {"type": "array"}, "instanceType": ABSENT, "trainingPlanArn": ABSENT},
        ),
    ]
}


def check_group_shape(
    instance_type: str | None,
    instance_types: list[str] | None,
    count: int | None,
    min_count: int | None,
    *,
    on_plan: bool = False,
    either: bool = True,
) -> None:
    """InstanceType and InstanceRequirements are mutually exclusive (ClusterInstanceGroupSpecification), a
    training plan reserves one type, each flexible type appears once, and MinInstanceCount is at most
    InstanceCount. ``either``: one of the two is required (a new group; a change sends neither)."""
    if either and (instance_type is None) == (instance_types is None):
        raise ValueError("give instanceType, or instanceTypes for a flexible group, not both")
    if instance_types is not None and on_plan:
        raise ValueError("a training plan reserves one instance type: give instanceType")
    if instance_types is not None and len(set(instance_types)) != len(instance_types):
        raise ValueError("each instance type appears once in instanceTypes")
    if min_count is not None and count is not None and min_count > count:
        raise refused("ordered", "minInstanceCount is at most instanceCount")


class GroupTypes:
    """A specified group's instance types, one for a single-type group."""

    instanceType: str | None
    instanceTypes: list[str] | None

    @property
    def types(self) -> list[str]:
        """The group's instance types in HyperPod's order of preference (one for a single-type group)."""
        return list(self.instanceTypes or [self.instanceType or ""])

    @property
    def first_type(self) -> str:
        return self.types[0]


class InstanceGroupRequest(GroupTypes, Contract):
    """A first group: the depth and rules of add_instance_group (instanceTypes, minimum, autoPatch, image)."""

    model_config = ConfigDict(json_schema_extra=rules(**ONE_TYPE_OR_FLEXIBLE))

    instanceGroup: InstanceGroupName = Field(validation_alias=renamed("instanceGroup", "name"))
    instanceType: HyperPodInstanceType | None = None
    instanceTypes: FlexibleTypes | None = None
    instanceCount: int = Field(ge=0, le=6758)
    minInstanceCount: MinInstanceCount | None = None
    threadsPerCore: Literal[1, 2] = Field(default=1, description="1 turns hyperthreading off, as GPU training prefers")
    ebsVolumeGb: int = Field(default=500, ge=1, le=16384, description="Extra EBS volume per node, in GiB")
    deepHealthChecks: list[DeepHealthCheck] = Field(
        default_factory=list, description="Run on start: InstanceStress (GPU/accelerator), InstanceConnectivity (EFA)"
    )
    trainingPlanArn: TrainingPlanArn | None = Field(
        default=None,
        description="run on this training plan's reserved capacity: its instance type, in its zone (the"
        " availabilityZone), Active or Scheduled (the group waits for its start)",
    )
    autoPatch: AutoPatch | None = None
    imageId: ImageId | None = Field(default=None, description="custom or HyperPod AMI, or default")
    imageReleaseVersion: ImageReleaseVersion | None = Field(default=None, description="HyperPod AMI release; latest")

    @model_validator(mode="after")
    def _shape(self) -> Self:
        check_group_shape(
            self.instanceType,
            self.instanceTypes,
            self.instanceCount,
            self.minInstanceCount,
            on_plan=self.trainingPlanArn is not None,
        )
        return self


class CreateHyperPodRequest(Contract):
    """Create the HyperPod cluster of an existing Launchpod cluster (its EKS control plane must be ACTIVE)."""

    availabilityZone: AvailabilityZoneName = Field(description="Zone of the /20 compute subnet; capacity is per zone")
    instanceGroups: list[InstanceGroupRequest] = Field(min_length=1, max_length=20)
    nodeRecovery: Literal["Automatic", "None"] = Field(
        default="Automatic", description="Automatic: HyperPod replaces or reboots faulty nodes by itself"
    )
    nodeProvisioningMode: Literal["Continuous"] | None = Field(
        default=None,
        description="Continuous: HyperPod keeps provisioning instances as capacity frees up instead of failing the"
        " request, and nodes can be added one by one (needed by managed Karpenter)",
    )

    @model_validator(mode="after")
    def _distinct_groups(self) -> CreateHyperPodRequest:
        refuse_repeats((g.instanceGroup for g in self.instanceGroups), "instance group names must be distinct")
        return self


class CreateHyperPodInput(CreateHyperPodRequest):
    """The catalog input: the cluster name (path) plus the request body."""

    name: ClusterName


class UpdateSoftwareRequest(Contract):
    """Patch the nodes' AMI in rolling batches, so the cluster keeps serving while it updates."""

    maxBatchSize: BatchSize = Field(default_factory=BatchSize, description="nodes updated at once")
    waitIntervalSeconds: int = Field(default=300, ge=0, le=3600, description="pause between batches")
    instanceGroups: list[InstanceGroupName] | None = Field(default=None, description="default: every group")


class UpdateSoftwareInput(UpdateSoftwareRequest):
    name: ClusterName
