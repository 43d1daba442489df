"""Functions: one Lambda per registry entry, each with its own role, log group and the environment
``launchpod.environment`` gives it (the sandbox gives the same).

Python 3.12 on arm64, JSON logs, X-Ray active tracing and Powertools metrics (EMF, so no
cloudwatch:PutMetricData). Third-party libraries come from one layer (``make lambda-layer``);
the code asset is the ``functions/`` directory, so the handler strings are the registry's.
"""

from __future__ import annotations

import jsii
from aws_cdk import Aws, Duration, NestedStack, RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct
from launchpod import policies
from launchpod.environment import DeployedNames, function_environment
from launchpod.registry import NOTIFICATIONS_TOPIC, FunctionSpec, StateMachineSpec, function_name

from launchpod_cdk import iam as scoping
from launchpod_cdk.config import Inputs

RUNTIME = lambda_.Runtime.PYTHON_3_12
CODE_EXCLUDE = ["**/__pycache__", "**/*.pyc", "*.egg-info", "**/.mypy_cache", "**/.pytest_cache"]
# The built code (cdk/build_code.py) keeps its __pycache__: the runtime's bytecode is why it was built.
BUILT_CODE_EXCLUDE = ["*.egg-info", "**/.mypy_cache", "**/.pytest_cache"]


def state_machine_name(prefix: str, machine: str) -> str:
    return f"{prefix}-{machine}"


def state_machine_arn(prefix: str, machine: str) -> str:
    # Built from the name, not the resource, so functions may hold it without a dependency cycle.
    return (
        f"arn:{Aws.PARTITION}:states:{Aws.REGION}:{Aws.ACCOUNT_ID}:stateMachine:{state_machine_name(prefix, machine)}"
    )


class Functions(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        inputs: Inputs,
        specs: tuple[FunctionSpec, ...],
        machines: tuple[StateMachineSpec, ...],
        table_names: dict[str, str],
        bucket_name: str,
        boundary_arn: str,
    ) -> None:
        super().__init__(scope, id)
        prefix = inputs.prefix
        self.functions: dict[str, lambda_.Function] = {}
        self.roles: dict[str, iam.Role] = {}
        self.specs: dict[str, FunctionSpec] = {s.name: s for s in specs}

        self.layer = lambda_.LayerVersion(
            self,
            "Dependencies",
            code=lambda_.Code.from_asset(str(inputs.layer_source)),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[lambda_.Architecture.ARM_64],
            description="aws-lambda-powertools, pydantic, kubernetes, PyYAML, boto3 (make lambda-layer)",
            removal_policy=RemovalPolicy.DESTROY,
        )
        code = lambda_.Code.from_asset(
            str(inputs.code_source), exclude=BUILT_CODE_EXCLUDE if inputs.code_is_built else CODE_EXCLUDE
        )

        kube_users = [s for s in specs if s.kubernetes]
        self.kube_role = iam.Role(
            self,
            "KubeAccessRole",
            role_name=policies.kube_role_name(prefix),
            description="Launchpod's identity inside every EKS cluster: gets an EKS access entry per cluster",
            assumed_by=iam.AccountRootPrincipal(),  # narrowed below to the Kubernetes-calling roles
            max_session_duration=Duration.hours(1),
        )

        names = DeployedNames(
            tables=table_names,
            kube_role_arn=self.kube_role.role_arn,
            prefix=prefix,
            bucket=bucket_name,
            boundary_arn=boundary_arn,
            workflows={m.name: state_machine_arn(prefix, m.name) for m in machines},
            notifications_topic_arn=f"arn:{Aws.PARTITION}:sns:{Aws.REGION}:{Aws.ACCOUNT_ID}:{prefix}-{NOTIFICATIONS_TOPIC}",
        )

        # The functions' log groups live in a nested stack: a CloudFormation stack holds at most 500 resources
        # (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html) and each
        # function costs four (function, role, policy, log group). A function names its group, so nothing
        # crosses the stacks but the order: the groups exist before any function that writes to them.
        self.log_stack = NestedStack(self, "Logs", description="Launchpod: the log group of each function")
        for spec in specs:
            name = function_name(spec.name, prefix)
            group_name = f"/aws/lambda/{name}"
            logs.LogGroup(
                self.log_stack,
                f"{spec.name}-logs",
                log_group_name=group_name,
                retention=_retention(inputs.log_retention_days),
                removal_policy=RemovalPolicy.DESTROY,
            )
            log_group = logs.LogGroup.from_log_group_name(self, f"{spec.name}-log-group", group_name)
            # Named outside "<prefix>-*", the pattern the IAM-writing functions are scoped to; the
            # statements come from launchpod.policies once every ARN is known (grant()).
            role = iam.Role(
                self,
                f"{spec.name}-role",
                role_name=policies.role_name(spec.name, prefix),
                assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
                description=f"{name}: only the actions its adapters call",
            )
            env = scoping.compact(function_environment(spec, names))  # ARNs as Fn::Sub: the template's size
            fn = lambda_.Function(
                self,
                spec.name,
                function_name=name,
                description=spec.description,
                runtime=RUNTIME,
                architecture=lambda_.Architecture.ARM_64,
                handler=spec.handler,
                code=code,
                layers=[self.layer],
                memory_size=spec.memory,
                timeout=Duration.seconds(spec.timeout),
                role=role,
                environment=env,
                tracing=lambda_.Tracing.ACTIVE,
                logging_format=lambda_.LoggingFormat.JSON,
                application_log_level_v2=lambda_.ApplicationLogLevel.INFO,
                system_log_level_v2=lambda_.SystemLogLevel.WARN,
                log_group=log_group,
            )
            fn.node.add_dependency(self.log_stack)
            self.functions[spec.name] = fn
            self.roles[spec.name] = role

        if kube_users:
            # Replace the placeholder root principal: only the Kubernetes-calling roles may assume it.
            self.kube_role.node.default_child.add_property_override(
                "AssumeRolePolicyDocument.Statement",
                [
                    {
                        "Action": "sts:AssumeRole",
                        "Effect": "Allow",
                        "Principal": {"AWS": [self.roles[s.name].role_arn for s in kube_users]},
                    }
                ],
            )

    def grant(self, deployment: policies.Deployment) -> None:
        """Every function's statements, exactly as ``launchpod.policies`` writes them (the sandbox
        evaluates the same ones)."""
        for name, role in self.roles.items():
            for statement in scoping.statements(policies.function_statements(self.specs[name], deployment)):
                role.add_to_policy(statement)
            if set(self.specs[name].actions) & NEWER_THAN_CFN_LINT:
                policy = role.node.try_find_child("DefaultPolicy")
                policy.node.default_child.add_metadata("cfn-lint", {"config": {"ignore_checks": ["W3037"]}})


# IAM actions of APIs newer than cfn-lint's list of actions (W3037 "is not one of"): the HyperPod cluster
# operations (botocore's sagemaker model has ListClusterOperations and DescribeClusterOperation; AWS:
# https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-cluster-operations.html) and
# MoveClusterNodes (botocore's model; https://docs.aws.amazon.com/sagemaker/latest/dg/smcluster-eks-move-nodes.html).
# Only the policies of functions that call them skip the check.
NEWER_THAN_CFN_LINT = frozenset(
    {"sagemaker:ListClusterOperations", "sagemaker:DescribeClusterOperation", "sagemaker:MoveClusterNodes"}
)


def _retention(days: int) -> logs.RetentionDays:
    for value in logs.RetentionDays:
        if value.value == days:
            return value
    return logs.RetentionDays.THREE_MONTHS


def access_log_format() -> apigw.AccessLogFormat:
    """API Gateway access logs as JSON with the standard fields, for REST and HTTP/WebSocket stages alike."""
    return apigw.AccessLogFormat.json_with_standard_fields(
        caller=False,
        http_method=True,
        ip=True,
        protocol=True,
        request_time=True,
        resource_path=True,
        response_length=True,
        status=True,
        user=True,
    )


@jsii.implements(apigwv2.IAccessLogSettings)
class AccessLogs:
    """API Gateway v2 stage access logs as JSON with the standard fields (the interface has no struct)."""

    def __init__(self, log_group: logs.ILogGroup) -> None:
        self._destination = apigwv2.LogGroupLogDestination(log_group)

    @property
    def destination(self) -> apigwv2.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigw.AccessLogFormat:
        return access_log_format()
