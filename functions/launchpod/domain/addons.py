"""How Launchpod reads an EKS add-on's status: ready, waiting for nodes, still rolling out, or broken.

EKS keeps checking an add-on's Kubernetes resources after it is created. An add-on that runs a
Deployment (coredns, cert-manager, metrics-server, the CSI controllers) has nowhere to run its replicas
until nodes join, and EKS reports it ``DEGRADED`` with the health issue ``InsufficientNumberOfReplicas``
(https://docs.aws.amazon.com/eks/latest/APIReference/API_AddonIssue.html). On a cluster whose nodes
have not joined yet that is the expected state, not a failure: the add-on turns ACTIVE once they do.
DaemonSet add-ons (vpc-cni, kube-proxy, eks-pod-identity-agent) are ACTIVE with no nodes at all.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict

from launchpod.contracts.features import FeatureObjectView
from launchpod.domain.clusters.eks_addon import AddonIssue, EksAddon

WAITS_FOR_NODES_CODE = "InsufficientNumberOfReplicas"
FAILED = frozenset({"CREATE_FAILED", "DELETE_FAILED", "UPDATE_FAILED"})


def installed(addon: EksAddon | None) -> bool:
    """The add-on is there and not on its way out."""
    return addon is not None and addon.status != "DELETING"


def in_use(addon: EksAddon | None) -> bool:
    """Installed and not failed to create: what it provides works, or will once it settles."""
    return addon is not None and installed(addon) and addon.status != "CREATE_FAILED"


class FeatureFacts(TypedDict):
    enabled: bool
    status: str
    version: str | None


def feature_facts(addon: EksAddon | None) -> FeatureFacts:
    """What a feature that is one EKS add-on says of it: enabled, its status (DISABLED when absent), its version."""
    return FeatureFacts(
        enabled=installed(addon),
        status="DISABLED" if addon is None else str(addon.status),
        version=addon.version if addon else None,
    )


def waits_for_nodes(addon: EksAddon) -> bool:
    """DEGRADED only because its replicas have no node to run on (yet)."""
    found = addon.issues
    return addon.status == "DEGRADED" and bool(found) and all(i.code == WAITS_FOR_NODES_CODE for i in found)


def broken(addon: EksAddon) -> bool:
    """A state that waiting does not fix: a failed create/update/delete, or DEGRADED for another reason."""
    return addon.status in FAILED or (addon.status == "DEGRADED" and not waits_for_nodes(addon))


def settled(addon: EksAddon) -> bool:
    """Nothing more to wait for before nodes exist: ACTIVE, or DEGRADED only for want of nodes."""
    return addon.status == "ACTIVE" or waits_for_nodes(addon)


def _issue_text(issue: AddonIssue) -> str:
    return f"{issue.code}: {issue.message}".strip(": ")


def problem(name: str, addon: EksAddon) -> str:
    """``name is STATUS: <EKS's health issue messages>``, for an error a user can act on."""
    text = "; ".join(_issue_text(i) for i in addon.issues)
    return f"{name} is {addon.status}" + (f" ({text})" if text else "")


def waiting_note(name: str, version: str | None) -> str:
    return f"{name} {version or ''} waits for nodes (DEGRADED: {WAITS_FOR_NODES_CODE} until nodes join)".replace(
        "  ", " "
    )


def health_note(name: str, addon: EksAddon | None) -> str | None:
    """Why an installed add-on does not work yet, or None: it waits for nodes, or EKS's health issues."""
    if addon is None:
        return None
    if waits_for_nodes(addon):
        return waiting_note(name, addon.version)
    return problem(name, addon) if broken(addon) else None


def pod_identity_objects(addon: EksAddon | None) -> list[FeatureObjectView]:
    """The add-on's pod identity associations, as a feature lists the objects behind it."""
    return [
        FeatureObjectView(kind="Pod identity association", name=arn.rsplit("/", 1)[-1], state="ACTIVE")
        for arn in (addon.pod_identity_associations if addon else ())
    ]


def version_key(version: str) -> tuple[int, ...]:
    """v1.18.2-eksbuild.1 -> (1, 18, 2, 1): the order of EKS add-on builds."""
    return tuple(int(n) for n in re.findall(r"\d+", version))


def is_downgrade(installed: str, wanted: str) -> bool:
    """Moving ``installed`` to ``wanted`` would go back: reconcile never does that on its own (an older
    pin than what runs is shown as drift for a person to decide on)."""
    return version_key(wanted) < version_key(installed)


def resolve_version(
    pinned: str, offered: list[str], default: str | None, kubernetes: str
) -> tuple[str | None, str | None]:
    """The version to install, and why it is not the pin. EKS offers each add-on's builds per Kubernetes
    version (DescribeAddonVersions); CreateAddon refuses any other ("Addon version specified is not
    supported"). The pin when it is offered; otherwise EKS's default for that Kubernetes version, named in
    the note so that it shows as drift; None when EKS offers the add-on nothing for that version."""
    if pinned in offered:
        return pinned, None
    if default:
        return default, f"{pinned} is not offered for Kubernetes {kubernetes}; EKS's default {default} is used"
    return None, f"EKS offers no version of it for Kubernetes {kubernetes}"


_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "integer": int,
    "number": (int, float),
}


def configuration_problems(schema: dict[str, Any], values: Any, path: str = "$") -> list[str]:
    """Why EKS would refuse ``values`` for an add-on whose DescribeAddonConfiguration schema is ``schema``:
    the keys it requires, keys it does not define when it allows no others, and values of the wrong type,
    checked before CreateAddon so that the operation fails with the reason rather than EKS's
    InvalidParameterException. The subset of JSON Schema add-on schemas use (type, properties, required,
    additionalProperties); $ref and patterns are left to EKS."""
    problems: list[str] = []
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _JSON_TYPES:
        wanted = _JSON_TYPES[kind]
        if not isinstance(values, wanted) or (kind in ("integer", "number") and isinstance(values, bool)):
            return [f"{path}: must be {kind}"]
    if not isinstance(values, dict):
        return problems
    properties = schema.get("properties") or {}
    problems += [f"{path}.{key}: is required" for key in schema.get("required") or [] if key not in values]
    if schema.get("additionalProperties") is False:
        problems += [f"{path}.{key}: is not defined in the add-on's schema" for key in values if key not in properties]
    for key, value in values.items():
        if isinstance(properties.get(key), dict):
            problems += configuration_problems(properties[key], value, f"{path}.{key}")
    return problems
