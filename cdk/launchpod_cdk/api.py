"""API: the REST API (Cognito authorizer) in front of the api Lambda, and the WebSocket API.

REST: ``/api/{proxy+}`` goes to the api function behind the Cognito authorizer (or, with your own
OIDC issuer, a Lambda TOKEN authorizer running ``rest-authorizer``, answers cached 5 minutes); only
``GET /api/health``, ``/api/openapi.json`` and ``/api/docs`` are public. WebSocket: ``$connect``
is authorized (browsers cannot send headers on a WebSocket, so the token travels as ``?token=``),
``$disconnect`` and ``$default`` run on the connection ``$connect`` admitted.
"""

from __future__ import annotations

from aws_cdk import Aws, Duration, RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from launchpod_cdk.functions import AccessLogs, _retention, access_log_format

PUBLIC_PATHS = ("health", "openapi.json", "docs")
STAGE = "v1"
WS_ROUTES = {"$connect": "ws-connect", "$disconnect": "ws-disconnect", "$default": "ws-message"}
WS_AUTHORIZER = "ws-authorizer"  # registry function that checks the ?token= JWT on $connect
REST_AUTHORIZER = "rest-authorizer"  # registry function that checks the bearer JWT (own OIDC issuer only)


class Apis(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        prefix: str,
        functions: dict[str, lambda_.Function],
        user_pool: cognito.IUserPool | None,
        allowed_origins: list[str],
        log_retention_days: int,
    ) -> None:
        super().__init__(scope, id)
        retention = _retention(log_retention_days)

        rest_logs = logs.LogGroup(self, "RestAccessLogs", retention=retention, removal_policy=RemovalPolicy.DESTROY)
        self.rest = apigw.RestApi(
            self,
            "Rest",
            rest_api_name=f"{prefix}-api",
            description="Launchpod REST API",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            cloud_watch_role=True,
            # Account-wide setting other APIs may rely on: keep the role when this stack goes.
            cloud_watch_role_removal_policy=RemovalPolicy.RETAIN,
            deploy_options=apigw.StageOptions(
                stage_name=STAGE,
                tracing_enabled=True,
                logging_level=apigw.MethodLoggingLevel.ERROR,
                data_trace_enabled=False,
                throttling_rate_limit=50,
                throttling_burst_limit=100,
                access_log_destination=apigw.LogGroupLogDestination(rest_logs),
                access_log_format=access_log_format(),
            ),
            # Bearer tokens, not cookies: the preflight only has to name the web origins.
            default_cors_preflight_options=apigw.CorsOptions(
                allow_origins=allowed_origins,
                allow_methods=apigw.Cors.ALL_METHODS,
                allow_headers=[*apigw.Cors.DEFAULT_HEADERS, "Idempotency-Key"],
            ),
        )
        if user_pool is not None:
            authorizer: apigw.IAuthorizer = apigw.CognitoUserPoolsAuthorizer(
                self, "CognitoAuthorizer", cognito_user_pools=[user_pool]
            )
            authorization_type = apigw.AuthorizationType.COGNITO
        else:
            # Your own OIDC issuer: rest-authorizer verifies the token and allows the whole API, so
            # one cached answer (keyed by the Authorization header) serves every route.
            authorizer = apigw.TokenAuthorizer(
                self,
                "TokenAuthorizer",
                handler=functions[REST_AUTHORIZER],
                identity_source=apigw.IdentitySource.header("Authorization"),
                validation_regex=r"^Bearer [-0-9A-Za-z_.=]+$",
                results_cache_ttl=Duration.minutes(5),
            )
            authorization_type = apigw.AuthorizationType.CUSTOM
        self.rest_authorizer = authorizer
        integration = apigw.LambdaIntegration(functions["api"], proxy=True)
        api = self.rest.root.add_resource("api")
        self.proxy = api.add_proxy(
            any_method=True,
            default_integration=integration,
            default_method_options=apigw.MethodOptions(authorizer=authorizer, authorization_type=authorization_type),
        )
        for path in PUBLIC_PATHS:
            api.add_resource(path).add_method("GET", integration, authorization_type=apigw.AuthorizationType.NONE)

        # WebSocket
        ws_logs = logs.LogGroup(self, "WsAccessLogs", retention=retention, removal_policy=RemovalPolicy.DESTROY)
        connect_auth = None
        if WS_AUTHORIZER in functions:
            connect_auth = authorizers.WebSocketLambdaAuthorizer(
                "ConnectAuthorizer",
                functions[WS_AUTHORIZER],
                identity_source=["route.request.querystring.token"],
            )
        self.authorized_connect = connect_auth is not None

        def route(key: str) -> apigwv2.WebSocketRouteOptions:
            return apigwv2.WebSocketRouteOptions(
                integration=integrations.WebSocketLambdaIntegration(
                    f"{key[1:]}-integration", functions[WS_ROUTES[key]]
                ),
                authorizer=connect_auth if key == "$connect" else None,
            )

        self.ws = apigwv2.WebSocketApi(
            self,
            "WebSocket",
            api_name=f"{prefix}-stream",
            description="Launchpod streaming: operation, cluster and log topics",
            connect_route_options=route("$connect"),
            disconnect_route_options=route("$disconnect"),
            default_route_options=route("$default"),
        )
        self.ws_stage = apigwv2.WebSocketStage(
            self,
            "WebSocketStage",
            web_socket_api=self.ws,
            stage_name=STAGE,
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(rate_limit=50, burst_limit=100),
            access_log_settings=AccessLogs(ws_logs),
        )
        # Stage logging needs the account-level CloudWatch role the REST API sets up.
        account = self.rest.node.try_find_child("Account")
        if account is not None:
            self.ws_stage.node.add_dependency(account)

    @property
    def rest_url(self) -> str:
        """The stage URL without a trailing slash; the app's paths start with /api."""
        return f"https://{self.rest.rest_api_id}.execute-api.{Aws.REGION}.{Aws.URL_SUFFIX}/{STAGE}"

    @property
    def ws_url(self) -> str:
        return self.ws_stage.url
