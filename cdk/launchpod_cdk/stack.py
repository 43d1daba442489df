"""The Launchpod stack: everything the registry describes, wired in dependency order.

Order matters only for references: functions get state machine ARNs by name (no cycle), the web
distribution exists before the Cognito client (its URL is a callback) and before the REST API
(its origin is allowed by CORS), and config.json is written last with every endpoint.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from aws_cdk import Annotations, App, Aws, CfnOutput, Environment, Stack
from aws_cdk import aws_iam as iam
from constructs import Construct
from launchpod import policies, registry
from launchpod.registry import FunctionSpec
from launchpod.runtime.settings import ENV_KEYS

from launchpod_cdk import iam as scoping
from launchpod_cdk import nag
from launchpod_cdk.api import STAGE, Apis
from launchpod_cdk.auth import Auth
from launchpod_cdk.config import Inputs
from launchpod_cdk.data import Data
from launchpod_cdk.events import Events
from launchpod_cdk.functions import Functions
from launchpod_cdk.gateway import McpGateway
from launchpod_cdk.notifications import Notifications
from launchpod_cdk.web import Web
from launchpod_cdk.workflows import Workflows

# Functions the stack wires by name (routes, stream, rules) -> the handler each is expected to have.
WIRED_BY_NAME: dict[str, str] = {
    "api": "launchpod.entrypoints.api.app.handler",
    "ws-connect": "launchpod.entrypoints.stream.connect.handler",
    "ws-disconnect": "launchpod.entrypoints.stream.disconnect.handler",
    "ws-message": "launchpod.entrypoints.stream.message.handler",
    "operations-stream": "launchpod.entrypoints.stream.operations_stream.handler",
    "ws-authorizer": "launchpod.entrypoints.stream.authorizer.handler",
    "rest-authorizer": "launchpod.entrypoints.api.authorizer.handler",
    "events-cluster-state": "launchpod.entrypoints.events.cluster_state.handler",
    "events-node-health": "launchpod.entrypoints.events.node_health.handler",
    "events-execution-status": "launchpod.entrypoints.events.execution_status.handler",
    "events-drift-check": "launchpod.entrypoints.events.drift_check.handler",
    "events-cluster-event": "launchpod.entrypoints.events.cluster_event.handler",
    "notify-webhooks": "launchpod.entrypoints.events.webhook_relay.handler",
}
# The scheduled function that runs the watcher (jobs failed, endpoints unhealthy, training plans expiring).
WATCHER = "events-drift-check"


class LaunchpodStack(Stack):
    def __init__(self, scope: Construct, id: str, *, inputs: Inputs, **kwargs) -> None:
        super().__init__(
            scope, id, description="Launchpod: serverless control plane for SageMaker HyperPod on EKS", **kwargs
        )
        self.inputs = inputs
        specs: tuple[FunctionSpec, ...] = registry.FUNCTIONS + tuple(
            f for f in inputs.extra_functions if f.name not in registry.FUNCTIONS_BY_NAME
        )
        if inputs.layer_is_placeholder:
            if inputs.require_layer:
                raise SystemExit(
                    f"No Lambda layer at {inputs.layer_dir}/python: run `make lambda-layer` before deploying."
                )
            Annotations.of(self).add_warning_v2(
                "launchpod:layer-placeholder",
                "Lambda layer is the placeholder (run `make lambda-layer`); the functions cannot start without it.",
            )
        if not inputs.code_is_built:
            if inputs.require_layer:
                raise SystemExit(
                    f"No code asset at {inputs.code_dir} matching functions/ as it is now: run `make lambda-layer` "
                    "before deploying (it compiles the functions for the runtime's Python)."
                )
            if not inputs.layer_is_placeholder:
                Annotations.of(self).add_warning_v2(
                    "launchpod:code-without-bytecode",
                    "The functions' code ships from functions/ without bytecode (build/code is missing or older "
                    "than functions/: run `make lambda-layer`); each cold start compiles it.",
                )

        # Your own OIDC issuer replaces the Cognito user pool (cdk/README.md, "Use your own identity provider").
        self.auth = None if inputs.own_idp else Auth(self, "Auth", prefix=inputs.prefix, admin_email=inputs.admin_email)
        if inputs.own_idp and inputs.admin_email:
            Annotations.of(self).add_warning_v2(
                "launchpod:admin-email-ignored",
                "launchpod:adminEmail is ignored with launchpod:oidcIssuer: add users to groups in your provider.",
            )
        self.data = Data(self, "Data", tables=registry.TABLES, bucket_name=scoping.shared_bucket_name(inputs.prefix))
        tables = self.data.tables
        boundary_arn = f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:policy/{policies.boundary_name(inputs.prefix)}"
        self.functions = Functions(
            self,
            "Functions",
            inputs=inputs,
            specs=specs,
            machines=registry.STATE_MACHINES,
            table_names={k: t.table_name for k, t in tables.items()},
            bucket_name=self.data.bucket.bucket_name,
            boundary_arn=boundary_arn,
        )
        fns = self.functions.functions
        self.workflows = Workflows(
            self,
            "Workflows",
            prefix=inputs.prefix,
            machines=registry.STATE_MACHINES,
            statemachines_dir=inputs.statemachines_dir,
            functions=fns,
            log_retention_days=inputs.log_retention_days,
        )
        identity_origin = None
        if inputs.oidc_issuer:
            parts = urlsplit(inputs.oidc_issuer)
            identity_origin = f"{parts.scheme}://{parts.netloc}"
        self.web = Web(
            self, "Web", prefix=inputs.prefix, log_bucket=self.data.log_bucket, identity_origin=identity_origin
        )
        origins = [self.web.url, *(u.rstrip("/") for u in inputs.extra_callback_urls)]
        if self.auth is not None:
            client = self.auth.add_web_client([f"{self.web.url}/", *inputs.extra_callback_urls])
            issuer, audience, client_id = self.auth.issuer, client.user_pool_client_id, client.user_pool_client_id
        else:
            issuer, audience = inputs.oidc_issuer, inputs.oidc_audience
            client_id = inputs.web_client_id
        self.issuer, self.audience = issuer, audience
        for name in ("ws-authorizer", "rest-authorizer"):
            if name in fns:
                # The authorizers verify the same ID tokens the web client receives.
                fns[name].add_environment(ENV_KEYS["jwt_issuer"], issuer)
                fns[name].add_environment(ENV_KEYS["jwt_audience"], audience)
                if inputs.oidc_groups_claim != "cognito:groups":
                    fns[name].add_environment(ENV_KEYS["jwt_groups_claim"], inputs.oidc_groups_claim)
        self.apis = Apis(
            self,
            "Api",
            prefix=inputs.prefix,
            functions=fns,
            user_pool=self.auth.user_pool if self.auth else None,
            allowed_origins=origins,
            log_retention_days=inputs.log_retention_days,
        )
        self.deployment = policies.Deployment(
            partition=Aws.PARTITION,
            region=Aws.REGION,
            account=Aws.ACCOUNT_ID,
            prefix=inputs.prefix,
            bucket=scoping.shared_bucket_name(inputs.prefix),
            table_arns={k: t.table_arn for k, t in tables.items()},
            table_stream_arns={k: t.table_stream_arn for k, t in tables.items() if t.table_stream_arn},
            kube_role_arn=self.functions.kube_role.role_arn,
            websocket_stage_arn=(
                f"arn:{Aws.PARTITION}:execute-api:{Aws.REGION}:{Aws.ACCOUNT_ID}:{self.apis.ws.api_id}/{STAGE}"
            ),
            tables=registry.TABLES,
            state_machines=tuple(m.name for m in registry.STATE_MACHINES),
        )
        self.functions.grant(self.deployment)
        # The most any role Launchpod creates may do; its IAM grants are conditioned on this boundary.
        self.role_boundary = iam.ManagedPolicy(
            self,
            "CreatedRoleBoundary",
            managed_policy_name=policies.boundary_name(inputs.prefix),
            description="Permissions boundary of every role Launchpod creates at run time",
            document=iam.PolicyDocument.from_json(scoping.compact(policies.boundary_document(self.deployment))),
        )
        self.events = Events(self, "Events", prefix=inputs.prefix, functions=fns, tables=tables)
        self.notifications = Notifications(self, "Notifications", prefix=inputs.prefix, functions=fns)
        for spec in specs:
            if spec.name in fns and "notifications" in spec.tables:
                # every notification links to the console page it is about
                fns[spec.name].add_environment(ENV_KEYS["console_url"], self.web.url)
        if inputs.plan_expiring_setting is not None and WATCHER in fns:
            # the hours before a plan's end its subscribers are told (docs/notifications.md)
            fns[WATCHER].add_environment(ENV_KEYS["plan_expiring_hours"], inputs.plan_expiring_setting)
        for name in self.events.skipped:
            Annotations.of(self).add_info(f"No registry function {name}: its EventBridge rule is not created")

        self.gateway = None
        if inputs.gateway_enabled:
            self.gateway = McpGateway(
                self,
                "McpGateway",
                prefix=inputs.prefix,
                context=inputs.gateway_context,
                dockerfile=inputs.gateway_dockerfile,
                rest_url=self.apis.rest_url,
                issuer=issuer,
                audience=[audience],
                log_retention_days=inputs.log_retention_days,
            )

        # The shape web/src/lib/config.ts reads (AppConfig); mcpUrl and authority are extra, for agents.
        config = {
            "apiUrl": self.apis.rest_url + "/api",
            "wsUrl": self.apis.ws_url,
            "mcpUrl": self.gateway.url if self.gateway else None,
            "region": self.region,
            "auth": {
                "mode": "cognito",
                "domain": self.auth.domain.base_url(),
                "clientId": client_id,
                "redirectUri": f"{self.web.url}/",
                "scopes": ["openid", "email", "profile"],
                # API Gateway's Cognito authorizer takes the ID token when methods name no scopes.
                "tokenUse": "id",
                "authority": issuer,
                "userPoolId": self.auth.user_pool.user_pool_id,
            }
            if self.auth
            else {
                # Any OIDC provider: the web app reads its endpoints from <issuer>/.well-known/openid-configuration.
                "mode": "oidc",
                "issuer": issuer,
                "clientId": client_id,
                "redirectUri": f"{self.web.url}/",
                "scopes": list(inputs.oidc_scopes),
                "authority": issuer,
            },
        }
        self.web.deploy(inputs.web_source, config)

        outputs = {
            "WebUrl": self.web.url,
            "ApiUrl": config["apiUrl"],
            "WebSocketUrl": self.apis.ws_url,
            "SharedBucket": self.data.bucket.bucket_name,
            "KubeAccessRoleArn": self.functions.kube_role.role_arn,
            "NotificationsTopicArn": self.notifications.topic.topic_arn,
        }
        if self.auth:
            outputs["UserPoolId"] = self.auth.user_pool.user_pool_id
        if self.gateway:
            outputs["McpUrl"] = self.gateway.url
        for key, value in outputs.items():
            CfnOutput(self, key, value=value)


def build(outdir: str | None = None, inputs: Inputs | None = None) -> tuple[App, LaunchpodStack]:
    # One statement per set of actions on the same resources, and per resources given the same actions: the
    # 101 functions' policies fit the template's 1,000,000 bytes with room for more ("Minimizing policies",
    # aws-cdk-lib aws_iam README; the feature flag @aws-cdk/aws-iam:minimizePolicies).
    app = App(outdir=outdir or os.environ.get("CDK_OUTDIR"), context={"@aws-cdk/aws-iam:minimizePolicies": True})
    inputs = inputs or Inputs.from_context(app.node)
    stack = LaunchpodStack(
        app,
        app.node.try_get_context("launchpod:stackName") or "Launchpod",
        inputs=inputs,
        env=Environment(account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=os.environ.get("CDK_DEFAULT_REGION")),
    )
    nag.enable(app)
    nag.acknowledge(stack)
    return app, stack
