"""What a phase hands to the phases after it, typed: each model names the phase that records it (``PHASE``)
and the fields a later phase (or its own next poll) reads. A phase returns one of these as its
``PhaseResult.outputs``, and a reader asks the workflow document for the model, never for a key:
``doc.require(ExecutionRoleOutput).roleArn``. A field renamed on one side fails validation on the other,
and tests/statemachines/test_phase_outputs.py checks every ``PHASE`` is a Task of the state machine that
reads it. Phases whose outputs only the operation's record shows keep a plain dict."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, Field

from launchpod.contracts.common import Contract


class PhaseOutput(Contract):
    # A record may carry more than readers need (what the operation shows a user); readers see their fields.
    model_config = ConfigDict(extra="allow")
    PHASE: ClassVar[str]


class NetworkOutput(PhaseOutput):
    """The VPC create-control-plane made or reused (provision-cluster makes it before EKS)."""

    PHASE: ClassVar[str] = "Network"
    vpcId: str
    # provision-cluster hands its HyperPod branch the VPC id alone (ResultSelector in provision-cluster.asl.json)
    subnetIds: list[str] = Field(
        default_factory=list, description="private subnets: the control plane's and the compute subnet's routes"
    )
    publicSubnetIds: list[str] = Field(default_factory=list)
    securityGroupId: str | None = Field(default=None, description="shared by the control plane and HyperPod's nodes")
    vpcCidr: str | None = None
    natGatewayId: str | None = None
    reused: bool = Field(default=False, description="the user's VPC: Launchpod made none of it")


class RoleOutput(PhaseOutput):
    roleArn: str
    roleName: str | None = None


class ClusterRoleOutput(RoleOutput):
    """EKS's cluster role (create-control-plane), or HyperPod's autoscaling role (autoscaling): both ClusterRole."""

    PHASE: ClassVar[str] = "ClusterRole"


class ExecutionRoleOutput(RoleOutput):
    PHASE: ClassVar[str] = "ExecutionRole"


class ServerRoleOutput(RoleOutput):
    PHASE: ClassVar[str] = "ServerRole"


class LifecycleScriptsOutput(PhaseOutput):
    PHASE: ClassVar[str] = "LifecycleScripts"
    sourceS3Uri: str


class ComputeSubnetOutput(PhaseOutput):
    PHASE: ClassVar[str] = "ComputeSubnet"
    subnetId: str
    vpcId: str
    cidr: str


class SecurityGroupOutput(PhaseOutput):
    PHASE: ClassVar[str] = "SecurityGroup"
    securityGroupId: str


class GroupSubnetOutput(PhaseOutput):
    PHASE: ClassVar[str] = "GroupSubnet"
    subnetId: str
    cidr: str
    zone: str


class UpdateClusterOutput(PhaseOutput):
    PHASE: ClassVar[str] = "UpdateCluster"
    groups: int
    calledAt: str = Field(description="when UpdateCluster was called (ISO 8601): the group's events start there")


class StorageAccessOutput(PhaseOutput):
    """Where the volume points: the shared bucket (s3) or the file system's Lustre address (fsx)."""

    PHASE: ClassVar[str] = "StorageAccess"
    bucket: str | None = None
    region: str | None = None
    prefix: str | None = None
    dnsName: str | None = None
    mountName: str | None = None


class StartActionOutput(PhaseOutput):
    PHASE: ClassVar[str] = "StartAction"
    accepted: list[str]
    refused: list[dict[str, str]] = Field(default_factory=list)
    started: str = Field(description="when the action was asked for (ISO 8601)")
    seenDown: list[str] = Field(default_factory=list, description="WaitNodes: nodes it has seen leave Running")


class WaitNodesOutput(PhaseOutput):
    PHASE: ClassVar[str] = "WaitNodes"
    replacements: dict[str, str] = Field(default_factory=dict, description="replaced node id -> its replacement")


class DrainOutput(PhaseOutput):
    """move-nodes: the Kubernetes Nodes Drain cordoned (Move uncordons those AWS refuses)."""

    PHASE: ClassVar[str] = "Drain"
    cordoned: list[str] = Field(default_factory=list)


class MoveOutput(PhaseOutput):
    PHASE: ClassVar[str] = "Move"
    accepted: list[str]
    refused: list[dict[str, str]] = Field(default_factory=list, description="MoveClusterNodes' Failed, as AWS says")


class DeleteControlPlaneOutput(PhaseOutput):
    """Kept across DeleteControlPlane's polls, then read by DeleteIdentity: the OIDC issuer to delete."""

    PHASE: ClassVar[str] = "DeleteControlPlane"
    issuer: str | None = None
    kept: str | None = Field(default=None, description="an EKS cluster not Launchpod's, left in place")


class DeleteNetworkOutput(PhaseOutput):
    """Kept across DeleteNetwork's polls while NAT gateways are deleted."""

    PHASE: ClassVar[str] = "DeleteNetwork"
    deleted: list[str] = Field(default_factory=list)


OUTPUTS: tuple[type[PhaseOutput], ...] = (
    NetworkOutput,
    ClusterRoleOutput,
    ExecutionRoleOutput,
    ServerRoleOutput,
    LifecycleScriptsOutput,
    ComputeSubnetOutput,
    SecurityGroupOutput,
    GroupSubnetOutput,
    UpdateClusterOutput,
    StorageAccessOutput,
    StartActionOutput,
    WaitNodesOutput,
    DrainOutput,
    MoveOutput,
    DeleteControlPlaneOutput,
    DeleteNetworkOutput,
)
