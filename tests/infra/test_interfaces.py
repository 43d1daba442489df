"""Interfaces: REST and WebSocket APIs, the MCP gateway, Cognito, the web distribution."""

from __future__ import annotations

import pytest
from aws_cdk.assertions import Match, Template

pytestmark = pytest.mark.infra

PUBLIC = {"health", "openapi.json", "docs"}


@pytest.fixture(scope="module")
def template(synth) -> Template:
    return Template.from_json(synth.template)


def _path_of(synth, resource_id: str) -> str:
    parts = []
    while resource_id in synth.resources:
        props = synth.resources[resource_id]["Properties"]
        parts.insert(0, props["PathPart"])
        parent = props["ParentId"]
        resource_id = parent.get("Ref", "") if isinstance(parent, dict) and "Ref" in parent else ""
    return "/" + "/".join(parts)


def _routes(synth, protocol: str) -> list[dict]:
    apis = {
        k for k, a in synth.of_type("AWS::ApiGatewayV2::Api").items() if a["Properties"]["ProtocolType"] == protocol
    }
    return [r for r in synth.of_type("AWS::ApiGatewayV2::Route").values() if r["Properties"]["ApiId"]["Ref"] in apis]


def test_rest_api_sends_everything_under_api_through_the_cognito_authorizer_but_public_reads(synth):
    methods = {}
    for method in synth.of_type("AWS::ApiGateway::Method").values():
        props = method["Properties"]
        if props["HttpMethod"] == "OPTIONS":
            continue
        methods[(props["HttpMethod"], _path_of(synth, props["ResourceId"]["Ref"]))] = props["AuthorizationType"]
    assert methods == {
        ("ANY", "/api/{proxy+}"): "COGNITO_USER_POOLS",
        **{("GET", f"/api/{p}"): "NONE" for p in PUBLIC},
    }


def test_the_sandbox_gateway_skips_token_checks_on_exactly_the_public_routes():
    from sandbox.gateway import PUBLIC_REST_PATHS

    assert {f"/api/{p}" for p in PUBLIC} == PUBLIC_REST_PATHS


def test_rest_stage_traces_and_writes_access_logs(template):
    template.has_resource_properties(
        "AWS::ApiGateway::Stage",
        {"TracingEnabled": True, "AccessLogSetting": Match.object_like({"DestinationArn": Match.any_value()})},
    )


def test_websocket_routes_reach_their_functions_and_connect_is_authorized(synth):
    integrations = synth.of_type("AWS::ApiGatewayV2::Integration")
    functions = synth.of_type("AWS::Lambda::Function")
    routes = {}
    for route in _routes(synth, "WEBSOCKET"):
        props = route["Properties"]
        integration = integrations[props["Target"]["Fn::Join"][1][1]["Ref"]]
        uri = str(integration["Properties"]["IntegrationUri"])
        [fn] = [f["Properties"]["FunctionName"] for k, f in functions.items() if k in uri]
        routes[props["RouteKey"]] = (fn, props.get("AuthorizationType", "NONE"))
    assert routes == {
        "$connect": ("launchpod-ws-connect", "CUSTOM"),
        "$disconnect": ("launchpod-ws-disconnect", "NONE"),
        "$default": ("launchpod-ws-message", "NONE"),
    }
    [authorizer] = [
        a
        for a in synth.of_type("AWS::ApiGatewayV2::Authorizer").values()
        if a["Properties"]["AuthorizerType"] == "REQUEST"
    ]
    assert authorizer["Properties"]["IdentitySource"] == ["route.request.querystring.token"]


def test_cognito_has_viewer_operator_admin_groups_and_requires_mfa(synth, template):
    groups = {g["Properties"]["GroupName"] for g in synth.of_type("AWS::Cognito::UserPoolGroup").values()}
    assert groups == {"viewer", "operator", "admin"}
    template.has_resource_properties(
        "AWS::Cognito::UserPool",
        {"MfaConfiguration": "ON", "AdminCreateUserConfig": {"AllowAdminCreateUserOnly": True}},
    )
    template.has_resource_properties("AWS::Cognito::UserPoolUserToGroupAttachment", {"GroupName": "admin"})


def test_mcp_gateway_is_an_arm64_image_behind_a_jwt_checked_http_api(synth, template):
    template.has_resource_properties(
        "AWS::Lambda::Function",
        {"PackageType": "Image", "Architectures": ["arm64"], "FunctionName": "launchpod-mcp-gateway"},
    )
    template.has_resource_properties("AWS::ApiGatewayV2::Authorizer", {"AuthorizerType": "JWT"})
    http_routes = [r["Properties"] for r in _routes(synth, "HTTP")]
    assert http_routes and all(r["AuthorizationType"] == "JWT" for r in http_routes)


def test_mcp_gateway_keeps_sessions_in_a_ttl_table_it_alone_may_read_and_write_item_by_item(synth):
    [(key, table)] = [(k, t) for k, t in synth.of_type("AWS::DynamoDB::Table").items() if k.startswith("McpGateway")]
    props = table["Properties"]
    assert props["KeySchema"] == [{"AttributeName": "sessionId", "KeyType": "HASH"}]
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    [function] = [
        f["Properties"]
        for f in synth.of_type("AWS::Lambda::Function").values()
        if f["Properties"].get("FunctionName") == "launchpod-mcp-gateway"
    ]
    assert function["Environment"]["Variables"]["LAUNCHPOD_MCP_SESSIONS_TABLE"] == {"Ref": key}
    role = function["Role"]["Fn::GetAtt"][0]
    statements = [
        s
        for p in synth.of_type("AWS::IAM::Policy").values()
        if {"Ref": role} in p["Properties"]["Roles"]
        for s in p["Properties"]["PolicyDocument"]["Statement"]
    ]
    on_table = [s for s in statements if any(str(a).startswith("dynamodb:") for a in _list(s["Action"]))]
    assert [sorted(_list(s["Action"])) for s in on_table] == [
        ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"]
    ]
    assert _list(on_table[0]["Resource"]) == [{"Fn::GetAtt": [key, "Arn"]}]


def _list(value):
    return value if isinstance(value, list) else [value]


def test_web_is_served_by_cloudfront_through_origin_access_control_with_security_headers(synth, template):
    template.resource_count_is("AWS::CloudFront::OriginAccessControl", 1)
    template.has_resource_properties(
        "AWS::CloudFront::ResponseHeadersPolicy",
        {
            "ResponseHeadersPolicyConfig": Match.object_like(
                {
                    "SecurityHeadersConfig": Match.object_like(
                        {
                            "ContentSecurityPolicy": Match.any_value(),
                            "StrictTransportSecurity": Match.any_value(),
                            "FrameOptions": {"FrameOption": "DENY", "Override": True},
                        }
                    )
                }
            )
        },
    )
    template.has_resource_properties(
        "AWS::CloudFront::Distribution",
        {
            "DistributionConfig": Match.object_like(
                {"DefaultCacheBehavior": Match.object_like({"ViewerProtocolPolicy": "redirect-to-https"})}
            )
        },
    )
    # the app and config.json (two sources: the build and the generated file)
    [deployment] = synth.of_type("Custom::CDKBucketDeployment").values()
    assert len(deployment["Properties"]["SourceBucketNames"]) == 2
    # every object is checked again before use: an upgrade's index.html is never read stale from a browser's cache
    assert deployment["Properties"]["SystemMetadata"] == {"cache-control": "no-cache"}


def test_config_json_gives_the_web_app_this_stacks_endpoints_and_cognito_client(synth):
    import json
    import re

    [deployment] = synth.of_type("Custom::CDKBucketDeployment").values()
    keys = [k.removesuffix(".zip") for k in deployment["Properties"]["SourceObjectKeys"]]
    [config_file] = [
        synth.outdir / f"asset.{k}" / "config.json"
        for k in keys
        if (synth.outdir / f"asset.{k}" / "config.json").is_file()
        and "marker" in (synth.outdir / f"asset.{k}" / "config.json").read_text()
    ]
    markers = deployment["Properties"]["SourceMarkers"][keys.index(config_file.parent.name.removeprefix("asset."))]
    config = json.loads(
        re.sub(r"<<marker:0xbaba:(\d+)>>", lambda m: json.dumps(f"marker{m.group(1)}"), config_file.read_text())
    )

    def resolved(value: str) -> str:
        return json.dumps(markers[f"<<marker:0xbaba:{value.removeprefix('marker')}>>"])

    assert "/v1/api" in resolved(config["apiUrl"]) and "ApiRest" in resolved(config["apiUrl"])
    assert "wss://" in resolved(config["wsUrl"])
    assert config["auth"]["mode"] == "cognito" and config["auth"]["tokenUse"] == "id"
    assert "WebClient" in resolved(config["auth"]["clientId"])
    assert "amazoncognito.com" in resolved(config["auth"]["domain"])
