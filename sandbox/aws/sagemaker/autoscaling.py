"""HyperPod-managed Karpenter, the AWS side: UpdateCluster's ``AutoScaling`` and ``BatchAddClusterNodes``.

* ``AutoScaling{Mode: Enable, AutoScalerType: Karpenter}`` needs an EKS-orchestrated cluster created with
  continuous provisioning (``NodeProvisioningMode: Continuous``, "built on HyperPod's continuous
  provisioning"; the prerequisite is set "when creating a SageMaker HyperPod cluster",
  https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-autoscaling.html; AWS documents
  no switch of an existing cluster, so the same request cannot supply it) and a ``ClusterRole``
  (ValidationException otherwise). AutoScaling is ``Creating`` for
  ``autoscaling_enable`` simulated seconds while HyperPod installs Karpenter, then ``InService`` when
  the role trusts ``hyperpod.sagemaker.amazonaws.com`` and may ``sagemaker:BatchAddClusterNodes`` and
  ``sagemaker:BatchDeleteClusterNodes`` (the role the IAM guide describes,
  https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-autoscaling-iam.html), or
  ``Failed`` with a FailureMessage naming what the role lacks. ``Mode: Disable`` is ``Deleting`` for
  the same time, then AutoScaling is gone.
* ``BatchAddClusterNodes`` (continuous provisioning only) raises a group's target by
  ``IncrementTargetCountBy`` (1..50); the instances launch as a scale-up does.
"""

from __future__ import annotations

import fnmatch
import json
from typing import Any
from urllib.parse import unquote

AUTOSCALING_SECONDS = 300.0
TRUSTED = "hyperpod.sagemaker.amazonaws.com"
NEEDED = ("sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes")


def _document(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    text = unquote(str(raw or "{}"))
    try:
        return dict(json.loads(text))
    except ValueError:
        return {}


def _statements(doc: dict[str, Any]) -> list[dict[str, Any]]:
    statements = doc.get("Statement") or []
    return [statements] if isinstance(statements, dict) else list(statements)


def _listed(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value or [])


def role_problem(account: str, role_arn: str) -> str | None:
    """Why HyperPod could not use ``role_arn`` for autoscaling (None when it can)."""
    try:
        from moto.iam.models import iam_backends

        iam = iam_backends[account]["global"]
        role = next((r for r in list(iam.roles.values()) if r.arn == role_arn), None)
    except Exception:  # the IAM emulation is unavailable: do not judge
        return None
    if role is None:
        return f"The ClusterRole {role_arn} does not exist."
    trust = _document(role.assume_role_policy_document)
    trusted = any(
        s.get("Effect") == "Allow"
        and TRUSTED in _listed((s.get("Principal") or {}).get("Service"))
        and "sts:AssumeRole" in _listed(s.get("Action"))
        for s in _statements(trust)
    )
    if not trusted:
        return f"The ClusterRole {role_arn} does not trust {TRUSTED}; HyperPod cannot assume it."
    documents = [_document(p) for p in getattr(role, "policies", {}).values()]
    for managed in getattr(role, "managed_policies", {}).values():
        version = next((v for v in getattr(managed, "versions", []) if getattr(v, "is_default", False)), None)
        if version is not None:
            documents.append(_document(version.document))
    allowed = [
        a
        for s in (s for d in documents for s in _statements(d))
        if s.get("Effect") == "Allow"
        for a in _listed(s.get("Action"))
    ]
    missing = [n for n in NEEDED if not any(fnmatch.fnmatch(n.lower(), a.lower()) for a in allowed)]
    if missing:
        return f"The ClusterRole {role_arn} is not allowed to {' and '.join(missing)}; Karpenter cannot scale nodes."
    return None


def check_request(params: dict[str, Any], settings: dict[str, Any], eks: bool) -> None:
    """ValidationException text for an AutoScaling request UpdateCluster cannot take; None when it can."""
    from sandbox.aws.sagemaker.common import invalid

    config = params.get("AutoScaling") or {}
    if config.get("Mode") != "Enable":
        return
    if not eks:
        raise invalid("AutoScaling is supported only for clusters orchestrated by Amazon EKS.")
    if config.get("AutoScalerType", "Karpenter") != "Karpenter":
        raise invalid(f"AutoScalerType {config.get('AutoScalerType')} is not supported; use Karpenter.")
    if settings.get("NodeProvisioningMode") != "Continuous":
        raise invalid("AutoScaling with Karpenter requires a cluster created with NodeProvisioningMode Continuous.")
    if not (params.get("ClusterRole") or settings.get("ClusterRole")):
        raise invalid("ClusterRole is required when AutoScaling is enabled.")


def autoscaling_view(cluster: Any, now: float) -> dict[str, Any] | None:
    """DescribeCluster's AutoScaling: Mode, type, Status and FailureMessage as of ``now``."""
    config = cluster.settings.get("AutoScaling")
    if not config:
        return None
    state = cluster.autoscaling or {}
    settling = now - state.get("since", now) < AUTOSCALING_SECONDS
    if config.get("Mode") == "Disable":
        return {**config, "Status": "Deleting"} if settling else None
    if settling:
        return {**config, "Status": "Creating"}
    if state.get("failure"):
        return {**config, "Status": "Failed", "FailureMessage": state["failure"]}
    return {**config, "Status": "InService"}


def enabled(cluster: Any, now: float) -> bool:
    view = autoscaling_view(cluster, now)
    return bool(view) and view["Status"] == "InService"  # type: ignore[index]
