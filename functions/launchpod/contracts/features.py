"""Managed features: each one's real state (GET) and the toggles a PATCH sends (only what changed)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from launchpod.contracts.common import ClusterName, Contract

FeatureName = Literal[
    "trainingOperator", "tieredCheckpointing", "taskGovernance", "autoscaling", "inferenceOperator", "observability"
]


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


class TieredCheckpointingRequest(Contract):
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


class UpdateFeaturesRequest(Contract):
    """Send only the features that change; the backend compares them with the real cluster."""

    trainingOperator: TrainingOperatorRequest | None = None
    tieredCheckpointing: TieredCheckpointingRequest | None = None
    taskGovernance: TaskGovernanceRequest | None = None
    inferenceOperator: InferenceOperatorRequest | None = None
    observability: ObservabilityRequest | None = None

    @model_validator(mode="after")
    def _something(self) -> UpdateFeaturesRequest:
        if (
            self.trainingOperator is None
            and self.tieredCheckpointing is None
            and self.taskGovernance is None
            and self.inferenceOperator is None
            and self.observability is None
        ):
            raise ValueError(
                "send at least one feature: trainingOperator, tieredCheckpointing, taskGovernance,"
                " inferenceOperator or observability"
            )
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
