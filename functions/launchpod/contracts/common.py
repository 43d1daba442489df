"""Named types and the base model shared by every contract."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


class Contract(BaseModel):
    """Base of every request and view: unknown fields are refused, names are camelCase on the wire."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, use_enum_values=True, defer_build=True)


_CLUSTER_NAME = r"^[a-zA-Z0-9](-*[a-zA-Z0-9])*$"
_K8S_NAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
_ZONE = r"^[a-z]{2}(-[a-z]+)+-\d[a-z]$"

# Pattern -> the rule in words, for validation messages.
PATTERN_HINTS = {
    _CLUSTER_NAME: "1-63 letters, digits and hyphens, starting and ending with a letter or digit (no underscores)",
    _K8S_NAME: "lower-case letters, digits and hyphens, starting and ending with a letter or digit",
    _ZONE: "an availability zone name such as us-east-1a",
}

# SageMaker's cluster-name rule; EKS accepts a superset, so one rule serves both.
ClusterName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=63,
        pattern=_CLUSTER_NAME,
        description="1-63 letters, digits and hyphens; starts and ends with a letter or digit.",
        examples=["ml-team-a"],
    ),
]

# RFC 1123 label, as Kubernetes requires for namespaces and most object names.
K8sName = Annotated[
    str,
    Field(min_length=1, max_length=63, pattern=_K8S_NAME, examples=["training"]),
]

# AWS's tag rules (Tagging AWS resources, "Tag naming limits and requirements"): letters, digits,
# spaces and + - = . _ : / @; keys 1-128 characters and not starting with "aws:", values 0-256.
_TAG_CHARS = r"^[\w\s.:/=+\-@]*$"  # \w and \s are Unicode-aware: letters, digits, _ and spaces
TagKey = Annotated[str, Field(min_length=1, max_length=128, pattern=_TAG_CHARS)]
TagValue = Annotated[str, Field(max_length=256, pattern=_TAG_CHARS)]


def _no_aws_prefix(tags: dict[str, str]) -> dict[str, str]:
    reserved = sorted(k for k in tags if k.lower().startswith("aws:"))
    if reserved:
        raise ValueError(f"tag keys starting with aws: are reserved for AWS ({', '.join(reserved)})")
    return tags


Tags = Annotated[dict[TagKey, TagValue], AfterValidator(_no_aws_prefix), Field(max_length=40)]

OperationId = Annotated[str, Field(pattern=r"^op-[0-9a-z]{8,40}$", examples=["op-01jd3k2m4n5p6q7r"])]

AvailabilityZoneName = Annotated[str, Field(pattern=_ZONE, examples=["us-east-1a"])]

Cidr = Annotated[
    str,
    Field(pattern=r"^(\d{1,3}\.){3}\d{1,3}/\d{1,2}$", examples=["10.192.0.0/16"]),
]

# The Kubernetes versions Launchpod creates clusters at: those SageMaker HyperPod supports that are in EKS
# standard support, newest (the default) first. The source, with its citations, is the `kubernetes` section
# of the pinned dependency manifest (domain/dependencies/manifest.yaml); it is mirrored here because the MCP
# gateway's image carries only the contracts, and tests/domain/test_dependencies.py checks the two agree.
SUPPORTED_KUBERNETES_VERSIONS: tuple[str, ...] = ("1.34",)
DEFAULT_KUBERNETES_VERSION = SUPPORTED_KUBERNETES_VERSIONS[0]


def _supported_kubernetes_version(value: str) -> str:
    if value not in SUPPORTED_KUBERNETES_VERSIONS:
        raise ValueError(
            f"Kubernetes {value} is not supported; supported versions: {', '.join(SUPPORTED_KUBERNETES_VERSIONS)} "
            "(the versions SageMaker HyperPod supports that are in EKS standard support)"
        )
    return value


KubernetesVersion = Annotated[
    str,
    Field(
        json_schema_extra={"enum": list(SUPPORTED_KUBERNETES_VERSIONS)},
        description="A version SageMaker HyperPod supports that is in EKS standard support.",
        examples=[DEFAULT_KUBERNETES_VERSION],
    ),
    AfterValidator(_supported_kubernetes_version),
]


class Role(StrEnum):
    """What a user may do. Each role includes the ones below it."""

    VIEWER = "viewer"
    OPERATOR = "operator"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return {"viewer": 0, "operator": 1, "admin": 2}[self.value]

    def allows(self, needed: Role) -> bool:
        return self.rank >= Role(needed).rank
