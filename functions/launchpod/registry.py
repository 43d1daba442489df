"""The registry: every Lambda, state machine and table Launchpod deploys, described once.

``cdk/`` builds the AWS stack from it and ``sandbox/`` provisions moto from it, so the sandbox can
never drift from what is deployed. Handlers are import strings, as in Lambda's Handler setting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
STATEMACHINES_DIR = ROOT / "statemachines"


@dataclass(frozen=True)
class TableSpec:
    key: str  # logical name; the physical name is given by the deployment
    partition_key: str
    sort_key: str | None = None
    indexes: tuple[tuple[str, str, str | None], ...] = ()  # (index name, partition key, sort key)
    stream: bool = False
    ttl_attribute: str | None = None


@dataclass(frozen=True)
class FunctionSpec:
    name: str  # logical name; "launchpod-<name>" when deployed
    handler: str
    description: str
    memory: int = 256
    timeout: int = 60
    # IAM actions its adapters call (beyond the tables and workflows below); "*"-free by design.
    actions: tuple[str, ...] = ()
    tables: tuple[str, ...] = ("operations", "clusters")
    starts_workflows: bool = False
    kubernetes: bool = False  # needs an EKS access entry to reach cluster API servers
    placeholder: str | None = None  # ${Placeholder} it fills in state machine definitions
    # A workflow phase (declared with ``phase_function``): the phase it records on the operation and the use
    # case it runs, "<module>.<function>" under launchpod.usecases.workflows.
    phase: str | None = None
    run: str | None = None


@dataclass(frozen=True)
class StateMachineSpec:
    name: str
    file: str
    description: str
    functions: tuple[str, ...]
    settings: dict[str, int] = field(default_factory=dict)  # non-function ${Placeholders}
    # state machines this one starts as child executions; ${<Name>Machine} holds each one's ARN
    children: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        return STATEMACHINES_DIR / self.file


_PHASES = "launchpod.entrypoints.workflows"
PHASE_HANDLERS = "launchpod.entrypoints.workflows.handlers"


def phase_function(
    name: str, phase: str, run: str, description: str, *, placeholder: str | None = None, **needs: Any
) -> FunctionSpec:
    """One workflow phase, declared once: its function's logical name, the phase it records on the operation,
    the use case it runs ("<module>.<function>" under launchpod.usecases.workflows, taking the WorkflowInput
    and answering a PhaseResult whose outputs, where later phases read them, are the phase's PhaseOutput) and
    what the function needs (actions, tables, memory, ...). The Lambda handler
    (``launchpod.entrypoints.workflows.handlers.<name with underscores>``) and the state machines'
    ``${<Phase>Fn}`` placeholder come from it."""
    return FunctionSpec(
        name,
        f"{PHASE_HANDLERS}.{handler_attribute(name)}",
        description,
        placeholder=placeholder or f"{phase}Fn",
        phase=phase,
        run=run,
        **needs,
    )


def handler_attribute(name: str) -> str:
    return name.replace("-", "_")


# What a phase needs to make a pod identity role (inline policy, tags) and pass it to EKS.
_POD_IDENTITY_ROLE = (
    "iam:GetRole",
    "iam:CreateRole",
    "iam:TagRole",
    "iam:PutRolePolicy",
    "iam:ListAttachedRolePolicies",
    "iam:PassRole",
)

# What a phase needs to install or remove a HyperPod operator add-on (training, inference) with its pod
# identity role: the add-on (created with tags), the role made and passed, and on removal the role deleted.
_OPERATOR_ADDON = (
    "eks:ListAddons",
    "eks:DescribeAddon",
    # the version to install: the pin when EKS offers it for the cluster's Kubernetes version, else its default
    "eks:DescribeCluster",
    "eks:DescribeAddonVersions",
    "eks:CreateAddon",
    "eks:DeleteAddon",
    "eks:TagResource",
    "sagemaker:DescribeCluster",
    *_POD_IDENTITY_ROLE,
    "iam:ListRolePolicies",
    "iam:DeleteRolePolicy",
    "iam:DeleteRole",
)


TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        "operations",
        "id",
        indexes=(
            ("by-target", "target", "createdAt"),
            ("by-status", "status", "createdAt"),
            ("by-created", "feed", "createdAt"),  # every operation, newest first (adapters/store/operations.py)
        ),
        stream=True,
    ),
    TableSpec("clusters", "name", indexes=(("by-name", "registry", "name"),)),  # registered clusters only
    TableSpec("connections", "pk", "sk", ttl_attribute="expiresAt"),
    TableSpec("idempotency", "id", ttl_attribute="expiration"),
    TableSpec("preferences", "subject"),
    TableSpec("incidents", "cluster"),  # issue 16: per-cluster incidents and ladder policy
    # issue 34: subscribers per cluster ("cluster#<name>") and the keys of notifications sent ("sent#<key>")
    TableSpec("notifications", "pk", ttl_attribute="expiresAt"),
)

FUNCTIONS: tuple[FunctionSpec, ...] = (
    FunctionSpec(
        "api",
        "launchpod.entrypoints.api.app.handler",
        "REST API: validation, authorization, plans, operations",
        memory=512,
        timeout=29,
        actions=(
            "ec2:DescribeAvailabilityZones",
            "ec2:DescribeInstanceTypeOfferings",
            "ec2:DescribeInstanceTypes",  # each type's GPUs, Neuron devices, EFA and NVMe (catalog, jobs, groups)
            "ec2:DescribeSubnets",  # instance groups: each group's subnet's zone; the planner: a cluster's zones
            "eks:DescribeCluster",
            "eks:ListAddons",
            "eks:DescribeAddon",
            "eks:DescribeAddonVersions",  # dependencies: which pins EKS offers for the cluster's Kubernetes version
            "sagemaker:DescribeCluster",
            "sagemaker:ListClusters",
            "sagemaker:DescribeTrainingPlan",  # instance groups: the plan's type, zone and free instances
            # training plans (issue 33): search, buy (CreateTrainingPlan also authorizes CreateReservedCapacity,
            # Service Authorization Reference), list, extend
            "sagemaker:SearchTrainingPlanOfferings",
            "sagemaker:CreateTrainingPlan",
            "sagemaker:CreateReservedCapacity",
            "sagemaker:ListTrainingPlans",
            "sagemaker:ExtendTrainingPlan",
            "sagemaker:DescribeTrainingPlanExtensionHistory",
            "servicequotas:ListServiceQuotas",  # instance groups: the cluster-usage quota of the type
            # nodes and events (issue 16)
            "sagemaker:ListClusterNodes",
            "sagemaker:DescribeClusterNode",
            "sagemaker:ListClusterEvents",
            "sagemaker:DescribeClusterEvent",
            "states:StopExecution",
            "s3:ListBucket",
            "iam:GetRole",  # managed features: the checkpoint role Launchpod created, if any
            # SageMaker managed MLflow (issue 14): the server's state and its presigned UI URL; the
            # configure-mlflow workflow makes the server and its role (this function writes no IAM)
            "sagemaker:DescribeMlflowTrackingServer",
            "sagemaker:CreatePresignedMlflowTrackingServerUrl",
            # the job view's MLflow run: the tracking server's MLflow REST API, read only
            "sagemaker-mlflow:GetExperimentByName",
            "sagemaker-mlflow:SearchRuns",
            # a gone pod's log lines, from the application log group Container Insights ships to (issue 14)
            "logs:FilterLogEvents",
            # task governance (issue 13): the cluster's scheduler config and its teams' compute quotas, changed
            # at once; AddTags for their tags on create, ListTags to change or delete only Launchpod's quotas
            "sagemaker:ListClusterSchedulerConfigs",
            "sagemaker:DescribeClusterSchedulerConfig",
            "sagemaker:CreateClusterSchedulerConfig",
            "sagemaker:UpdateClusterSchedulerConfig",
            "sagemaker:ListComputeQuotas",
            "sagemaker:DescribeComputeQuota",
            "sagemaker:CreateComputeQuota",
            "sagemaker:UpdateComputeQuota",
            "sagemaker:DeleteComputeQuota",
            "sagemaker:AddTags",
            "sagemaker:ListTags",
            # Creating a quota or a cluster policy, SageMaker reads the access policies of the EKS cluster's
            # access entries and associates one, as the caller (dependent actions of CreateComputeQuota and
            # CreateClusterSchedulerConfig; sandbox/aws/iam/caller.py).
            "eks:ListAssociatedAccessPolicies",
            "eks:AssociateAccessPolicy",
            # notifications (issue 34): e-mail subscriptions with their filter policies, and the test message
            "sns:Subscribe",
            "sns:Unsubscribe",
            "sns:SetSubscriptionAttributes",
            "sns:GetSubscriptionAttributes",
            "sns:Publish",
        ),
        tables=("operations", "clusters", "idempotency", "preferences", "incidents", "notifications"),
        starts_workflows=True,
        kubernetes=True,
    ),
    FunctionSpec(
        "ws-authorizer",
        "launchpod.entrypoints.stream.authorizer.handler",
        "WebSocket $connect authorizer: verifies the Cognito ID token given as ?token=",
        tables=(),
    ),
    FunctionSpec(
        "rest-authorizer",
        "launchpod.entrypoints.api.authorizer.handler",
        "REST API authorizer (own OIDC issuer only): verifies the Authorization bearer ID token",
        tables=(),
    ),
    FunctionSpec(
        "ws-connect",
        "launchpod.entrypoints.stream.connect.handler",
        "WebSocket $connect: records the connection",
        tables=("connections",),
    ),
    FunctionSpec(
        "ws-disconnect",
        "launchpod.entrypoints.stream.disconnect.handler",
        "WebSocket $disconnect: forgets the connection and its subscriptions",
        tables=("connections",),
    ),
    FunctionSpec(
        "ws-message",
        "launchpod.entrypoints.stream.message.handler",
        "WebSocket $default: subscribe and unsubscribe to topics",
        # lambda:InvokeFunction: starts a logs topic's pump (log-pump)
        actions=("execute-api:ManageConnections", "lambda:InvokeFunction"),
        tables=("connections", "operations"),
    ),
    FunctionSpec(
        "log-pump",
        "launchpod.entrypoints.stream.log_pump.handler",
        "Posts a pod's new log lines to the subscribers of its logs topic; hands over to itself before its deadline",
        timeout=300,
        # lambda:InvokeFunction: the hand-over to its own next invocation; eks:DescribeCluster: the
        # Kubernetes client reads the cluster's endpoint and CA (adapters/k8s/client.py)
        actions=("execute-api:ManageConnections", "lambda:InvokeFunction", "eks:DescribeCluster"),
        tables=("connections",),
        kubernetes=True,
    ),
    FunctionSpec(
        "operations-stream",
        "launchpod.entrypoints.stream.operations_stream.handler",
        "Pushes operation changes from the table's stream to subscribed WebSocket clients",
        actions=("execute-api:ManageConnections",),
        tables=("connections",),
    ),
    FunctionSpec(
        "events-execution-status",
        "launchpod.entrypoints.events.execution_status.handler",
        "EventBridge: Step Functions executions that ended abnormally end their operations too",
        tables=("operations", "clusters"),
    ),
    FunctionSpec(
        "events-cluster-state",
        "launchpod.entrypoints.events.cluster_state.handler",
        "EventBridge: HyperPod cluster state changes, recorded, pushed to subscribers, waking waiting workflows",
        actions=("execute-api:ManageConnections", "states:SendTaskSuccess"),
        tables=("clusters", "connections"),
    ),
    FunctionSpec(
        "events-node-health",
        "launchpod.entrypoints.events.node_health.handler",
        "EventBridge: HyperPod node health events, pushed to subscribers and folded into incidents, where the"
        " remediation ladder suggests or runs the next step",
        actions=("execute-api:ManageConnections", "eks:DescribeCluster", "sns:Publish"),
        tables=("connections", "incidents", "operations", "clusters", "notifications"),
        starts_workflows=True,
        kubernetes=True,  # reads the Node's bootID: a repeat of the last fault event, or a new fault
    ),
    FunctionSpec(
        "events-drift-check",
        "launchpod.entrypoints.events.drift_check.handler",
        "Schedule: compares every cluster's add-ons with the pinned manifest and records drift",
        actions=("eks:DescribeCluster", "eks:ListAddons", "eks:DescribeAddon", "eks:DescribeAddonVersions"),
        tables=("clusters",),
        timeout=300,
    ),
    phase_function(
        "ccp-network",
        "Network",
        "create_control_plane.network",
        "create-control-plane: VPC, subnets in two zones, NAT gateway; or checks the VPC given",
        timeout=300,
        actions=(
            "ec2:DescribeVpcs",
            "ec2:DescribeSubnets",
            "ec2:DescribeRouteTables",
            "ec2:DescribeInternetGateways",
            "ec2:DescribeNatGateways",
            "ec2:DescribeAddresses",
            "ec2:CreateVpc",
            "ec2:ModifyVpcAttribute",
            "ec2:CreateSubnet",
            "ec2:ModifySubnetAttribute",
            "ec2:CreateInternetGateway",
            "ec2:AttachInternetGateway",
            "ec2:AllocateAddress",
            "ec2:CreateNatGateway",
            "ec2:CreateRouteTable",
            "ec2:CreateRoute",
            "ec2:AssociateRouteTable",
            "ec2:CreateTags",
            "ec2:DescribeSecurityGroups",
            "ec2:CreateSecurityGroup",
            "ec2:AuthorizeSecurityGroupIngress",
            "ec2:AuthorizeSecurityGroupEgress",
        ),
    ),
    phase_function(
        "ccp-cluster-role",
        "ClusterRole",
        "create_control_plane.cluster_role",
        "create-control-plane: the EKS cluster IAM role",
        actions=(
            "iam:GetRole",
            "iam:CreateRole",
            "iam:TagRole",
            "iam:AttachRolePolicy",
            "iam:ListAttachedRolePolicies",
        ),
    ),
    phase_function(
        "ccp-create-cluster",
        "CreateCluster",
        "create_control_plane.create_cluster",
        "create-control-plane: EKS CreateCluster (API_AND_CONFIG_MAP, logging)",
        # EKS creates its service-linked role with the caller's permissions in an account that never had a
        # cluster (EKS user guide, "Using service-linked roles for Amazon EKS").
        actions=(
            "eks:DescribeCluster",
            "eks:CreateCluster",
            "eks:TagResource",
            "iam:PassRole",
            "iam:CreateServiceLinkedRole",
        ),
    ),
    phase_function(
        "ccp-wait-active",
        "WaitActive",
        "create_control_plane.wait_active",
        "create-control-plane: polls EKS until ACTIVE or FAILED",
        actions=("eks:DescribeCluster",),
    ),
    phase_function(
        "ccp-oidc-provider",
        "OidcProvider",
        "create_control_plane.oidc_provider",
        "create-control-plane: the IAM OIDC provider for the cluster's issuer",
        actions=(
            "eks:DescribeCluster",
            "iam:ListOpenIDConnectProviders",
            "iam:CreateOpenIDConnectProvider",
            "iam:TagOpenIDConnectProvider",
        ),
    ),
    phase_function(
        "ccp-access-entry",
        "AccessEntry",
        "create_control_plane.access_entry",
        "create-control-plane: access entry with cluster-admin for Launchpod's own role",
        actions=(
            "eks:DescribeAccessEntry",
            "eks:CreateAccessEntry",
            "eks:TagResource",  # the entry is created with tags: EKS authorizes tag-on-create
            "eks:AssociateAccessPolicy",
            "eks:ListAssociatedAccessPolicies",
        ),
    ),
    phase_function(
        "ccp-core-addons",
        "CoreAddons",
        "create_control_plane.core_addons",
        "create-control-plane: vpc-cni, kube-proxy, eks-pod-identity-agent to ACTIVE; coredns until it waits for nodes",
        actions=(
            "eks:ListAddons",
            "eks:DescribeAddon",
            "eks:CreateAddon",
            "eks:TagResource",  # add-ons are created with tags
            "eks:DescribeAddonVersions",
        ),
    ),
    phase_function(
        "ccp-verify-access",
        "VerifyAccess",
        "create_control_plane.verify_access",
        "create-control-plane: reaches the cluster's Kubernetes API with Launchpod's role",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "chp-lifecycle-scripts",
        "LifecycleScripts",
        "create_hyperpod.lifecycle_scripts",
        "create-hyperpod: lifecycle scripts to the shared bucket",
        actions=("s3:PutObject",),
    ),
    phase_function(
        "chp-execution-role",
        "ExecutionRole",
        "create_hyperpod.execution_role",
        "create-hyperpod: the instance groups' execution role",
        actions=("iam:GetRole", "iam:CreateRole", "iam:TagRole", "iam:PutRolePolicy", "iam:ListAttachedRolePolicies"),
    ),
    phase_function(
        "chp-compute-subnet",
        "ComputeSubnet",
        "create_hyperpod.compute_subnet",
        "create-hyperpod: a /20 compute subnet from the one subnet planner",
        actions=(
            "eks:DescribeCluster",
            "ec2:DescribeVpcs",
            "ec2:DescribeSubnets",
            "ec2:CreateSubnet",
            "ec2:CreateTags",
            "ec2:DescribeRouteTables",
            "ec2:DescribeVpcEndpoints",
            "ec2:AssociateRouteTable",
        ),
    ),
    phase_function(
        "chp-security-group",
        "SecurityGroup",
        "create_hyperpod.security_group",
        "create-hyperpod: the security group shared with the EKS control plane, with EFA's self rules",
        actions=(
            "eks:DescribeCluster",
            "ec2:DescribeSecurityGroups",
            "ec2:CreateSecurityGroup",
            "ec2:CreateTags",
            "ec2:AuthorizeSecurityGroupIngress",
            "ec2:AuthorizeSecurityGroupEgress",
        ),
    ),
    phase_function(
        "chp-hyperpod-access",
        "HyperPodAccess",
        "create_hyperpod.hyperpod_access",
        "create-hyperpod: EKS access entry for HyperPod nodes",
        actions=("eks:DescribeAccessEntry", "eks:CreateAccessEntry", "eks:TagResource"),
    ),
    phase_function(
        "chp-create-hyperpod",
        "CreateHyperPod",
        "create_hyperpod.create_hyperpod",
        "create-hyperpod: SageMaker CreateCluster (Orchestrator.Eks, NodeRecovery)",
        # HyperPod reads the EKS cluster and makes access entries with the caller's permissions, and creates
        # its service-linked role on first use (sandbox/aws/iam/caller.py); a Failed cluster is deleted
        # before it is created again.
        actions=(
            "sagemaker:DescribeCluster",
            "sagemaker:CreateCluster",
            "sagemaker:DeleteCluster",
            "sagemaker:AddTags",
            "eks:DescribeCluster",
            "eks:CreateAccessEntry",
            "eks:DescribeAccessEntry",
            "eks:AssociateAccessPolicy",
            "eks:DeleteAccessEntry",
            "iam:PassRole",
            "iam:CreateServiceLinkedRole",
        ),
    ),
    phase_function(
        "chp-wait-in-service",
        "WaitInService",
        "create_hyperpod.wait_in_service",
        "create-hyperpod: reads HyperPod's status; InService or Failed ends the wait",
        actions=("sagemaker:DescribeCluster",),
    ),
    FunctionSpec(
        "chp-await-in-service",
        f"{_PHASES}.await_in_service.handler",
        "create-hyperpod: parks the workflow's task token until HyperPod's cluster-state event wakes it",
        actions=("sagemaker:DescribeCluster", "states:SendTaskSuccess"),
        tables=("clusters",),
        placeholder="AwaitInServiceFn",
    ),
    phase_function(
        "pc-await-addons",
        "AwaitAddons",
        "provision_cluster.await_addons",
        "provision-cluster: coredns and the dependency add-ons (Deployments) to ACTIVE once nodes joined",
        actions=("eks:ListAddons", "eks:DescribeAddon"),
    ),
    phase_function(
        "rd-addons",
        "Addons",
        "reconcile_dependencies.addons",
        "reconcile-dependencies: pinned EKS add-ons (with pod identity roles) to ACTIVE",
        actions=(
            "eks:DescribeCluster",
            "eks:DescribeAddonVersions",
            "eks:ListAddons",
            "eks:DescribeAddon",
            "eks:CreateAddon",
            "eks:UpdateAddon",
            "eks:TagResource",  # add-ons are created with tags
            *_POD_IDENTITY_ROLE,
        ),
    ),
    phase_function(
        "rd-manifests",
        "Manifests",
        "reconcile_dependencies.manifests",
        "reconcile-dependencies: health agent, device plugins, KubeRay applied with server-side apply",
        actions=(
            "eks:DescribeCluster",
            # the AWS Load Balancer Controller's pod identity role and association
            *_POD_IDENTITY_ROLE,
            "eks:ListPodIdentityAssociations",
            "eks:CreatePodIdentityAssociation",
            "eks:TagResource",
            "ec2:DescribeInstanceTypes",  # the device plugins run on the types whose EC2 facts have the device
        ),
        kubernetes=True,
        memory=512,
    ),
    phase_function(
        "dc-delete-load-balancers",
        "DeleteLoadBalancers",
        "delete_cluster.delete_load_balancers",
        "delete-cluster: deletes LoadBalancer Services and ALB Ingresses, waits until their load balancers are gone",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "dc-delete-hyperpod",
        "DeleteHyperPod",
        "delete_cluster.delete_hyperpod",
        "delete-cluster: deletes the HyperPod cluster Launchpod created, waits until gone",
        # HyperPod removes the access entries it made, with the caller's permissions (sandbox/aws/iam/caller.py).
        actions=(
            "sagemaker:DescribeCluster",
            "sagemaker:ListTags",
            "sagemaker:DeleteCluster",
            "eks:DescribeCluster",
            "eks:DeleteAccessEntry",
        ),
    ),
    phase_function(
        "dc-delete-control-plane",
        "DeleteControlPlane",
        "delete_cluster.delete_control_plane",
        "delete-cluster: deletes the EKS cluster Launchpod created, waits until gone",
        actions=("eks:DescribeCluster", "eks:DeleteCluster"),
    ),
    phase_function(
        "dc-delete-tracking-server",
        "DeleteTrackingServer",
        "delete_cluster.delete_tracking_server",
        "delete-cluster: the MLflow tracking server Launchpod created, deleted before its role",
        actions=(
            "sagemaker:DescribeMlflowTrackingServer",
            "sagemaker:ListTags",
            "sagemaker:DeleteMlflowTrackingServer",
        ),
    ),
    phase_function(
        "dc-delete-identity",
        "DeleteIdentity",
        "delete_cluster.delete_identity",
        "delete-cluster: IAM roles and OIDC provider tagged as the cluster's",
        actions=(
            "iam:ListRoles",
            "iam:ListRoleTags",
            "iam:ListRolePolicies",
            "iam:DeleteRolePolicy",
            "iam:ListAttachedRolePolicies",
            "iam:DetachRolePolicy",
            "iam:DeleteRole",
            "iam:ListOpenIDConnectProviders",
            "iam:GetOpenIDConnectProvider",
            "iam:DeleteOpenIDConnectProvider",
        ),
    ),
    phase_function(
        "dc-delete-network",
        "DeleteNetwork",
        "delete_cluster.delete_network",
        "delete-cluster: network resources tagged as the cluster's",
        timeout=300,
        actions=(
            "ec2:DescribeNatGateways",
            "ec2:DeleteNatGateway",
            "ec2:DescribeAddresses",
            "ec2:DisassociateAddress",
            "ec2:ReleaseAddress",
            "ec2:DescribeSecurityGroups",
            "ec2:DeleteSecurityGroup",
            "ec2:DescribeRouteTables",
            "ec2:DisassociateRouteTable",
            "ec2:DeleteRouteTable",
            "ec2:DescribeSubnets",
            "ec2:DeleteSubnet",
            "ec2:DescribeInternetGateways",
            "ec2:DetachInternetGateway",
            "ec2:DeleteInternetGateway",
            "ec2:DescribeVpcs",
            "ec2:DeleteVpc",
        ),
    ),
    phase_function(
        "dc-delete-scripts",
        "DeleteScripts",
        "delete_cluster.delete_scripts",
        "delete-cluster: the cluster's lifecycle scripts in the shared bucket",
        actions=("s3:ListBucket", "s3:DeleteObject"),
    ),
    phase_function(
        "dc-deregister",
        "Deregister",
        "delete_cluster.deregister",
        "delete-cluster: forgets the cluster",
    ),
    phase_function(
        "us-start-update",
        "StartUpdate",
        "update_software.start_update",
        "update-software: UpdateClusterSoftware with a rolling batch policy",
        # HyperPod reads the EKS cluster it patches as the caller (sandbox/aws/iam/caller.py).
        actions=("sagemaker:DescribeCluster", "sagemaker:UpdateClusterSoftware", "eks:DescribeCluster"),
    ),
    # ---- node actions (issue 16): reboot-nodes, replace-nodes, delete-nodes, health-check
    phase_function(
        "na-start-action",
        "StartAction",
        "node_action.start_action",
        "node actions: BatchReboot/Replace/DeleteClusterNodes in batches AWS accepts, or StartClusterHealthCheck",
        actions=(
            "sagemaker:ListClusterNodes",
            "sagemaker:BatchRebootClusterNodes",
            "sagemaker:BatchReplaceClusterNodes",
            "sagemaker:BatchDeleteClusterNodes",
            "sagemaker:StartClusterHealthCheck",
            "eks:DescribeCluster",  # HyperPod reads the EKS cluster whose nodes it acts on, as the caller
            "execute-api:ManageConnections",
            "sns:Publish",  # the ladder's incidents: opened, stopped (usecases/remediation.py)
        ),
        tables=("operations", "clusters", "incidents", "connections", "notifications"),
    ),
    phase_function(
        "na-wait-nodes",
        "WaitNodes",
        "node_action.wait_nodes",
        "node actions: follows every node to its terminal state",
        actions=("sagemaker:ListClusterNodes", "execute-api:ManageConnections", "sns:Publish"),
        tables=("operations", "clusters", "incidents", "connections", "notifications"),
    ),
    FunctionSpec(
        "na-follow-up",
        f"{_PHASES}.follow_up.handler",
        "node actions: after the cluster is released, the remediation ladder runs or suggests its next step",
        actions=("execute-api:ManageConnections", "sns:Publish"),
        tables=("operations", "clusters", "incidents", "connections", "notifications"),
        starts_workflows=True,
        placeholder="FollowUpFn",
    ),
    phase_function(
        "us-wait-updated",
        "WaitUpdated",
        "update_software.wait_updated",
        "update-software: polls until every batch is updated and the cluster is InService",
        actions=("sagemaker:DescribeCluster",),
    ),
    # --- instance groups (issue 12) ---
    phase_function(
        "ig-group-subnet",
        "GroupSubnet",
        "instance_groups.group_subnet",
        "instance-groups: a dedicated /20 subnet for a new group, routed like the cluster's compute subnet",
        actions=(
            "sagemaker:DescribeCluster",
            "ec2:DescribeSubnets",
            "ec2:DescribeVpcs",
            "ec2:DescribeRouteTables",
            "ec2:CreateSubnet",
            "ec2:CreateTags",
            "ec2:AssociateRouteTable",
        ),
    ),
    phase_function(
        "ig-update-cluster",
        "UpdateCluster",
        "instance_groups.update_cluster",
        "instance-groups: UpdateCluster with every other group rebuilt from DescribeCluster",
        # UpdateCluster hands each group's execution role to HyperPod again (iam:PassRole).
        # HyperPod gives a new group's execution role an access entry and removes a deleted group's, as the
        # caller (sandbox/aws/iam/caller.py); a group on a training plan is authorized against the plan too.
        actions=(
            "sagemaker:DescribeCluster",
            "sagemaker:UpdateCluster",
            "iam:PassRole",
            "eks:DescribeCluster",
            "eks:DescribeAccessEntry",
            "eks:CreateAccessEntry",
            "eks:DeleteAccessEntry",
        ),
    ),
    phase_function(
        "ig-wait-group",
        "WaitGroup",
        "instance_groups.wait_group",
        "instance-groups: follows the request's cluster operation (or DescribeCluster) to a terminal state "
        "(why it failed: its events)",
        actions=(
            "sagemaker:DescribeCluster",
            "sagemaker:ListClusterEvents",
            "sagemaker:DescribeClusterEvent",  # the failure message of the group's newest Error event
            "sagemaker:ListClusterOperations",
            "sagemaker:DescribeClusterOperation",
        ),
    ),
    phase_function(
        "ig-release-subnet",
        "ReleaseSubnet",
        "instance_groups.release_subnet",
        "instance-groups: deletes the dedicated subnet of a deleted group",
        actions=("sagemaker:DescribeCluster", "ec2:DescribeSubnets", "ec2:DeleteSubnet"),
    ),
    phase_function(
        "as-cluster-role",
        "ClusterRole",
        "autoscaling.cluster_role",
        "autoscaling: the role HyperPod assumes to add and remove nodes for Karpenter",
        actions=(
            "sagemaker:DescribeCluster",
            "iam:GetRole",
            "iam:CreateRole",
            "iam:TagRole",
            "iam:PutRolePolicy",
            "iam:ListAttachedRolePolicies",
        ),
        placeholder="AsClusterRoleFn",
    ),
    phase_function(
        "as-remove-karpenter",
        "RemoveKarpenter",
        "autoscaling.remove_karpenter",
        "autoscaling: removes the NodePool and HyperpodNodeClass before disabling",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
        placeholder="AsRemoveKarpenterFn",
    ),
    phase_function(
        "as-update-autoscaling",
        "UpdateAutoscaling",
        "autoscaling.update_autoscaling",
        "autoscaling: UpdateCluster AutoScaling Karpenter with the cluster role and node recovery Automatic",
        # UpdateCluster hands the cluster role and each group's execution role to HyperPod (iam:PassRole),
        # and HyperPod checks each group's execution role has its access entry, as the caller
        # (sandbox/aws/iam/caller.py), as for instance-group updates.
        actions=(
            "sagemaker:DescribeCluster",
            "sagemaker:UpdateCluster",
            "iam:PassRole",
            "eks:DescribeCluster",
            "eks:DescribeAccessEntry",
            "eks:CreateAccessEntry",
        ),
        placeholder="AsUpdateAutoscalingFn",
    ),
    phase_function(
        "as-wait-autoscaling",
        "WaitAutoscaling",
        "autoscaling.wait_autoscaling",
        "autoscaling: polls DescribeCluster until AutoScaling is InService or gone",
        actions=("sagemaker:DescribeCluster",),
        placeholder="AsWaitAutoscalingFn",
    ),
    phase_function(
        "as-apply-karpenter",
        "ApplyKarpenter",
        "autoscaling.apply_karpenter",
        "autoscaling: applies the HyperpodNodeClass and the NodePool",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
        placeholder="AsApplyKarpenterFn",
    ),
    # --- end instance groups ---
    phase_function(
        "ic-register",
        "Register",
        "import_cluster.register",
        "import-cluster: records the cluster as imported",
        actions=("eks:DescribeCluster",),
    ),
    phase_function(
        "cs-storage-access",
        "StorageAccess",
        "configure_storage.storage_access",
        "configure-storage: the CSI driver add-on is ACTIVE; the FSx for Lustre file system exists",
        actions=("eks:ListAddons", "eks:DescribeAddon", "fsx:DescribeFileSystems"),
    ),
    phase_function(
        "cs-apply-volume",
        "ApplyVolume",
        "configure_storage.apply_volume",
        "configure-storage: PersistentVolume and PersistentVolumeClaim with server-side apply",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "cs-wait-bound",
        "WaitBound",
        "configure_storage.wait_bound",
        "configure-storage: polls the claim until it is Bound",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    # ---- configure-features: managed features
    phase_function(
        "cf-cert-manager",
        "CertManager",
        "configure_features.cert_manager",
        "configure-features: cert-manager, which the training and inference operators need, installed and ACTIVE",
        actions=(
            "eks:ListAddons",
            "eks:DescribeAddon",
            "eks:CreateAddon",
            "eks:TagResource",
            "eks:DescribeCluster",
            "eks:DescribeAddonVersions",
        ),
    ),
    phase_function(
        "cf-training-operator",
        "TrainingOperator",
        "configure_features.training_operator",
        "configure-features: the HyperPod training operator add-on with its pod identity role, or removed",
        actions=_OPERATOR_ADDON,
    ),
    phase_function(
        "cf-checkpoint-identity",
        "CheckpointIdentity",
        "configure_features.checkpoint_identity",
        "configure-features: checkpoint service account, IRSA role and its policy on the checkpoint prefix, or removed",
        actions=(
            "eks:DescribeCluster",
            "iam:ListOpenIDConnectProviders",
            "iam:GetRole",
            "iam:CreateRole",
            "iam:TagRole",
            "iam:PutRolePolicy",
            "iam:ListRolePolicies",
            "iam:DeleteRolePolicy",
            "iam:DeleteRole",
        ),
        kubernetes=True,
    ),
    phase_function(
        "cf-tiered-storage",
        "TieredStorage",
        "configure_features.tiered_storage",
        "configure-features: UpdateCluster TieredStorageConfig, then InService",
        actions=("sagemaker:DescribeCluster", "sagemaker:UpdateCluster", "eks:DescribeCluster"),
    ),
    phase_function(
        "cf-task-governance",
        "TaskGovernance",
        "configure_features.task_governance",
        "configure-features: the HyperPod task governance add-on, installed or removed",
        actions=(
            "eks:ListAddons",
            "eks:DescribeAddon",
            "eks:CreateAddon",
            "eks:DeleteAddon",
            "eks:TagResource",
            "eks:DescribeCluster",
            "eks:DescribeAddonVersions",
        ),
    ),
    phase_function(
        "cf-inference-operator",
        "InferenceOperator",
        "configure_features.inference_operator",
        "configure-features: the HyperPod inference operator add-on with its configuration values and IRSA "
        "execution role, after the FSx CSI driver it needs (with its pod identity role), or removed",
        actions=(
            *_OPERATOR_ADDON,
            "eks:DescribeAddonConfiguration",  # the values are checked against the add-on's schema first
            "iam:ListOpenIDConnectProviders",  # the execution role trusts the cluster's OIDC provider (IRSA)
            "iam:DetachRolePolicy",  # a role left from an earlier install, trusting another issuer, is remade
        ),
    ),
    phase_function(
        "cf-observability",
        "Observability",
        "configure_features.observability",
        "configure-features: the CloudWatch Observability add-on (Container Insights) with its pod identity role"
        " and its AWS managed policies, or removed",
        actions=(
            *(a for a in _OPERATOR_ADDON if a != "sagemaker:DescribeCluster"),
            "iam:AttachRolePolicy",
            "iam:DetachRolePolicy",
        ),
    ),
    # ---- inference: endpoints deployed, scaled, deleted
    phase_function(
        "inf-apply-endpoint",
        "ApplyEndpoint",
        "inference.apply_endpoint",
        "inference: the endpoint's objects applied, scaled or deleted",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "inf-wait-endpoint",
        "WaitEndpoint",
        "inference.wait_endpoint",
        "inference: polls until every replica is Ready (and the load balancer's hostname), or every object is gone",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "md-start-download",
        "StartDownload",
        "model_download.start_download",
        "model-download: the download Job applied on CPU with the storage claim mounted",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "md-wait-download",
        "WaitDownload",
        "model_download.wait_download",
        "model-download: polls the Job to its end, then deletes the token's Secret",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "mlf-server-role",
        "ServerRole",
        "configure_mlflow.server_role",
        "configure-mlflow: the tracking server's role, reaching only mlflow/ in the shared bucket",
        actions=("iam:GetRole", "iam:CreateRole", "iam:TagRole", "iam:PutRolePolicy", "iam:ListAttachedRolePolicies"),
    ),
    phase_function(
        "mlf-tracking-server",
        "TrackingServer",
        "configure_mlflow.tracking_server",
        "configure-mlflow: CreateMlflowTrackingServer (or the existing server), recorded on the cluster",
        actions=(
            "sagemaker:CreateMlflowTrackingServer",
            "sagemaker:DescribeMlflowTrackingServer",
            "sagemaker:AddTags",  # tag-on-create of the tracking server
            "iam:PassRole",  # the server's role, passed to sagemaker.amazonaws.com
        ),
    ),
    phase_function(
        "mlf-wait-server",
        "WaitTrackingServer",
        "configure_mlflow.wait_tracking_server",
        "configure-mlflow: polls the tracking server until it is Created",
        actions=("sagemaker:DescribeMlflowTrackingServer",),
    ),
    FunctionSpec(
        "op-finish",
        f"{_PHASES}.finish.handler",
        "Every workflow: records success and releases the cluster",
        placeholder="FinishFn",
    ),
    FunctionSpec(
        "op-record-failure",
        f"{_PHASES}.record_failure.handler",
        "Every workflow: records the failed phase and its error, releases the cluster, tells the subscribers",
        actions=("sns:Publish",),
        tables=("operations", "clusters", "notifications"),
        placeholder="RecordFailureFn",
    ),
    FunctionSpec(
        "notify-webhooks",
        "launchpod.entrypoints.events.webhook_relay.handler",
        'SNS: posts each notification to the cluster\'s chat webhooks that want its kind, as {"text": ...}',
        tables=("notifications",),
        timeout=30,
    ),
    FunctionSpec(
        "events-cluster-event",
        "launchpod.entrypoints.events.cluster_event.handler",
        "EventBridge: HyperPod cluster events (provisioning, scaling, patching), logged and pushed to subscribers",
        actions=("execute-api:ManageConnections",),
        tables=("connections",),
    ),
)

STATE_MACHINES: tuple[StateMachineSpec, ...] = (
    StateMachineSpec(
        "provision-cluster",
        "provision-cluster.asl.json",
        "Control plane, dependencies, HyperPod and optional storage as child executions; HyperPod's scripts,"
        " role, subnet and security group meanwhile; then the Deployment add-ons to ACTIVE on the nodes",
        functions=(
            "ccp-network",
            "chp-lifecycle-scripts",
            "chp-execution-role",
            "chp-compute-subnet",
            "chp-security-group",
            "pc-await-addons",
            "op-finish",
            "op-record-failure",
        ),
        children=("create-control-plane", "reconcile-dependencies", "create-hyperpod", "configure-storage"),
    ),
    # ---- node actions (issue 16): one definition, one machine per kind so each keeps its route's role
    StateMachineSpec(
        "reboot-nodes",
        "node-action.asl.json",
        "BatchRebootClusterNodes, then every node Running again",
        functions=("na-start-action", "na-wait-nodes", "op-finish", "na-follow-up", "op-record-failure"),
    ),
    StateMachineSpec(
        "replace-nodes",
        "node-action.asl.json",
        "BatchReplaceClusterNodes, then every replacement Running",
        functions=("na-start-action", "na-wait-nodes", "op-finish", "na-follow-up", "op-record-failure"),
    ),
    StateMachineSpec(
        "delete-nodes",
        "node-action.asl.json",
        "BatchDeleteClusterNodes, then every node gone",
        functions=("na-start-action", "na-wait-nodes", "op-finish", "na-follow-up", "op-record-failure"),
    ),
    StateMachineSpec(
        "health-check",
        "node-action.asl.json",
        "StartClusterHealthCheck, then every node passed or failed",
        functions=("na-start-action", "na-wait-nodes", "op-finish", "na-follow-up", "op-record-failure"),
    ),
    StateMachineSpec(
        "import-cluster",
        "import-cluster.asl.json",
        "Access entry and verified access for an existing EKS cluster, then registered as imported",
        functions=("ccp-access-entry", "ccp-verify-access", "ic-register", "op-finish", "op-record-failure"),
    ),
    StateMachineSpec(
        "update-software",
        "update-software.asl.json",
        "UpdateClusterSoftware in rolling batches, then InService",
        functions=("us-start-update", "us-wait-updated", "op-finish", "op-record-failure"),
    ),
    # --- instance groups (issue 12) ---
    StateMachineSpec(
        "instance-groups",
        "instance-groups.asl.json",
        "One change to one instance group by UpdateCluster, the other groups kept; then the group InService or gone",
        functions=(
            "ig-group-subnet",
            "ig-update-cluster",
            "ig-wait-group",
            "ig-release-subnet",
            "op-finish",
            "op-record-failure",
        ),
    ),
    StateMachineSpec(
        "autoscaling",
        "autoscaling.asl.json",
        "HyperPod-managed Karpenter: cluster role, UpdateCluster AutoScaling, InService, node class and pool",
        functions=(
            "as-cluster-role",
            "as-remove-karpenter",
            "as-update-autoscaling",
            "as-wait-autoscaling",
            "as-apply-karpenter",
            "op-finish",
            "op-record-failure",
        ),
    ),
    # --- end instance groups ---
    StateMachineSpec(
        "delete-cluster",
        "delete-cluster.asl.json",
        "load balancers, HyperPod, EKS, IAM, network, scripts, registry: only what Launchpod created",
        functions=(
            "dc-delete-load-balancers",
            "dc-delete-hyperpod",
            "dc-delete-control-plane",
            "dc-delete-tracking-server",
            "dc-delete-identity",
            "dc-delete-network",
            "dc-delete-scripts",
            "dc-deregister",
            "op-finish",
            "op-record-failure",
        ),
    ),
    StateMachineSpec(
        "delete-hyperpod",
        "delete-hyperpod.asl.json",
        "HyperPod only, when Launchpod created it: the EKS control plane stays",
        functions=("dc-delete-hyperpod", "op-finish", "op-record-failure"),
    ),
    StateMachineSpec(
        "reconcile-dependencies",
        "reconcile-dependencies.asl.json",
        "Pinned EKS add-ons and Kubernetes manifests, in parallel, each to ACTIVE or ready",
        functions=("rd-addons", "rd-manifests", "op-finish", "op-record-failure"),
    ),
    StateMachineSpec(
        "configure-storage",
        "configure-storage.asl.json",
        "A Mountpoint for S3 or FSx for Lustre PersistentVolume and claim, applied and Bound",
        functions=("cs-storage-access", "cs-apply-volume", "cs-wait-bound", "op-finish", "op-record-failure"),
    ),
    StateMachineSpec(
        "create-hyperpod",
        "create-hyperpod.asl.json",
        "Lifecycle scripts, execution role, compute subnet, EFA security group, access entry, HyperPod to InService",
        functions=(
            "chp-lifecycle-scripts",
            "chp-execution-role",
            "chp-compute-subnet",
            "chp-security-group",
            "chp-hyperpod-access",
            "chp-create-hyperpod",
            "chp-wait-in-service",
            "chp-await-in-service",
            "op-finish",
            "op-record-failure",
        ),
    ),
    StateMachineSpec(
        "create-control-plane",
        "create-control-plane.asl.json",
        "Network, IAM role, EKS cluster, OIDC provider, access entry, core add-ons",
        functions=(
            "ccp-network",
            "ccp-cluster-role",
            "ccp-create-cluster",
            "ccp-wait-active",
            "ccp-oidc-provider",
            "ccp-access-entry",
            "ccp-core-addons",
            "ccp-verify-access",
            "op-finish",
            "op-record-failure",
        ),
    ),
    # ---- configure-features: managed features
    StateMachineSpec(
        "configure-features",
        "configure-features.asl.json",
        "Managed features as planned: cert-manager, the training operator, the checkpoint identity chain,"
        " HyperPod's TieredStorageConfig, the task governance, inference operator and observability add-ons",
        functions=(
            "cf-cert-manager",
            "cf-training-operator",
            "cf-checkpoint-identity",
            "cf-tiered-storage",
            "cf-task-governance",
            "cf-inference-operator",
            "cf-observability",
            "op-finish",
            "op-record-failure",
        ),
    ),
    # ---- inference (issue 15)
    StateMachineSpec(
        "inference",
        "inference.asl.json",
        "An endpoint deployed, scaled or deleted, then followed until Ready or gone",
        functions=("inf-apply-endpoint", "inf-wait-endpoint", "op-finish", "op-record-failure"),
    ),
    StateMachineSpec(
        "configure-mlflow",
        "configure-mlflow.asl.json",
        "A cluster's MLflow tracking server: its role and the server made (or an existing one picked), then Created",
        functions=("mlf-server-role", "mlf-tracking-server", "mlf-wait-server", "op-finish", "op-record-failure"),
    ),
    StateMachineSpec(
        "model-download",
        "model-download.asl.json",
        "A Hugging Face repository downloaded by a CPU Job into an S3 storage, the Job followed to its end",
        functions=("md-start-download", "md-wait-download", "op-finish", "op-record-failure"),
    ),
)

FUNCTIONS_BY_NAME = {f.name: f for f in FUNCTIONS}
PHASES_BY_HANDLER = {handler_attribute(f.name): f for f in FUNCTIONS if f.run}
STATE_MACHINES_BY_NAME = {s.name: s for s in STATE_MACHINES}


def function_name(logical: str, prefix: str = "launchpod") -> str:
    return f"{prefix}-{logical}"


def machine_placeholder(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-")) + "Machine"


def substitutions(
    machine: StateMachineSpec, function_arn: dict[str, str], machine_arn: dict[str, str] | None = None
) -> dict[str, str]:
    """The ${Placeholder} values for one state machine, given each function's ARN by logical name
    and, for machines with children, each state machine's ARN by name."""
    values = {FUNCTIONS_BY_NAME[f].placeholder or f: function_arn[f] for f in machine.functions}
    values.update({machine_placeholder(c): (machine_arn or {})[c] for c in machine.children})
    values.update({k: str(v) for k, v in machine.settings.items()})
    return values


@dataclass(frozen=True)
class EventRuleSpec:
    """An EventBridge rule and the function it invokes; ``pattern`` is spelled as EventBridge has it."""

    id: str
    function: str
    description: str
    pattern: dict[str, Any] | None = None
    schedule: str | None = None  # rate()/cron() expression

    def rule_name(self, prefix: str = "launchpod") -> str:
        return prefix + "".join(f"-{c.lower()}" if c.isupper() else c for c in self.id)


HYPERPOD_STATE_CHANGE = "SageMaker HyperPod Cluster State Change"
HYPERPOD_NODE_HEALTH = "SageMaker HyperPod Cluster Node Health Event"
# Only for clusters with NodeProvisioningMode Continuous (SageMaker HyperPod cluster events reference,
# https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-cluster-events-reference.html).
HYPERPOD_CLUSTER_EVENT = "SageMaker HyperPod Cluster Event"
NOTIFICATIONS_TOPIC = "notifications"  # the SNS topic "<prefix>-notifications" (docs/notifications.md)


def event_rules(machine_arn_prefix: str) -> tuple[EventRuleSpec, ...]:
    """Every rule; ``machine_arn_prefix`` is the ARN prefix Launchpod's own state machines share."""
    return (
        EventRuleSpec(
            "HyperPodClusterState",
            "events-cluster-state",
            "HyperPod cluster status changes: refresh the registry, notify subscribers, wake waiting workflows",
            pattern={"source": ["aws.sagemaker"], "detail-type": [HYPERPOD_STATE_CHANGE]},
        ),
        EventRuleSpec(
            "HyperPodNodeHealth",
            "events-node-health",
            "HyperPod node health events: record node health, notify subscribers",
            pattern={"source": ["aws.sagemaker"], "detail-type": [HYPERPOD_NODE_HEALTH]},
        ),
        EventRuleSpec(
            "HyperPodClusterEvent",
            "events-cluster-event",
            "HyperPod cluster events (provisioning, scaling, patching): log them, notify subscribers",
            pattern={"source": ["aws.sagemaker"], "detail-type": [HYPERPOD_CLUSTER_EVENT]},
        ),
        EventRuleSpec(
            "WorkflowStatus",
            "events-execution-status",
            "Launchpod executions that end without their Catch (timed out, aborted): settle the operation",
            pattern={
                "source": ["aws.states"],
                "detail-type": ["Step Functions Execution Status Change"],
                "detail": {
                    "status": ["FAILED", "TIMED_OUT", "ABORTED"],
                    "stateMachineArn": [{"prefix": machine_arn_prefix}],
                },
            },
        ),
        EventRuleSpec(
            "DriftCheck", "events-drift-check", "Hourly: compare clusters with the registry", schedule="rate(1 hour)"
        ),
    )
