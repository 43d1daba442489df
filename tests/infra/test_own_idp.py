"""Your own OIDC issuer (launchpod:oidcIssuer): no Cognito, a Lambda authorizer on REST, the issuer everywhere."""

from __future__ import annotations

import json
import re

import pytest
from launchpod import registry

from tests.infra.conftest import OIDC
from tests.infra.test_checks import _violations

pytestmark = pytest.mark.infra

ISSUER = OIDC["oidc_issuer"]


def _function_id(synth, logical: str) -> str:
    name = registry.function_name(logical)
    [key] = [
        k for k, r in synth.of_type("AWS::Lambda::Function").items() if r["Properties"].get("FunctionName") == name
    ]
    return key


def test_no_cognito_resource_is_created(synth_oidc):
    assert not [r for r in synth_oidc.resources.values() if r["Type"].startswith("AWS::Cognito::")]
    assert "UserPoolId" not in synth_oidc.template.get("Outputs", {})


def test_rest_api_uses_a_cached_token_authorizer_backed_by_rest_authorizer(synth_oidc):
    [authorizer_id] = synth_oidc.of_type("AWS::ApiGateway::Authorizer")
    props = synth_oidc.resources[authorizer_id]["Properties"]
    assert props["Type"] == "TOKEN"
    assert props["IdentitySource"] == "method.request.header.Authorization"
    assert props["AuthorizerResultTtlInSeconds"] == 300
    assert _function_id(synth_oidc, "rest-authorizer") in json.dumps(props["AuthorizerUri"])
    methods = [
        m["Properties"]
        for m in synth_oidc.of_type("AWS::ApiGateway::Method").values()
        if m["Properties"]["HttpMethod"] == "ANY"
    ]
    assert methods and all(
        m["AuthorizationType"] == "CUSTOM" and m["AuthorizerId"] == {"Ref": authorizer_id} for m in methods
    )
    # API Gateway may invoke the authorizer.
    fn = _function_id(synth_oidc, "rest-authorizer")
    assert any(
        p["Properties"]["Principal"] == "apigateway.amazonaws.com"
        and p["Properties"]["FunctionName"] == {"Fn::GetAtt": [fn, "Arn"]}
        for p in synth_oidc.of_type("AWS::Lambda::Permission").values()
    )


def test_both_authorizer_functions_get_the_issuer_audience_and_groups_claim(synth_oidc):
    for name in ("ws-authorizer", "rest-authorizer"):
        env = synth_oidc.resources[_function_id(synth_oidc, name)]["Properties"]["Environment"]["Variables"]
        assert env["LAUNCHPOD_JWT_ISSUER"] == ISSUER
        assert env["LAUNCHPOD_JWT_AUDIENCE"] == OIDC["oidc_audience"]
        assert env["LAUNCHPOD_JWT_GROUPS_CLAIM"] == "groups"


def test_websocket_connect_is_still_authorized_by_ws_authorizer(synth_oidc):
    [authorizer] = [
        a["Properties"]
        for a in synth_oidc.of_type("AWS::ApiGatewayV2::Authorizer").values()
        if a["Properties"]["AuthorizerType"] == "REQUEST"
    ]
    assert _function_id(synth_oidc, "ws-authorizer") in json.dumps(authorizer["AuthorizerUri"])


def test_mcp_gateway_jwt_authorizer_trusts_the_issuer(synth_oidc):
    [jwt] = [
        a["Properties"]
        for a in synth_oidc.of_type("AWS::ApiGatewayV2::Authorizer").values()
        if a["Properties"]["AuthorizerType"] == "JWT"
    ]
    assert jwt["JwtConfiguration"] == {"Issuer": ISSUER, "Audience": [OIDC["oidc_audience"]]}


def test_config_json_describes_a_generic_oidc_provider_and_the_csp_allows_it(synth_oidc):
    configs = [
        json.loads(re.sub(r"<<marker:0xbaba:\d+>>", '"token"', p.read_text()))
        for p in synth_oidc.outdir.glob("asset.*/config.json")
        if '"oidc"' in p.read_text()
    ]
    assert configs, "no config.json with an oidc auth block"
    auth = configs[0]["auth"]
    assert auth["mode"] == "oidc" and auth["issuer"] == ISSUER and auth["clientId"] == OIDC["oidc_client_id"]
    assert auth["scopes"] == ["openid", "email", "profile", "groups"]
    [policy] = synth_oidc.of_type("AWS::CloudFront::ResponseHeadersPolicy").values()
    csp = policy["Properties"]["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]["ContentSecurityPolicy"]
    assert "https://idp.example.com" in csp["ContentSecurityPolicy"]


def test_cdk_nag_reports_no_unacknowledged_finding(synth_oidc):
    assert synth_oidc.error is None, "\n".join(_violations(synth_oidc.report)) or synth_oidc.error
    vague = [(path, rule) for path, rule, reason in synth_oidc.stack.acknowledgements if len(reason.split()) < 6]
    assert synth_oidc.stack.acknowledgements and vague == []


def test_cfn_lint_finds_nothing(synth_oidc):
    returncode, output = synth_oidc.cfn_lint.result()
    assert returncode == 0, output
