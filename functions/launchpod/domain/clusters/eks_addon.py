"""An EKS add-on as Launchpod reads it: its status and version, EKS's health issues, its pod identity
associations, its configuration values and tags.

The AddonReader port (adapters.aws.eks) builds it from DescribeAddon's answer, so the AWS shape stays in the
adapter (https://docs.aws.amazon.com/eks/latest/APIReference/API_Addon.html)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AddonIssue:
    """One of EKS's health issues of an add-on (API_AddonIssue), such as InsufficientNumberOfReplicas."""

    code: str = ""
    message: str = ""


@dataclass(frozen=True)
class EksAddon:
    name: str
    status: str | None = None  # CREATING, ACTIVE, DEGRADED, UPDATING, DELETING, or a *_FAILED
    version: str | None = None  # addonVersion, such as v1.18.2-eksbuild.1
    issues: tuple[AddonIssue, ...] = ()  # health.issues
    pod_identity_associations: tuple[str, ...] = ()  # their ARNs
    configuration: dict[str, Any] = field(default_factory=dict)  # configurationValues, parsed ({} when none)
    tags: dict[str, str] = field(default_factory=dict)
