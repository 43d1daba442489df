"""Least privilege, deployed: every function's statements come from ``launchpod.policies`` (the one
source the sandbox evaluates too); this module turns them into CDK statements and tells cdk-nag why
each wildcard resource cannot be narrower.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import Aws, Fn, Token
from aws_cdk import aws_iam as iam
from launchpod import policies
from launchpod.policies import PATTERN_REASONS, Deployment
from launchpod.policies import WILDCARD_REASONS as FUNCTION_WILDCARD_REASONS
from launchpod.runtime.settings import shared_bucket_name as _bucket_name

__all__ = ["NAG_FORM", "PATTERN_REASONS", "WILDCARD_REASONS", "nag_form", "scoped_patterns", "shared_bucket_name"]

_P, _R, _A = Aws.PARTITION, Aws.REGION, Aws.ACCOUNT_ID

_NO_RESOURCE_TYPE = "IAM defines no resource type for this action, so it only accepts Resource '*'"

# The functions' reasons, plus what CDK adds to the state machines' roles.
WILDCARD_REASONS: dict[str, str] = {
    **FUNCTION_WILDCARD_REASONS,
    "xray:GetSamplingRules": _NO_RESOURCE_TYPE + " (X-Ray sampling, added by CDK)",
    "xray:GetSamplingTargets": _NO_RESOURCE_TYPE + " (X-Ray sampling, added by CDK)",
    # Step Functions execution logging (CDK adds these to every state machine role that logs).
    **{
        a: "Step Functions log delivery is configured through CloudWatch Logs vended-log APIs, "
        "which IAM does not scope by resource (AWS Step Functions developer guide, 'IAM policies "
        "for logging to CloudWatch Logs')"
        for a in (
            "logs:CreateLogDelivery",
            "logs:GetLogDelivery",
            "logs:UpdateLogDelivery",
            "logs:DeleteLogDelivery",
            "logs:ListLogDeliveries",
            "logs:PutResourcePolicy",
            "logs:DescribeResourcePolicies",
            "logs:DescribeLogGroups",
        )
    },
}

NAG_FORM = {_P: "<AWS::Partition>", _R: "<AWS::Region>", _A: "<AWS::AccountId>"}


def nag_form(resource: str) -> str:
    """How cdk-nag prints a resource string built from pseudo-parameter tokens."""
    for token, text in NAG_FORM.items():
        resource = resource.replace(token, text)
    return resource


def shared_bucket_name(prefix: str) -> str:
    """The deployment's shared bucket, named by ``launchpod.runtime.settings.shared_bucket_name`` in this
    stack's account and region."""
    return _bucket_name(prefix, _A, _R)


def _pattern_key(action: str) -> str | None:
    service, name = action.split(":", 1)
    if action == "iam:CreateServiceLinkedRole":
        return "iam-slr"
    if service == "iam":
        return "oidc" if "OpenIDConnectProvider" in name else "iam-role"
    return {
        "eks": "eks",
        "sagemaker": "sagemaker",
        "ec2": "ec2",
        "states": "states",
        "s3": "s3",
        "logs": "container-logs",
        "aps": "aps",
        "grafana": "grafana",
    }.get(service)


def scoped_patterns(actions: tuple[str, ...], deployment: Deployment) -> dict[str, str]:
    """nag-form wildcard ARN -> reason, for every non-"*" wildcard resource these actions get."""
    result: dict[str, str] = {}
    for action in actions:
        key = _pattern_key(action)
        for resources, _condition in policies.grants(action, deployment):
            for resource in resources:
                if resource != "*" and "*" in resource and key:
                    result[nag_form(resource)] = PATTERN_REASONS[key]
    return result


def statements(spec_statements: list[policies.Statement]) -> list[iam.PolicyStatement]:
    return [iam.PolicyStatement.from_json(compact(s)) for s in spec_statements]


_PSEUDO = {_P: "${AWS::Partition}", _R: "${AWS::Region}", _A: "${AWS::AccountId}"}


def compact(value: Any) -> Any:
    """``value`` with every string built only from pseudo parameters written as one ``Fn::Sub`` instead of the
    ``Fn::Join`` of a list CDK writes: the same ARN in about half the characters. A template may be at most
    1,000,000 bytes (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html),
    and the roles' statements are most of Launchpod's. cdk-nag reads both forms as the same
    ``arn:<AWS::Partition>:...`` string, so its acknowledgements hold. A string holding any other token (a
    table's ARN) stays as CDK writes it."""
    if isinstance(value, dict):
        return {k: compact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [compact(v) for v in value]
    if not isinstance(value, str) or not Token.is_unresolved(value) or "${" in _literal(value):
        return value
    text = value
    for token, sub in _PSEUDO.items():
        text = text.replace(token, sub)
    return value if Token.is_unresolved(text) else Fn.sub(text)


def _literal(value: str) -> str:
    """The string without its tokens: a literal ``${`` would be read by Fn::Sub as a variable."""
    for token in _PSEUDO:
        value = value.replace(token, "")
    return value if not Token.is_unresolved(value) else ""
