"""MCP gateway: the mcp_gateway container image run as a Lambda behind an HTTP API with a JWT authorizer.

The gateway only proxies to the REST API with the caller's token (DESIGN section 7), so its role
needs no AWS permissions beyond logs and tracing. The HTTP API checks the JWT before any request
reaches it; the REST API's Cognito authorizer checks it again. Built only if the Dockerfile exists.
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import Duration, IgnoreMode, RemovalPolicy
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
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
            description=f"{name}: logs and tracing only; it reaches AWS through the REST API",
        )
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
            environment={"LAUNCHPOD_API_URL": rest_url, "LAUNCHPOD_MCP_MAX_WAIT_SECONDS": "25"},
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
