"""What the sandbox authorizes for one AWS call: the call's action on the ARNs the Service
Authorization Reference names for it, and the permissions AWS checks beyond it (PassRole,
tag-on-create, service-linked roles, HyperPod's on-behalf calls)."""

from __future__ import annotations

from sandbox.aws.iam import authz

ACCOUNT, REGION = "123456789012", "us-east-1"


class NoAccount(authz.Lookup):
    """An account with no roles yet and one HyperPod cluster on EKS cluster c1."""

    def role_boundary(self, role_name):
        return None

    def role_exists(self, role_name):
        return False

    def hyperpod_eks_cluster(self, name):
        return f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c1" if name == "hp" else None


def _checks(prefix, operation, **params):
    call = authz.Call(prefix=prefix, operation=operation, params=params, region=REGION, account=ACCOUNT)
    return [(c.request.action, c.request.resource, c.reason) for c in authz.checks(call, NoAccount())]


def test_resources_follow_the_service_authorization_reference():
    assert _checks("eks", "CreateCluster", name="c1", roleArn="arn:aws:iam::123456789012:role/r")[0] == (
        "eks:CreateCluster",
        "*",
        "call",
    )
    assert _checks("eks", "DescribeAddon", clusterName="c1", addonName="coredns") == [
        ("eks:DescribeAddon", f"arn:aws:eks:{REGION}:{ACCOUNT}:addon/c1/coredns/*", "call")
    ]
    assert _checks("iam", "ListRoles") == [("iam:ListRoles", "*", "call")]
    assert _checks("iam", "GetRole", RoleName="launchpod-c1-eks") == [
        ("iam:GetRole", f"arn:aws:iam::{ACCOUNT}:role/launchpod-c1-eks", "call")
    ]
    assert _checks("s3", "ListObjectsV2", Bucket="b", Prefix="x/") == [("s3:ListBucket", "arn:aws:s3:::b", "call")]
    assert _checks("s3", "PutObject", Bucket="b", Key="k/1") == [("s3:PutObject", "arn:aws:s3:::b/k/1", "call")]
    assert _checks("dynamodb", "Query", TableName="t", IndexName="by-target") == [
        ("dynamodb:Query", f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/t/index/by-target", "call")
    ]
    execution = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:launchpod-x:op-1"
    assert _checks("states", "StopExecution", executionArn=execution) == [("states:StopExecution", execution, "call")]


def test_ec2_creates_name_the_new_resource_with_a_star_and_the_vpc_they_go_in():
    found = _checks("ec2", "CreateSubnet", VpcId="vpc-1", CidrBlock="10.0.0.0/20")
    assert ("ec2:CreateSubnet", f"arn:aws:ec2:{REGION}:{ACCOUNT}:subnet/*", "call") in found
    assert ("ec2:CreateSubnet", f"arn:aws:ec2:{REGION}:{ACCOUNT}:vpc/vpc-1", "call") in found


def test_dynamodb_transactions_are_authorized_item_by_item():
    found = _checks(
        "dynamodb",
        "TransactWriteItems",
        TransactItems=[{"Put": {"TableName": "ops", "Item": {}}}, {"Update": {"TableName": "clusters", "Key": {}}}],
    )
    assert [a for a, _, _ in found] == ["dynamodb:PutItem", "dynamodb:UpdateItem"]


def test_pass_role_is_checked_for_every_role_handed_to_a_service():
    found = _checks(
        "eks",
        "CreateAddon",
        clusterName="c1",
        addonName="aws-mountpoint-s3-csi-driver",
        podIdentityAssociations=[{"serviceAccount": "s3-csi", "roleArn": "arn:aws:iam::123456789012:role/p"}],
    )
    assert ("iam:PassRole", "arn:aws:iam::123456789012:role/p", "PassRole to pods.eks.amazonaws.com") in found
    groups = [{"InstanceGroupName": "g", "ExecutionRole": "arn:aws:iam::123456789012:role/e"}]
    found = _checks("sagemaker", "CreateCluster", ClusterName="hp", InstanceGroups=groups)
    assert ("iam:PassRole", "arn:aws:iam::123456789012:role/e", "PassRole to sagemaker.amazonaws.com") in found


def test_tags_sent_on_create_need_the_tagging_action():
    found = _checks(
        "eks",
        "CreateAccessEntry",
        clusterName="c1",
        principalArn="arn:aws:iam::123456789012:role/k",
        tags={"launchpod:cluster": "c1"},
    )
    assert [r for a, r, why in found if why == "tag-on-create"] == [f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c1"]
    assert (
        _checks("eks", "CreateAccessEntry", clusterName="c1", principalArn="arn:aws:iam::1:role/k", tags={})[-1][2]
        == "call"
    )
    found = _checks(
        "ec2",
        "CreateVpc",
        CidrBlock="10.0.0.0/16",
        TagSpecifications=[{"ResourceType": "vpc", "Tags": [{"Key": "launchpod:cluster", "Value": "c1"}]}],
    )
    assert ("ec2:CreateTags", f"arn:aws:ec2:{REGION}:{ACCOUNT}:vpc/*", "tag-on-create") in found
    found = _checks(
        "iam",
        "CreateRole",
        RoleName="launchpod-c1-eks",
        AssumeRolePolicyDocument="{}",
        Tags=[{"Key": "launchpod:cluster", "Value": "c1"}],
    )
    assert ("iam:TagRole", f"arn:aws:iam::{ACCOUNT}:role/launchpod-c1-eks", "tag-on-create") in found


def test_first_cluster_in_an_account_needs_the_service_linked_role():
    found = _checks("eks", "CreateCluster", name="c1", roleArn="arn:aws:iam::123456789012:role/r")
    assert (
        "iam:CreateServiceLinkedRole",
        f"arn:aws:iam::{ACCOUNT}:role/aws-service-role/eks.amazonaws.com/AWSServiceRoleForAmazonEKS",
        "service-linked role",
    ) in found


def test_hyperpod_uses_the_callers_permissions_on_the_eks_cluster():
    eks = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c1"
    found = _checks("sagemaker", "CreateCluster", ClusterName="hp", Orchestrator={"Eks": {"ClusterArn": eks}})
    behalf = {(a, r) for a, r, why in found if why == "on behalf of HyperPod"}
    assert ("eks:DescribeCluster", eks) in behalf
    # CreateAccessEntry acts on the cluster (its service-linked role's entry, no group given here)
    assert ("eks:CreateAccessEntry", eks) in behalf
    slr_entry = f"access-entry/c1/role/{ACCOUNT}/AWSServiceRoleForSageMakerHyperPod/*"
    assert ("eks:AssociateAccessPolicy", f"arn:aws:eks:{REGION}:{ACCOUNT}:{slr_entry}") in behalf
    found = _checks("sagemaker", "DeleteCluster", ClusterName="hp")
    assert (
        "eks:DeleteAccessEntry",
        f"arn:aws:eks:{REGION}:{ACCOUNT}:access-entry/c1/*",
        "on behalf of HyperPod",
    ) in found
