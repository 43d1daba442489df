"""A role's trust policy, read as IAM reads it when a service asks to assume the role: a statement that Allows
the service principal ("Principal": {"Service": ...}, a string or a list; IAM JSON policy elements: Principal,
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html)."""

from __future__ import annotations

import json
from typing import Any


def role_by_arn(account: str, role_arn: str) -> Any | None:
    """The account's role with ``role_arn``, or None."""
    from moto.iam.models import iam_backends

    return next((r for r in list(iam_backends[account]["global"].roles.values()) if r.arn == role_arn), None)


def trusts_service(role: Any, service: str) -> bool:
    """Whether the role's trust policy allows ``service`` (such as ``sagemaker.amazonaws.com``) to assume it."""
    trust = role.assume_role_policy_document
    document = json.loads(trust) if isinstance(trust, str) else trust
    statements = document.get("Statement") or []
    for statement in statements if isinstance(statements, list) else [statements]:
        services = (statement.get("Principal") or {}).get("Service") or []
        if statement.get("Effect") == "Allow" and service in ([services] if isinstance(services, str) else services):
            return True
    return False
