"""Least privilege: the resources each registry action may touch, and why some need "*".

The registry lists the actions a function's adapters call; this module scopes them to ARNs in the
stack's account and region (and to names starting with the resource prefix where Launchpod chooses
the name). Actions that IAM does not scope by resource are listed in WILDCARD_REASONS, the one place
that explains every ``"Resource": "*"``; the infra tests fail on any other.
"""

from __future__ import annotations

from collections import defaultdict

from aws_cdk import Aws
from aws_cdk import aws_iam as iam

_P, _R, _A = Aws.PARTITION, Aws.REGION, Aws.ACCOUNT_ID

_NO_RESOURCE_TYPE = "IAM defines no resource type for this action, so it only accepts Resource '*'"

# action -> why it must be granted on "*"
WILDCARD_REASONS: dict[str, str] = {
    "fsx:DescribeFileSystems": "FSx DescribeFileSystems supports no resource-level permissions (read-only)",
    "states:SendTaskSuccess": "a callback task's token is not a resource IAM can scope (only activities are); "
    "the token itself, parked on the cluster's record, is the capability",
    **{
        a: _NO_RESOURCE_TYPE + " (read-only EC2 describe call)"
        for a in (
            "ec2:DescribeVpcs",
            "ec2:DescribeSubnets",
            "ec2:DescribeAvailabilityZones",
            "ec2:DescribeRouteTables",
            "ec2:DescribeInternetGateways",
            "ec2:DescribeNatGateways",
            "ec2:DescribeAddresses",
            "ec2:DescribeInstanceTypeOfferings",
            "ec2:DescribeSecurityGroups",
            "ec2:DescribeInstanceTypes",
        )
    },
    "eks:DescribeAddonVersions": _NO_RESOURCE_TYPE + " (read-only add-on catalogue)",
    "sagemaker:ListClusters": _NO_RESOURCE_TYPE + " (read-only list)",
    "iam:ListOpenIDConnectProviders": _NO_RESOURCE_TYPE + " (read-only list)",
    "dynamodb:ListStreams": _NO_RESOURCE_TYPE + " (added by CDK's DynamoEventSource for the stream consumer)",
    "sts:GetCallerIdentity": _NO_RESOURCE_TYPE + "; it also needs no permission at all",
    "xray:PutTraceSegments": _NO_RESOURCE_TYPE + " (X-Ray active tracing, added by CDK)",
    "xray:PutTelemetryRecords": _NO_RESOURCE_TYPE + " (X-Ray active tracing, added by CDK)",
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

# Why each scoped-but-wildcarded ARN pattern cannot be narrower (keys are ARN tails after account).
PATTERN_REASONS: dict[str, str] = {
    "eks": "EKS clusters are created by Launchpod at run time or imported by name, so their names and the "
    "add-on/access-entry IDs are not known at deploy time; scoped to this account and region",
    "sagemaker": "HyperPod clusters are created at run time or imported by name; scoped to this account and region",
    "ec2": "VPCs, subnets, gateways, routes and addresses are created at run time with generated IDs; "
    "scoped to this account and region",
    "iam-role": "roles Launchpod creates for clusters are named '<prefix>-...'; scoped to that prefix only",
    "oidc": "one IAM OIDC provider per cluster issuer, created at run time; scoped to this account's providers",
    "states": "executions are named by operation id at run time; scoped to Launchpod's own state machines",
    "s3": "object keys (lifecycle scripts per cluster) are chosen at run time; scoped to the shared bucket",
}


def nag_form(resource: str) -> str:
    """How cdk-nag prints a resource string built from pseudo-parameter tokens."""
    for token, text in NAG_FORM.items():
        resource = resource.replace(token, text)
    return resource


def shared_bucket_name(prefix: str) -> str:
    # HyperPod reads lifecycle scripts only from buckets named "sagemaker-..." (registry.SHARED_BUCKET_PREFIX).
    return f"sagemaker-{prefix}-{_A}-{_R}"


def scoped_patterns(actions: tuple[str, ...], prefix: str) -> dict[str, str]:
    """nag-form wildcard ARN -> reason, for every non-"*" wildcard resource these actions get."""
    result: dict[str, str] = {}
    for action in actions:
        service, name = action.split(":", 1)
        key = {"eks": "eks", "sagemaker": "sagemaker", "ec2": "ec2", "states": "states", "s3": "s3"}.get(service)
        if service == "iam":
            key = "oidc" if "OpenIDConnectProvider" in name else "iam-role"
        for resource in resources_for(action, prefix):
            if resource != "*" and "*" in resource and key:
                result[nag_form(resource)] = PATTERN_REASONS[key]
    return result


def _eks() -> list[str]:
    return [
        f"arn:{_P}:eks:{_R}:{_A}:cluster/*",
        f"arn:{_P}:eks:{_R}:{_A}:addon/*",
        f"arn:{_P}:eks:{_R}:{_A}:access-entry/*",
    ]


def resources_for(action: str, prefix: str) -> list[str]:
    """The ARNs ``action`` is granted on; ["*"] only for actions listed in WILDCARD_REASONS."""
    if action in WILDCARD_REASONS:
        return ["*"]
    service, name = action.split(":", 1)
    if service == "eks":
        # Clusters are created by Launchpod or imported by name, so any cluster in this account/region.
        return _eks()
    if service == "sagemaker":
        return [f"arn:{_P}:sagemaker:{_R}:{_A}:cluster/*"]
    if service == "ec2":
        # VPCs, subnets, gateways and addresses Launchpod creates get generated IDs: scope by account/region.
        return [f"arn:{_P}:ec2:{_R}:{_A}:*"]
    if service == "iam" and "OpenIDConnectProvider" in name:
        return [f"arn:{_P}:iam::{_A}:oidc-provider/*"]
    if service == "iam":
        # Roles Launchpod creates are named "<prefix>-...": it cannot touch anyone else's roles.
        return [f"arn:{_P}:iam::{_A}:role/{prefix}-*"]
    if service == "s3" and "Object" in name:
        return [f"arn:{_P}:s3:::{shared_bucket_name(prefix)}/*"]
    if service == "s3":
        return [f"arn:{_P}:s3:::{shared_bucket_name(prefix)}"]
    if service == "states" and name in ("StopExecution", "DescribeExecution"):
        return [f"arn:{_P}:states:{_R}:{_A}:execution:{prefix}-*:*"]
    if service == "states":
        return [f"arn:{_P}:states:{_R}:{_A}:stateMachine:{prefix}-*"]
    return ["*"]  # unknown: the infra tests reject it until it is scoped or explained


def statements(actions: tuple[str, ...], prefix: str, skip: set[str] = frozenset()) -> list[iam.PolicyStatement]:
    """One statement per distinct resource list; PassRole gets the services it may pass roles to."""
    grouped: dict[tuple[str, ...], list[str]] = defaultdict(list)
    result: list[iam.PolicyStatement] = []
    for action in actions:
        if action in skip:
            continue
        if action == "iam:PassRole":
            result.append(
                iam.PolicyStatement(
                    actions=[action],
                    resources=resources_for(action, prefix),
                    conditions={
                        "StringEquals": {"iam:PassedToService": ["eks.amazonaws.com", "sagemaker.amazonaws.com"]}
                    },
                )
            )
            continue
        grouped[tuple(resources_for(action, prefix))].append(action)
    for resources, acts in grouped.items():
        result.insert(0, iam.PolicyStatement(actions=sorted(acts), resources=list(resources)))
    return result
