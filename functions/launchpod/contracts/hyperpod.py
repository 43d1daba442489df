"""Requests for the HyperPod cluster that runs on an EKS control plane."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from launchpod.contracts.common import AvailabilityZoneName, ClusterName, Contract, refused
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


class InstanceGroupRequest(Contract):
    instanceGroup: InstanceGroupName = Field(validation_alias=renamed("instanceGroup", "name"))
    instanceType: HyperPodInstanceType
    instanceCount: int = Field(ge=0, le=6758)
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
        names = [g.instanceGroup for g in self.instanceGroups]
        if len(set(names)) != len(names):
            raise refused("distinct_names", "instance group names must be distinct")
        return self


class CreateHyperPodInput(CreateHyperPodRequest):
    """The catalog input: the cluster name (path) plus the request body."""

    name: ClusterName


class BatchSize(Contract):
    type: Literal["INSTANCE_COUNT", "CAPACITY_PERCENTAGE"] = "CAPACITY_PERCENTAGE"
    value: int = Field(default=25, ge=1, le=100)


class UpdateSoftwareRequest(Contract):
    """Patch the nodes' AMI in rolling batches, so the cluster keeps serving while it updates."""

    maxBatchSize: BatchSize = Field(default_factory=BatchSize, description="nodes updated at once")
    waitIntervalSeconds: int = Field(default=300, ge=0, le=3600, description="pause between batches")
    instanceGroups: list[InstanceGroupName] | None = Field(default=None, description="default: every group")


class UpdateSoftwareInput(UpdateSoftwareRequest):
    name: ClusterName
