"""MCP gateway: the mcp_gateway container image run as a Lambda behind an HTTP API with a JWT authorizer.

The gateway only proxies to the REST API with the caller's token (DESIGN section 7), so its role
needs no AWS permissions beyond logs, tracing and its own sessions table: the toolsets each MCP session
enabled, keyed by ``Mcp-Session-Id`` (mcp_gateway/sessions.py), read and written item by item, expired by TTL.
The HTTP API checks the JWT before any request reaches it; the REST API's Cognito authorizer checks it
again. Built only if the Dockerfile exists.
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import Duration, IgnoreMode, RemovalPolicy
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_dynamodb as ddb
from aws_cdk import aws_ecr_assets as ecr_assets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from launchpod_cdk.functions import AccessLogs, _retention

# The image is built from the repository root (it installs launchpod.contracts too); only these enter the context.
CONTEXT_EXCLUDE = [
    "*",
    "!mcp_gateway",
    "!functions",
    "!pyproject.toml",
    "!README.md",
    "**/__pycache__",
    "**/node_modules",
]


class McpGateway(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        prefix: str,
        context: Path,
        dockerfile: str,
        rest_url: str,
        issuer: str,
        audience: list[str],
        log_retention_days: int,
    ) -> None:
        super().__init__(scope, id)
        name = f"{prefix}-mcp-gateway"
        log_group = logs.LogGroup(
            self,
            "Logs",
            log_group_name=f"/aws/lambda/{name}",
            retention=_retention(log_retention_days),
            removal_policy=RemovalPolicy.DESTROY,
        )
        self.role = role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"{name}: logs, tracing and its sessions table; it reaches AWS through the REST API",
        )
        # Sessions last hours: on-demand, expired by TTL; nothing in it is worth keeping after the stack.
        self.sessions = ddb.Table(
            self,
            "Sessions",
            partition_key=ddb.Attribute(name="sessionId", type=ddb.AttributeType.STRING),
            billing_mode=ddb.BillingMode.PAY_PER_REQUEST,
            time_to_live_attribute="expiresAt",
            point_in_time_recovery_specification=ddb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            removal_policy=RemovalPolicy.DESTROY,
        )
        # exactly the item calls DynamoSessionStore makes, on this table only
        self.sessions.grant(role, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem")
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["logs:CreateLogStream", "logs:PutLogEvents"], resources=[log_group.log_group_arn]
            )
        )
        self.function = lambda_.DockerImageFunction(
            self,
            "Function",
            function_name=name,
            description="MCP gateway (streamable HTTP): one tool per catalog operation, proxied to the REST API",
            code=lambda_.DockerImageCode.from_image_asset(
                str(context),
                file=dockerfile,
                platform=ecr_assets.Platform.LINUX_ARM64,
                exclude=CONTEXT_EXCLUDE,
                ignore_mode=IgnoreMode.DOCKER,
            ),
            architecture=lambda_.Architecture.ARM_64,
            memory_size=512,
            timeout=Duration.seconds(29),
            role=role,
            # API Gateway ends integrations at 29 s: the gateway's waits must finish before that.
            environment={
                "LAUNCHPOD_API_URL": rest_url,
                "LAUNCHPOD_MCP_MAX_WAIT_SECONDS": "25",
                "LAUNCHPOD_MCP_SESSIONS_TABLE": self.sessions.table_name,
            },
            tracing=lambda_.Tracing.ACTIVE,
            logging_format=lambda_.LoggingFormat.JSON,
            log_group=log_group,
        )
        access_logs = logs.LogGroup(
            self, "AccessLogs", retention=_retention(log_retention_days), removal_policy=RemovalPolicy.DESTROY
        )
        self.http = apigwv2.HttpApi(
            self,
            "Http",
            api_name=name,
            description="MCP over streamable HTTP; JWT checked by API Gateway",
            create_default_stage=False,
            default_authorizer=authorizers.HttpJwtAuthorizer("Jwt", issuer, jwt_audience=audience),
            default_integration=integrations.HttpLambdaIntegration("Mcp", self.function),
        )
        self.stage = apigwv2.HttpStage(
            self,
            "Stage",
            http_api=self.http,
            stage_name="$default",
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(rate_limit=20, burst_limit=40),
            access_log_settings=AccessLogs(access_logs),
        )

    @property
    def url(self) -> str:
        return f"{self.http.api_endpoint}/mcp"
