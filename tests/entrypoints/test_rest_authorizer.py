"""The REST authorizer (own OIDC issuer) accepts a valid bearer ID token for the whole API and refuses the rest."""

from __future__ import annotations

import time

import pytest
from launchpod.entrypoints.api import authorizer
from launchpod.entrypoints.api.auth import principal_from
from launchpod.runtime.settings import settings

from tests.entrypoints import idp

ISSUER = "https://idp.example.com/oauth2/default"
METHOD_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/v1/GET/api/clusters/c-1"


@pytest.fixture(autouse=True)
def issuer(monkeypatch):
    idp.trust(monkeypatch, ISSUER, groups_claim="groups")
    yield
    settings.cache_clear()


def _token(**overrides) -> str:
    claims = {"preferred_username": "alice@example.com", "groups": ["Everyone", "viewer", "operator"]}
    return idp.id_token(ISSUER, claims, **overrides)


def _event(authorization: str | None, kind: str = "TOKEN") -> dict:
    if kind == "TOKEN":
        return {"type": "TOKEN", "methodArn": METHOD_ARN, "authorizationToken": authorization}
    return {
        "type": "REQUEST",
        "methodArn": METHOD_ARN,
        "headers": {"authorization": authorization} if authorization else {},
    }


@pytest.mark.parametrize("kind", ["TOKEN", "REQUEST"])
def test_a_valid_id_token_is_allowed_on_the_whole_api_with_its_groups(lambda_context, kind):
    answer = authorizer.handler(_event(f"Bearer {_token()}", kind), lambda_context)
    assert answer["principalId"] == "alice@example.com"
    statement = answer["policyDocument"]["Statement"][0]
    assert statement["Effect"] == "Allow"
    assert statement["Resource"] == "arn:aws:execute-api:us-east-1:123456789012:abc123/v1/*"
    assert answer["context"] == {
        "cognito:username": "alice@example.com",
        "sub": "u-1",
        "cognito:groups": "Everyone viewer operator",
    }


def test_the_api_reads_the_lambda_authorizer_context(lambda_context):
    answer = authorizer.handler(_event(f"Bearer {_token()}"), lambda_context)
    event = {"requestContext": {"authorizer": {**answer["context"], "principalId": answer["principalId"]}}}
    who = principal_from(event)
    assert (who.subject, who.role.value) == ("alice@example.com", "operator")


def test_cognito_access_tokens_are_refused_but_other_issuers_need_no_token_use(lambda_context):
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer.handler(_event(f"Bearer {_token(token_use='access')}"), lambda_context)
    assert authorizer.handler(_event(f"Bearer {_token(token_use='id')}"), lambda_context)["principalId"]


@pytest.mark.parametrize(
    "authorization", [None, "", "Bearer", "Bearer garbage", "Basic abc", "EXPIRED", "WRONG_AUDIENCE", "WRONG_ISSUER"]
)
def test_missing_invalid_expired_or_foreign_tokens_are_unauthorized(lambda_context, authorization):
    authorization = {
        "EXPIRED": f"Bearer {_token(exp=int(time.time()) - 10)}",
        "WRONG_AUDIENCE": f"Bearer {_token(aud='other')}",
        "WRONG_ISSUER": f"Bearer {_token(iss='https://evil.example.com')}",
    }.get(authorization, authorization)
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer.handler(_event(authorization), lambda_context)


def test_no_configured_issuer_refuses_everyone(lambda_context, monkeypatch):
    monkeypatch.delenv("LAUNCHPOD_JWT_ISSUER")
    settings.cache_clear()
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer.handler(_event(f"Bearer {_token()}"), lambda_context)
