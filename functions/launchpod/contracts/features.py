"""Managed features: each one's real state (GET) and the toggles a PATCH sends (only what changed)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from launchpod.contracts.common import ABSENT, ClusterName, Contract, case, one_of, rules

FeatureName = Literal[
    "trainingOperator",
    "tieredCheckpointing",
    "taskGovernance",
    "autoscaling",
    "inferenceOperator",
    "observability",
    "hyperpodObservability",
]


def _only_when_on(*options: str) -> ConfigDict:
    """The document's statement of a toggle whose ``options`` apply only when it is turned on (the model's
    validator refuses them with enabled false)."""
    return one_of(
        case("On", properties={"enabled": {"const": True}}),
        case("Off", properties={"enabled": {"const": False}, **dict.fromkeys(options, ABSENT)}),
    )


class TrainingOperatorRequest(Contract):
    enabled: bool = Field(description="install (true) or remove (false) the HyperPod training operator add-on")


class TaskGovernanceRequest(Contract):
    enabled: bool = Field(description="install (true) or remove (false) the HyperPod task governance add-on (Kueue)")


class InferenceOperatorRequest(Contract):
    enabled: bool = Field(
        description="install (true) or remove (false) the HyperPod inference operator add-on (managed and JumpStart"
        " endpoints need it)"
    )


class ObservabilityRequest(Contract):
    enabled: bool = Field(
        description="install (true) or remove (false) the Amazon CloudWatch Observability add-on (Container"
        " Insights): container logs kept in CloudWatch Logs after their pods are gone"
    )


class HyperPodObservabilityRequest(Contract):
    # Off takes no Grafana option; on, either an existing workspace (or none), or one Launchpod creates with
    # its sign-in: the validator's rules below, stated so a client sees them.
    model_config = one_of(
        case(
            "On, an existing workspace or none",
            properties={
                "enabled": {"const": True},
                "createGrafanaWorkspace": {"enum": [False, None]},
                "grafanaAuthentication": ABSENT,
            },
        ),
        case(
            "On, creating a workspace",
            required=["createGrafanaWorkspace"],
            properties={
                "enabled": {"const": True},
                "createGrafanaWorkspace": {"const": True},
                "grafanaWorkspaceArn": ABSENT,
            },
        ),
        case(
            "Off",
            properties={
                "enabled": {"const": False},
                **dict.fromkeys(("grafanaWorkspaceArn", "createGrafanaWorkspace", "grafanaAuthentication"), ABSENT),
            },
        ),
    )

    enabled: bool = Field(
        description="install (true) or remove (false) HyperPod observability: its add-on and an Amazon Managed"
        " Prometheus workspace, which the metrics tools read"
    )
    grafanaWorkspaceArn: str | None = Field(
        default=None,
        pattern=r"^arn:aws[a-z-]*:grafana:[a-z0-9-]+:\d{12}:/workspaces/g-[a-z0-9]+$",
        description="an existing Amazon Managed Grafana workspace for its dashboards",
    )

    createGrafanaWorkspace: bool | None = Field(
        default=None,
        description="have Launchpod create an Amazon Managed Grafana workspace for its dashboards (reading the"
        " Prometheus workspace with a role Launchpod makes), deleted when the feature is turned off",
    )
    grafanaAuthentication: Literal["SAML", "AWS_SSO"] | None = Field(
        default=None,
        description="how people sign in to the workspace Launchpod creates: SAML (the default; set your identity"
        " provider in the workspace afterwards) or AWS_SSO (needs IAM Identity Center in the account)",
    )

    @model_validator(mode="after")
    def _grafana_only_when_on(self) -> HyperPodObservabilityRequest:
        if not self.enabled and self.grafanaWorkspaceArn is not None:
            raise ValueError("grafanaWorkspaceArn applies only with enabled true")
        if not self.enabled and (self.createGrafanaWorkspace or self.grafanaAuthentication):
            raise ValueError("createGrafanaWorkspace and grafanaAuthentication apply only with enabled true")
        if self.createGrafanaWorkspace and self.grafanaWorkspaceArn is not None:
            raise ValueError("give grafanaWorkspaceArn (an existing workspace) or createGrafanaWorkspace, not both")
        if self.grafanaAuthentication and not self.createGrafanaWorkspace:
            raise ValueError("grafanaAuthentication applies only with createGrafanaWorkspace true")
        return self

    @property
    def grafana_sign_in(self) -> str | None:
        """The sign-in of the Grafana workspace to create; None when none is to be created."""
        return (self.grafanaAuthentication or "SAML") if self.createGrafanaWorkspace else None


class TieredCheckpointingRequest(Contract):
    model_config = _only_when_on("memoryPercentage")

    enabled: bool = Field(description="turn managed tiered checkpointing on (true) or off (false)")
    memoryPercentage: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="InstanceMemoryAllocationPercentage: the share of each node's memory kept for checkpoints"
        " (default 20 when enabling)",
    )

    @model_validator(mode="after")
    def _percentage_only_when_on(self) -> TieredCheckpointingRequest:
        if not self.enabled and self.memoryPercentage is not None:
            raise ValueError("memoryPercentage applies only with enabled true")
        return self


_FEATURES = (
    "trainingOperator",
    "tieredCheckpointing",
    "taskGovernance",
    "inferenceOperator",
    "observability",
    "hyperpodObservability",
)


class UpdateFeaturesRequest(Contract):
    """Send only the features that change; the backend compares them with the real cluster."""

    # A null reads as not sent, so the document shows no null: "at least one feature" is then minProperties 1
    # of the body (and, for the MCP tool's input that also has the cluster's name, one of them required).
    model_config = ConfigDict(
        json_schema_extra=rules(
            minProperties=1,
            anyOf=[{"required": [name]} for name in _FEATURES],
            without_default=_FEATURES,
        )
    )

    trainingOperator: TrainingOperatorRequest | SkipJsonSchema[None] = None
    tieredCheckpointing: TieredCheckpointingRequest | SkipJsonSchema[None] = None
    taskGovernance: TaskGovernanceRequest | SkipJsonSchema[None] = None
    inferenceOperator: InferenceOperatorRequest | SkipJsonSchema[None] = None
    observability: ObservabilityRequest | SkipJsonSchema[None] = None
    hyperpodObservability: HyperPodObservabilityRequest | SkipJsonSchema[None] = None

    @model_validator(mode="after")
    def _something(self) -> UpdateFeaturesRequest:
        if all(getattr(self, name) is None for name in _FEATURES):
            raise ValueError(f"send at least one feature: {', '.join(_FEATURES[:-1])} or {_FEATURES[-1]}")
        return self


class UpdateFeaturesInput(UpdateFeaturesRequest):
    """The catalog input: the cluster (path), the features (body) and dryRun (query)."""

    name: ClusterName
    dryRun: bool = Field(default=False, description="answer the plan and start nothing")


class FeatureObjectView(Contract):
    kind: str = Field(examples=["EKS add-on"])
    name: str
    state: str | None = None


class FeatureView(Contract):
    name: FeatureName
    title: str
    enabled: bool
    status: str = Field(description="ENABLED, DISABLED, or the state of what is behind it (CREATING, DEGRADED, ...)")
    version: str | None = None
    settings: dict[str, int | str] = Field(default_factory=dict)
    objects: list[FeatureObjectView] = Field(
        default_factory=list, description="the AWS and Kubernetes objects behind it"
    )
    dependsOn: list[str] = Field(default_factory=list)
    blockedBy: list[str] = Field(default_factory=list, description="what stops it from being turned on now")
    note: str | None = None
    changedWith: str | None = Field(
        default=None, description="set when this route only reads the feature: the operation that changes it"
    )


class FeatureListView(Contract):
    cluster: ClusterName
    items: list[FeatureView]
