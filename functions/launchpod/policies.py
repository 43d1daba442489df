"""Every Lambda's IAM policy, written once: the CDK stack deploys these statements and the sandbox
evaluates every AWS call against the same statements, so the two cannot drift.

``function_statements(spec, deployment)`` turns a registry entry into IAM statements (plain JSON
dicts). ``deployment`` carries the ARNs a stack knows: CDK passes tokens, the sandbox concrete values.
Scoping follows AWS's Service Authorization Reference: an action with no resource type only accepts
``"Resource": "*"`` (listed in WILDCARD_REASONS with why); every other action is scoped to this
account and region, and to Launchpod's own names where Launchpod chooses them.

Roles Launchpod creates at run time carry the permissions boundary ``boundary_document`` describes,
and every IAM write is conditioned on that boundary (``iam:PermissionsBoundary``), so no function can
widen its own role, the kube-access role or any role it did not create with the boundary.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from launchpod.registry import FunctionSpec, TableSpec, function_name

Statement = dict[str, Any]

_NO_RESOURCE_TYPE = "IAM defines no resource type for this action, so it only accepts Resource '*'"

# action -> why it must be granted on "*" (the Service Authorization Reference lists no resource type).
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
    "iam:ListOpenIDConnectProviders": _NO_RESOURCE_TYPE + " (read-only list)",
    "iam:ListRoles": _NO_RESOURCE_TYPE + " (read-only list; delete-cluster finds the cluster's roles by tag)",
    "dynamodb:ListStreams": _NO_RESOURCE_TYPE + " (added by CDK's DynamoEventSource for the stream consumer)",
    "xray:PutTraceSegments": _NO_RESOURCE_TYPE + " (X-Ray active tracing, added by CDK)",
    "xray:PutTelemetryRecords": _NO_RESOURCE_TYPE + " (X-Ray active tracing, added by CDK)",
}

# Why each scoped-but-wildcarded ARN pattern cannot be narrower.
PATTERN_REASONS: dict[str, str] = {
    "eks": "EKS clusters are created by Launchpod at run time or imported by name, so their names and the "
    "add-on/access-entry IDs are not known at deploy time; scoped to this account and region",
    "sagemaker": "HyperPod clusters are created at run time or imported by name, their scheduler configs and "
    "compute quotas get ids SageMaker generates, and training plans are bought outside Launchpod; scoped to this "
    "account and region",
    "ec2": "VPCs, subnets, gateways, routes and addresses are created at run time with generated IDs; "
    "scoped to this account and region",
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
    "to those log groups and their streams",
    "execute-api": "WebSocket connection ids are made at run time; scoped to Launchpod's own WebSocket stage",
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
    "iam:UpdateAssumeRolePolicy",  # iam:PermissionsBoundary applies (Service Authorization Reference, IAM)
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
    if service == "eks":
        return [
            f"arn:{p}:eks:{r}:{a}:{kind}/*" for kind in ("cluster", "addon", "access-entry", "podidentityassociation")
        ]
    if action == "sagemaker:DescribeTrainingPlan":
        return [f"arn:{p}:sagemaker:{r}:{a}:training-plan/*"]
    if action == "sagemaker:UpdateCluster":
        # An instance group on a training plan: SageMaker authorizes UpdateCluster against the plan as well
        # as the cluster (Service Authorization Reference, UpdateCluster: cluster*, training-plan).
        return [f"arn:{p}:sagemaker:{r}:{a}:{kind}/*" for kind in ("cluster", "training-plan")]
    if (service == "sagemaker" and "Mlflow" in name) or service == "sagemaker-mlflow":
        # sagemaker-mlflow (the tracking server's MLflow REST API) acts on the server too (Service
        # Authorization Reference: resource type mlflow-tracking-server)
        return [f"arn:{p}:sagemaker:{r}:{a}:mlflow-tracking-server/*"]
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
    if action == "ec2:CreateTags":
        # Tags only while creating (tag-on-create): never re-tag someone else's resource.
        return {"StringEquals": {"ec2:CreateAction": list(EC2_CREATE_ACTIONS)}}
    return None


EC2_CREATE_ACTIONS = (
    "CreateVpc",
    "CreateSubnet",
    "CreateInternetGateway",
    "AllocateAddress",
    "CreateNatGateway",
    "CreateRouteTable",
    "CreateSecurityGroup",
)


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
        condition = _conditions(action, d)
        key = (tuple(resources_for(action, d)), repr(condition))
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


def boundary_document(d: Deployment) -> dict[str, Any]:
    """The most any role Launchpod creates may ever do: what the EKS cluster role (AmazonEKSClusterPolicy),
    the HyperPod execution role, the add-ons' pod identity roles (the training operator reads its
    cluster's nodes; Container Insights writes logs, metrics and traces; the inference operator's KEDA
    reads CloudWatch metrics for autoscaling), the inference operator's execution role and the checkpoint
    role need,
    and no IAM beyond the load-balancer service-linked role EKS makes."""
    p = d.partition
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "ClusterAndNodes",
                "Effect": "Allow",
                "Action": [
                    "autoscaling:DescribeAutoScalingGroups",
                    "autoscaling:UpdateAutoScalingGroup",
                    "cloudwatch:GetMetricData",
                    "cloudwatch:PutMetricData",
                    "ec2:*",
                    "ecr:BatchGetImage",
                    "ecr:GetAuthorizationToken",
                    "ecr:GetDownloadUrlForLayer",
                    "eks-auth:AssumeRoleForPodIdentity",
                    "elasticloadbalancing:*",
                    "fsx:DescribeFileSystems",
                    "fsx:DescribeVolumes",
                    "kms:CreateGrant",
                    "kms:DescribeKey",
                    "logs:CreateLogGroup",
                    "logs:CreateLogStream",
                    "logs:DescribeLogStreams",
                    "logs:PutLogEvents",
                    "logs:PutRetentionPolicy",
                    "sagemaker:DescribeClusterNode",
                ],
                "Resource": "*",
            },
            {
                # What CloudWatchAgentServerPolicy and AWSXrayWriteOnlyAccess grant the observability
                # add-on beyond the statement above (its agent's SSM configuration parameters included).
                "Sid": "ContainerInsights",
                "Effect": "Allow",
                "Action": [
                    "logs:DescribeLogGroups",
                    "ssm:GetParameter",
                    "xray:GetSamplingRules",
                    "xray:GetSamplingStatisticSummaries",
                    "xray:GetSamplingTargets",
                    "xray:PutTelemetryRecords",
                    "xray:PutTraceSegments",
                ],
                "Resource": "*",
            },
            {
                # The inference operator's execution role: its watcher calls UpdateClusterInference at start
                # and it tags the TLS certificates it writes to the shared bucket (launchpod.domain.features
                # .inference_policy cites AWS's pages); without these the boundary would cap the role below
                # what the operator needs.
                "Sid": "InferenceOperator",
                "Effect": "Allow",
                "Action": [
                    "ecr:BatchCheckLayerAvailability",
                    "sagemaker:DescribeClusterInference",
                    "sagemaker:UpdateClusterInference",
                ],
                "Resource": "*",
            },
            {
                "Sid": "InferenceCertificates",
                "Effect": "Allow",
                "Action": "s3:PutObjectTagging",
                "Resource": f"arn:{p}:s3:::{d.bucket}/*",
            },
            {
                "Sid": "SharedBucket",
                "Effect": "Allow",
                "Action": [
                    "s3:AbortMultipartUpload",
                    "s3:DeleteObject",
                    "s3:GetObject",
                    "s3:ListBucket",
                    "s3:PutObject",
                ],
                "Resource": [f"arn:{p}:s3:::{d.bucket}", f"arn:{p}:s3:::{d.bucket}/*"],
            },
            {
                "Sid": "LoadBalancerServiceLinkedRole",
                "Effect": "Allow",
                "Action": "iam:CreateServiceLinkedRole",
                "Resource": "*",
                "Condition": {"StringEquals": {"iam:AWSServiceName": "elasticloadbalancing.amazonaws.com"}},
            },
        ],
    }
