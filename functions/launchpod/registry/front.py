"""The ways in and what they share: the REST API and its authorizers, the WebSocket API and the log pump, the
EventBridge handlers and the notifications relay."""

from __future__ import annotations

from launchpod.registry.specs import EventRuleSpec, FunctionSpec, StateMachineSpec

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
            "eks:ListClusters",  # the clusters page: which of its clusters EKS has, before describing those
            "eks:DescribeCluster",
            "eks:ListAddons",
            "eks:DescribeAddon",
            "eks:DescribeAddonVersions",  # dependencies: which pins EKS offers for the cluster's Kubernetes version
            "sagemaker:DescribeCluster",
            "sagemaker:ListClusters",
            "sagemaker:DescribeTrainingPlan",  # instance groups: the plan's type, zone and free instances
            # training plans: search, buy (CreateTrainingPlan also authorizes CreateReservedCapacity,
            # Service Authorization Reference), list, extend
            "sagemaker:SearchTrainingPlanOfferings",
            "sagemaker:CreateTrainingPlan",
            "sagemaker:CreateReservedCapacity",
            "sagemaker:ListTrainingPlans",
            "sagemaker:ExtendTrainingPlan",
            "sagemaker:DescribeTrainingPlanExtensionHistory",
            "servicequotas:ListServiceQuotas",  # instance groups: the cluster-usage quota of the type
            # nodes and events
            "sagemaker:ListClusterNodes",
            "sagemaker:DescribeClusterNode",
            "sagemaker:ListClusterEvents",
            "sagemaker:DescribeClusterEvent",
            "states:StopExecution",
            "s3:ListBucket",
            "iam:GetRole",  # managed features: the checkpoint role Launchpod created, if any
            # SageMaker managed MLflow: the server's state and its presigned UI URL; the
            # configure-mlflow workflow makes the server and its role (this function writes no IAM)
            "sagemaker:DescribeMlflowTrackingServer",
            "sagemaker:CreatePresignedMlflowTrackingServerUrl",
            # the job view's MLflow run: the tracking server's MLflow REST API, read only
            "sagemaker-mlflow:GetExperimentByName",
            "sagemaker-mlflow:SearchRuns",
            "sagemaker-mlflow:GetMetricHistory",  # a job's loss, read back for its metrics
            # a gone pod's log lines, from the application log group Container Insights ships to
            "logs:FilterLogEvents",
            # metrics: the HyperPod observability add-on's Amazon Managed Prometheus workspace, queried
            # (AMP's query APIs, "Amazon Managed Service for Prometheus permissions": aps:QueryMetrics)
            "aps:QueryMetrics",
            "grafana:ListWorkspaces",  # managed features: the Grafana workspace Launchpod made for the dashboards
            # task governance: the cluster's scheduler config and its teams' compute quotas, changed
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
            # notifications: e-mail subscriptions with their filter policies, and the test message
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
        # Kubernetes client reads the cluster's endpoint and CA (adapters/k8s/client.py); the clusters table: the
        # cluster's Region, which its EKS client follows (usecases/regions.py)
        actions=("execute-api:ManageConnections", "lambda:InvokeFunction", "eks:DescribeCluster"),
        tables=("connections", "clusters"),
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
    # One function for both schedules (the stack is at CloudFormation's 500 resources; a function is 4 of them):
    # the hourly drift check, and the watcher every 5 minutes, which the schedule names with {"check": "watch"}.
    FunctionSpec(
        "events-drift-check",
        "launchpod.entrypoints.events.drift_check.handler",
        "Schedules: compares every cluster's add-ons with the pinned manifest and records drift (hourly); tells"
        " subscribers of failed training jobs, unhealthy endpoints and training plans nearing their end (watcher)",
        actions=(
            "eks:DescribeCluster",  # also the Kubernetes client's endpoint and CA (the watcher)
            "eks:ListAddons",
            "eks:DescribeAddon",
            "eks:DescribeAddonVersions",
            # the watcher: the instance groups' training plans, each plan's EndTime, and the notification
            "sagemaker:DescribeCluster",
            "sagemaker:DescribeTrainingPlan",
            "sns:Publish",
        ),
        tables=("clusters", "notifications"),
        timeout=300,
        kubernetes=True,  # the watcher lists every cluster's jobs and endpoints
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

STATE_MACHINES: tuple[StateMachineSpec, ...] = ()

HYPERPOD_STATE_CHANGE = "SageMaker HyperPod Cluster State Change"
HYPERPOD_NODE_HEALTH = "SageMaker HyperPod Cluster Node Health Event"
# Only for clusters with NodeProvisioningMode Continuous (SageMaker HyperPod cluster events reference,
# https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-cluster-events-reference.html).
HYPERPOD_CLUSTER_EVENT = "SageMaker HyperPod Cluster Event"
NOTIFICATIONS_TOPIC = "notifications"  # the SNS topic "<prefix>-notifications" (docs/notifications.md)
# what the Watch schedule sends its function (entrypoints.events.drift_check)
WATCH_INPUT = {"check": "watch"}


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
        EventRuleSpec(
            "Watch",
            "events-drift-check",
            "Every 5 minutes: notify failed jobs, unhealthy endpoints, training plans nearing their end",
            schedule="rate(5 minutes)",
            input=WATCH_INPUT,
        ),
    )
