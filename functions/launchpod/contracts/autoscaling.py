"""HyperPod-managed Karpenter: which instance groups it scales, from zero."""

from __future__ import annotations

from typing import Self

from pydantic import Field, model_validator

from launchpod.contracts.common import ClusterName, Contract, case, one_of, refused
from launchpod.contracts.hyperpod import InstanceGroupName
from launchpod.contracts.naming import renamed


class AutoscalingRequest(Contract):
    """Enable or disable HyperPod-managed Karpenter. It scales HyperPod instance groups only (never plain EC2
    or EKS node groups): a Pending pod a managed group fits brings a node; idle nodes go, back to zero."""

    model_config = one_of(
        case(
            "Enable, naming the groups",
            # instanceGroups, or its older spelling (launchpod.contracts.naming)
            anyOf=[{"required": ["instanceGroups"]}, {"required": ["groups"]}],
            properties={
                "enabled": {"const": True},
                "instanceGroups": {"minItems": 1},
                "groups": {"minItems": 1},
            },
        ),
        case("Disable", properties={"enabled": {"const": False}}),
    )

    enabled: bool
    instanceGroups: list[InstanceGroupName] = Field(
        default_factory=list,
        validation_alias=renamed("instanceGroups", "groups"),
        max_length=10,
        description="enable: the instance groups Karpenter manages (at most 10 in a node class); each starts at 0",
        json_schema_extra={"uniqueItems": True},
    )
    confirmScaleToZero: list[InstanceGroupName] = Field(
        default_factory=list,
        max_length=10,
        description="enable: groups among instanceGroups that run nodes now and may lose them. Karpenter starts a"
        " group it manages at 0 nodes, so their nodes are terminated; a group with nodes not named here is refused",
    )
    consolidateAfterSeconds: int = Field(
        default=300, ge=0, le=86400, description="how long a node stays idle before Karpenter removes it"
    )

    @model_validator(mode="after")
    def _groups_when_enabled(self) -> Self:
        if self.enabled and not self.instanceGroups:
            raise ValueError("name the instance groups Karpenter should manage in instanceGroups")
        if len(set(self.instanceGroups)) != len(self.instanceGroups):
            raise ValueError("instanceGroups must be distinct")
        if stray := [g for g in self.confirmScaleToZero if g not in self.instanceGroups]:
            raise refused("subset", f"confirmScaleToZero names {', '.join(stray)}, which instanceGroups does not")
        return self


class AutoscalingInput(AutoscalingRequest):
    name: ClusterName
