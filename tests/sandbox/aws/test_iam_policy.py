"""The sandbox's IAM policy evaluation: the rules of AWS's policy evaluation logic that Launchpod's
policies rely on, each shown with a request AWS allows and one it refuses."""

from __future__ import annotations

from sandbox.aws.iam.policy import AuthzRequest, evaluate

ROLE = "arn:aws:iam::123456789012:role/launchpod-c1-eks"
BOUNDARY = "arn:aws:iam::123456789012:policy/launchpod-created-role-boundary"


def _allow(action, resource, condition=None, effect="Allow"):
    statement = {"Effect": effect, "Action": action, "Resource": resource}
    if condition:
        statement["Condition"] = condition
    return statement


def test_an_action_without_a_resource_type_needs_resource_star():
    scoped = [_allow("eks:CreateCluster", "arn:aws:eks:us-east-1:123456789012:cluster/*")]
    assert evaluate(scoped, AuthzRequest("eks:CreateCluster", "*")) == "ImplicitDeny"
    assert evaluate([_allow("eks:CreateCluster", "*")], AuthzRequest("eks:CreateCluster", "*")) == "Allow"


def test_actions_match_case_insensitively_and_resources_case_sensitively():
    policy = [_allow("iam:getrole", "arn:aws:iam::123456789012:role/launchpod-*")]
    assert evaluate(policy, AuthzRequest("iam:GetRole", ROLE)) == "Allow"
    assert evaluate(policy, AuthzRequest("iam:GetRole", ROLE.replace("launchpod", "Launchpod"))) == "ImplicitDeny"


def test_explicit_deny_wins_over_any_allow():
    policy = [_allow("s3:*", "*"), _allow("s3:DeleteObject", "arn:aws:s3:::b/*", effect="Deny")]
    assert evaluate(policy, AuthzRequest("s3:DeleteObject", "arn:aws:s3:::b/k")) == "ExplicitDeny"
    assert evaluate(policy, AuthzRequest("s3:GetObject", "arn:aws:s3:::b/k")) == "Allow"


def test_not_action_and_not_resource():
    policy = [{"Effect": "Allow", "NotAction": "iam:*", "NotResource": "arn:aws:s3:::secret/*"}]
    assert evaluate(policy, AuthzRequest("s3:GetObject", "arn:aws:s3:::b/k")) == "Allow"
    assert evaluate(policy, AuthzRequest("iam:CreateRole", ROLE)) == "ImplicitDeny"
    assert evaluate(policy, AuthzRequest("s3:GetObject", "arn:aws:s3:::secret/k")) == "ImplicitDeny"


def test_pass_role_only_to_the_services_named():
    policy = [_allow("iam:PassRole", ROLE, {"StringEquals": {"iam:PassedToService": ["eks.amazonaws.com"]}})]
    to = lambda service: AuthzRequest("iam:PassRole", ROLE, {"iam:passedtoservice": (service,)})  # noqa: E731
    assert evaluate(policy, to("eks.amazonaws.com")) == "Allow"
    assert evaluate(policy, to("pods.eks.amazonaws.com")) == "ImplicitDeny"


def test_role_writes_need_the_boundary_and_attach_needs_a_listed_policy():
    policy = [
        _allow(
            "iam:AttachRolePolicy",
            "arn:aws:iam::123456789012:role/launchpod-*",
            {
                "StringEquals": {"iam:PermissionsBoundary": BOUNDARY},
                "ArnEquals": {"iam:PolicyARN": ["arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"]},
            },
        )
    ]
    ok = {"iam:permissionsboundary": (BOUNDARY,), "iam:policyarn": ("arn:aws:iam::aws:policy/AmazonEKSClusterPolicy",)}
    admin = {**ok, "iam:policyarn": ("arn:aws:iam::aws:policy/AdministratorAccess",)}
    no_boundary = {"iam:policyarn": ok["iam:policyarn"]}
    assert evaluate(policy, AuthzRequest("iam:AttachRolePolicy", ROLE, ok)) == "Allow"
    assert evaluate(policy, AuthzRequest("iam:AttachRolePolicy", ROLE, admin)) == "ImplicitDeny"
    assert evaluate(policy, AuthzRequest("iam:AttachRolePolicy", ROLE, no_boundary)) == "ImplicitDeny"


def test_set_qualifiers_on_tag_keys():
    only_cluster_tags = [_allow("eks:TagResource", "*", {"ForAllValues:StringLike": {"aws:TagKeys": ["launchpod:*"]}})]
    some_owner_tag = [_allow("eks:TagResource", "*", {"ForAnyValue:StringEquals": {"aws:TagKeys": ["owner"]}})]
    ours = AuthzRequest("eks:TagResource", "*", {"aws:tagkeys": ("launchpod:cluster", "launchpod:managed")})
    mixed = AuthzRequest("eks:TagResource", "*", {"aws:tagkeys": ("launchpod:cluster", "owner")})
    untagged = AuthzRequest("eks:TagResource", "*")
    assert evaluate(only_cluster_tags, ours) == "Allow"
    assert evaluate(only_cluster_tags, mixed) == "ImplicitDeny"
    assert evaluate(only_cluster_tags, untagged) == "Allow"  # ForAllValues holds for no values
    assert evaluate(some_owner_tag, mixed) == "Allow"
    assert evaluate(some_owner_tag, untagged) == "ImplicitDeny"


def test_if_exists_null_and_negated_operators():
    if_exists = [_allow("s3:PutObject", "*", {"StringEqualsIfExists": {"s3:x-amz-acl": "private"}})]
    assert evaluate(if_exists, AuthzRequest("s3:PutObject", "arn:aws:s3:::b/k")) == "Allow"
    assert evaluate(
        if_exists, AuthzRequest("s3:PutObject", "arn:aws:s3:::b/k", {"s3:x-amz-acl": ("public-read",)})
    ) == ("ImplicitDeny")
    must_tag = [_allow("ec2:CreateVpc", "*", {"Null": {"aws:RequestTag/launchpod:cluster": "false"}})]
    assert evaluate(must_tag, AuthzRequest("ec2:CreateVpc", "*")) == "ImplicitDeny"
    tagged = {"aws:requesttag/launchpod:cluster": ("c1",)}
    assert evaluate(must_tag, AuthzRequest("ec2:CreateVpc", "*", tagged)) == "Allow"
    not_prod = [_allow("ec2:CreateVpc", "*", {"StringNotEquals": {"aws:RequestTag/env": "prod"}})]
    assert evaluate(not_prod, AuthzRequest("ec2:CreateVpc", "*", {"aws:requesttag/env": ("prod",)})) == "ImplicitDeny"
    assert evaluate(not_prod, AuthzRequest("ec2:CreateVpc", "*")) == "Allow"
