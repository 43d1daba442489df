"""Cluster requests and views."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from launchpod.contracts.common import (
    ABSENT,
    DEFAULT_KUBERNETES_VERSION,
    AvailabilityZoneName,
    Cidr,
    ClusterName,
    Contract,
    HyperPodRegion,
    KubernetesVersion,
    Tags,
    case,
    one_of,
    refused,
    zone_in_region,
)
from launchpod.contracts.hyperpod import CreateHyperPodRequest
from launchpod.contracts.naming import renamed
from launchpod.contracts.storage import ConfigureStorageRequest

ControlPlaneLogType = Literal["api", "audit", "authenticator", "controllerManager", "scheduler"]
_DEFAULT_LOGS: tuple[ControlPlaneLogType, ...] = ("api", "audit", "authenticator")


class NetworkRequest(Contract):
    """Either a new VPC (give a CIDR, or take the default) or an existing VPC and its subnets."""

    model_config = one_of(
        case("A new VPC", properties={"vpcId": ABSENT, "subnetIds": ABSENT}),
        case(
            "An existing VPC",
            required=["vpcId", "subnetIds"],
            properties={"vpcId": {"type": "string"}, "subnetIds": {"type": "array"}, "vpcCidr": ABSENT},
        ),
    )

    vpcCidr: Cidr | None = Field(default=None, description="CIDR of a new VPC; default 10.192.0.0/16.")
    vpcId: str | None = Field(default=None, pattern=r"^vpc-[0-9a-f]{8,17}$")
    subnetIds: list[str] | None = Field(
        default=None,
        description="Existing private subnets in at least two availability zones.",
        json_schema_extra={"minItems": 2, "uniqueItems": True},
    )

    @model_validator(mode="after")
    def _one_way(self) -> NetworkRequest:
        if self.vpcId and self.vpcCidr:
            raise ValueError("give vpcCidr for a new VPC or vpcId and subnetIds to reuse one, not both")
        if bool(self.vpcId) != bool(self.subnetIds):
            raise ValueError("to reuse a VPC give both vpcId and subnetIds (private subnets in two or more zones)")
        if self.subnetIds is not None and len(set(self.subnetIds)) < 2:
            raise ValueError("give at least two distinct subnetIds, in different availability zones")
        return self


class CreateClusterRequest(Contract):
    """Create the EKS control plane for a HyperPod cluster."""

    cluster: ClusterName = Field(validation_alias=renamed("cluster", "name"))
    region: HyperPodRegion | None = Field(
        default=None, description="AWS Region for the cluster, fixed for its life; default: Launchpod's"
    )
    availabilityZones: list[AvailabilityZoneName] = Field(
        min_length=2,
        max_length=3,
        description="Zones for the control plane's subnets; EKS needs two or more.",
        examples=[["us-east-1a", "us-east-1b"]],
        json_schema_extra={"uniqueItems": True},
    )
    kubernetesVersion: KubernetesVersion = DEFAULT_KUBERNETES_VERSION
    network: NetworkRequest = Field(default_factory=NetworkRequest)
    logging: list[ControlPlaneLogType] = Field(
        default_factory=lambda: list(_DEFAULT_LOGS),
        description="Control-plane log types sent to CloudWatch Logs.",
    )
    tags: Tags = Field(default_factory=dict, description="AWS tags for the EKS cluster (AWS's tag rules)")

    @model_validator(mode="after")
    def _distinct_zones(self) -> CreateClusterRequest:
        if len(set(self.availabilityZones)) != len(self.availabilityZones):
            raise ValueError("availabilityZones must be distinct")
        outside = [z for z in self.availabilityZones if self.region and not zone_in_region(z, self.region)]
        if outside:
            raise refused(
                "zone_in_region",
                f"{', '.join(outside)} not in {self.region}: give zones of the cluster's Region ({self.region}a, ...)",
            )
        return self


class EksStatusView(Contract):
    status: str = Field(description="CREATING, ACTIVE, DELETING, FAILED, UPDATING, PENDING or NOT_FOUND")
    arn: str | None = None
    version: str | None = None
    endpoint: str | None = None
    vpcId: str | None = None
    subnetIds: list[str] = Field(default_factory=list)
    authenticationMode: str | None = None
    addons: dict[str, str] = Field(default_factory=dict, description="add-on name -> status")


class HyperPodStatusView(Contract):
    status: str = Field(description="Creating, InService, Updating, Failed, Deleting, ... or NOT_CREATED")
    arn: str | None = None
    nodeRecovery: str | None = None
    failureMessage: str | None = None


class ClusterView(Contract):
    name: ClusterName
    region: str = Field(description="the AWS Region the cluster lives in")
    source: Literal["created", "imported"] = "created"
    eks: EksStatusView
    hyperpod: HyperPodStatusView
    activeOperationId: str | None = None
    createdAt: datetime | None = None


class ClusterListView(Contract):
    items: list[ClusterView]
    nextToken: str | None = Field(default=None, description="pass it back for the next page; absent on the last")


class DeleteClusterInput(Contract):
    """Delete a cluster and everything Launchpod created for it; type its name back to confirm."""

    name: ClusterName
    confirm: str = Field(description="the cluster's name, typed again: deleting cannot be undone")


class DeleteHyperPodInput(Contract):
    """Delete only the cluster's HyperPod cluster (a failed one, or nodes no longer wanted); the EKS control
    plane, its add-ons and storage stay. Type the cluster's name back to confirm."""

    name: ClusterName
    confirm: str = Field(description="the cluster's name, typed again: the HyperPod nodes and their pods go")


class ImportClusterRequest(Contract):
    """Bring an existing EKS cluster (and its HyperPod cluster of the same name, if any) under Launchpod."""

    cluster: ClusterName = Field(validation_alias=renamed("cluster", "name"))
    region: HyperPodRegion | None = Field(default=None, description="the EKS cluster's Region; default: Launchpod's")


class ProvisionClusterRequest(CreateClusterRequest):
    """Everything in one request: control plane, dependencies, HyperPod (with node auto-recovery) and,
    optionally, storage for pods once the dependencies are in."""

    model_config = one_of(
        case(
            "FSx for Lustre storage, with the optional dependencies (its CSI driver)",
            required=["storage", "includeOptionalDependencies"],
            properties={
                "storage": {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "fsx"}}},
                "includeOptionalDependencies": {"const": True},
            },
        ),
        case(
            "No storage, or S3 storage",
            properties={"storage": {"anyOf": [ABSENT, {"properties": {"kind": {"const": "s3"}}}]}},
        ),
    )

    hyperpod: CreateHyperPodRequest
    includeOptionalDependencies: bool = Field(default=False, description="also FSx CSI, Neuron plugin, KubeRay")
    storage: ConfigureStorageRequest | None = Field(
        default=None,
        description="Storage as a PersistentVolumeClaim, configured once the dependencies are installed;"
        " omit it for none.",
    )

    @model_validator(mode="after")
    def _hyperpod_zone_in_region(self) -> ProvisionClusterRequest:
        zone = self.hyperpod.availabilityZone
        if self.region and zone and not zone_in_region(zone, self.region):
            raise refused(
                "zone_in_region", f"hyperpod.availabilityZone {zone} is not in the cluster's Region {self.region}"
            )
        return self

    @field_validator("storage")
    @classmethod
    def _storage_has_its_driver(
        cls, value: ConfigureStorageRequest | None, info: ValidationInfo
    ) -> ConfigureStorageRequest | None:
        # FSx for Lustre is mounted by the FSx CSI driver, which only the optional dependencies install.
        if value is not None and value.kind == "fsx" and not info.data.get("includeOptionalDependencies"):
            raise ValueError(
                "kind fsx needs the FSx CSI driver, an optional dependency: set includeOptionalDependencies to true"
            )
        return value


# The steps of provision-cluster, each also a workflow of its own.
ProvisionPhase = Literal["control-plane", "dependencies", "hyperpod", "storage"]


class RunPhaseInput(Contract):
    """Run one provisioning phase of a cluster again, with the settings Launchpod recorded for it."""

    name: ClusterName
    phase: ProvisionPhase = Field(
        description="control-plane (create-control-plane), dependencies (reconcile-dependencies),"
        " hyperpod (create-hyperpod) or storage (configure-storage)"
    )
