"""The permissions boundary of every role Launchpod creates: each role's own policy fits inside it, it
names actions rather than whole services, and a role inside it can write no IAM, assume no role and set
no ownership tag; and the roles trust only the services AWS documents for them."""

from __future__ import annotations

import json

import pytest
from launchpod import policies, registry
from launchpod.adapters.aws import iam as iam_adapter
from launchpod.domain import dependencies, features, hyperpod_observability, mlflow, ownership
from launchpod.domain.clusters import hyperpod
from launchpod.domain.dependencies import lbc
from launchpod.domain.errors import PermanentError
from launchpod.domain.instance_groups import autoscaling
from moto.iam.aws_managed_policies import aws_managed_policies_data

from sandbox.aws.iam.policy import AuthzRequest, evaluate
from tests.sandbox.aws.test_iam_escalation import ACCOUNT, DEPLOYMENT, REGION

BUCKET = DEPLOYMENT.bucket
HYPERPOD = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/abcdef012345"
BOUNDARY = policies.boundary_document(DEPLOYMENT)["Statement"]
MANAGED = json.loads(aws_managed_policies_data)


def _managed(name: str) -> dict:
    return MANAGED[name]["Document"] if "Document" in MANAGED[name] else MANAGED[name]


# Every policy a role Launchpod creates carries (inline, or AWS managed and attached).
ROLE_POLICIES = {
    "EKS cluster role (AmazonEKSClusterPolicy)": _managed(policies.EKS_CLUSTER_POLICY),
    "HyperPod execution role": hyperpod.execution_role_policy(BUCKET, "c1"),
    "Karpenter role": autoscaling.role_policy(HYPERPOD),
    "MLflow tracking server": mlflow.role_policy(BUCKET),
    "training operator": features.operator_policy(HYPERPOD),
    "inference operator": features.inference_policy(HYPERPOD, BUCKET),
    "checkpoint IRSA role": features.checkpoint_policy(BUCKET, "c1"),
    "Mountpoint CSI driver": dependencies.pod_identity_policy("shared-bucket-read-write", BUCKET),
    "FSx CSI driver": dependencies.pod_identity_policy("fsx", BUCKET),
    "AWS Load Balancer Controller": lbc.iam_policy(),
    **{f"observability ({n})": _managed(n) for n in policies.CONTAINER_INSIGHTS_POLICIES},
    "HyperPod observability collector": hyperpod_observability.policy(
        f"arn:aws:aps:{REGION}:{ACCOUNT}:workspace/ws-0123abcd"
    ),
    "Amazon Managed Grafana workspace role": hyperpod_observability.grafana_policy(
        f"arn:aws:aps:{REGION}:{ACCOUNT}:workspace/ws-0123abcd"
    ),
}


def _list(value):
    return [value] if isinstance(value, str) else list(value)


def _sample(resource: str) -> str:
    """A concrete ARN the role's resource pattern covers (every wildcard a plain segment)."""
    return resource if resource == "*" else resource.replace("*", "x")


@pytest.mark.parametrize("role", ROLE_POLICIES, ids=str)
def test_every_role_launchpod_creates_stays_inside_the_boundary(role):
    outside = []
    for statement in ROLE_POLICIES[role]["Statement"]:
        if statement.get("Effect") != "Allow":
            continue
        for action in _list(statement["Action"]):
            for resource in _list(statement.get("Resource", "*")):
                # The role's own conditions only narrow it: the request is given as the role would meet them.
                context = {"aws:tagkeys": ("elbv2.k8s.aws/cluster",)}
                for key, value in (statement.get("Condition") or {}).get("StringEquals", {}).items():
                    context[key.lower()] = (_list(value)[0],)
                if evaluate(BOUNDARY, AuthzRequest(action, _sample(resource), context)) != "Allow":
                    outside.append((action, resource))
    assert outside == [], f"{role} is granted what the boundary does not allow"


def test_the_boundary_names_actions_not_whole_services():
    actions = [a for s in BOUNDARY if s["Effect"] == "Allow" for a in _list(s["Action"])]
    wildcards = sorted(a for a in actions if "*" in a)
    assert wildcards == ["ec2:Describe*", "elasticloadbalancing:Describe*"]
    assert "kms:CreateGrant" not in actions
    [ssm] = [s for s in BOUNDARY if "ssm:GetParameter" in _list(s["Action"])]
    assert ssm["Resource"] == "arn:aws:ssm:*:*:parameter/AmazonCloudWatch-*"
    # IAM's limit on a managed policy, whitespace excluded (IAM User Guide, "IAM and AWS STS quotas").
    assert len(json.dumps(policies.boundary_document(DEPLOYMENT), separators=(",", ":"))) < 6144


@pytest.mark.parametrize(
    "action,resource",
    [
        ("iam:CreateRole", f"arn:aws:iam::{ACCOUNT}:role/launchpod-x"),
        ("iam:PutRolePolicy", f"arn:aws:iam::{ACCOUNT}:role/launchpod-x"),
        ("iam:AttachRolePolicy", f"arn:aws:iam::{ACCOUNT}:role/launchpod-x"),
        ("iam:UpdateAssumeRolePolicy", f"arn:aws:iam::{ACCOUNT}:role/launchpod-x"),
        ("iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/launchpod-x"),
        ("iam:CreateUser", f"arn:aws:iam::{ACCOUNT}:user/x"),
        ("sts:AssumeRole", f"arn:aws:iam::{ACCOUNT}:role/launchpod-kube-access"),
        ("eks:CreateAccessEntry", f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c1"),
        ("eks:AssociateAccessPolicy", f"arn:aws:eks:{REGION}:{ACCOUNT}:access-entry/c1/*"),
        ("eks:TagResource", f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c1"),
        ("sagemaker:AddTags", HYPERPOD),
        ("sagemaker:DeleteCluster", HYPERPOD),
        ("ec2:DeleteVpc", f"arn:aws:ec2:{REGION}:{ACCOUNT}:vpc/vpc-1"),
        ("ec2:RunInstances", f"arn:aws:ec2:{REGION}:{ACCOUNT}:instance/*"),
        ("kms:CreateGrant", f"arn:aws:kms:{REGION}:{ACCOUNT}:key/k"),
        ("ssm:GetParameter", f"arn:aws:ssm:{REGION}:{ACCOUNT}:parameter/db-password"),
        ("s3:GetObject", "arn:aws:s3:::someone-elses-bucket/x"),
    ],
)
def test_a_role_inside_the_boundary_can_write_no_iam_nor_reach_beyond_launchpod(action, resource):
    assert evaluate(BOUNDARY, AuthzRequest(action, resource, {})) != "Allow"


@pytest.mark.parametrize(
    "action", ["ec2:CreateTags", "ec2:DeleteTags", "elasticloadbalancing:AddTags", "elasticloadbalancing:RemoveTags"]
)
def test_no_role_inside_the_boundary_can_set_or_remove_launchpods_ownership_tags(action):
    tags = {"aws:tagkeys": ("launchpod:managed-by",), "aws:requesttag/launchpod:managed-by": ("launchpod",)}
    resource = f"arn:aws:ec2:{REGION}:{ACCOUNT}:vpc/vpc-theirs"
    assert evaluate(BOUNDARY, AuthzRequest(action, resource, tags)) == "ExplicitDeny"
    assert evaluate(BOUNDARY, AuthzRequest(action, resource, {"aws:tagkeys": ("Name",)})) == "Allow"


def test_no_function_may_rewrite_a_roles_trust():
    # There is no IAM condition key on a trust policy's content: the trust of a role is set once, by the
    # adapter below, at CreateRole; no function may change it afterwards.
    assert [s.name for s in registry.FUNCTIONS if "iam:UpdateAssumeRolePolicy" in s.actions] == []


def test_roles_trust_only_the_services_aws_documents_and_this_accounts_oidc_providers():
    for service in sorted(ownership.TRUSTED_SERVICES):
        assert ownership.untrusted_principals(json.loads(iam_adapter.trust_policy(service)), ACCOUNT) == []
    with pytest.raises(PermanentError):
        iam_adapter.trust_policy("ec2.amazonaws.com")
    provider = f"arn:aws:iam::{ACCOUNT}:oidc-provider/oidc.eks.{REGION}.amazonaws.com/id/ABC"
    irsa = features.checkpoint_trust(provider, f"oidc.eks.{REGION}.amazonaws.com/id/ABC")
    assert ownership.untrusted_principals(irsa, ACCOUNT) == []
    outside = {
        "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::999999999999:root"}, "Action": "sts:AssumeRole"},
            {"Effect": "Allow", "Principal": {"Federated": "arn:aws:iam::999999999999:oidc-provider/x"}},
            {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"},
        ]
    }
    assert ownership.untrusted_principals(outside, ACCOUNT) == [
        "AWS:arn:aws:iam::999999999999:root",
        "Federated:arn:aws:iam::999999999999:oidc-provider/x",
        "*",
    ]
