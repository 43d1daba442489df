"""The WebSocket authorizer accepts a valid Cognito ID token given as ?token= and refuses the rest."""

from __future__ import annotations

import time

import pytest
from launchpod.entrypoints.stream import authorizer
from launchpod.runtime.settings import settings

from tests.entrypoints import idp

ISSUER = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_test"


@pytest.fixture(autouse=True)
def issuer(monkeypatch):
    idp.trust(monkeypatch, ISSUER)
    yield
    settings.cache_clear()


def _token(**overrides) -> str:
    claims = {"cognito:username": "alice", "token_use": "id", "cognito:groups": ["viewer", "operator"]}
    return idp.id_token(ISSUER, claims, **overrides)


def _event(token: str | None) -> dict:
    return {
        "type": "REQUEST",
        "methodArn": "arn:aws:execute-api:us-east-1:123456789012:abc/prod/$connect",
        "queryStringParameters": {"token": token} if token else None,
    }


def test_a_valid_id_token_is_allowed_with_the_strongest_role(lambda_context):
    answer = authorizer.handler(_event(_token()), lambda_context)
    assert answer["principalId"] == "alice"
    assert answer["policyDocument"]["Statement"][0]["Effect"] == "Allow"
    assert answer["context"] == {"role": "operator", "sub": "u-1"}


@pytest.mark.parametrize("token", [None, "garbage", "EXPIRED", "WRONG_AUDIENCE", "ACCESS_TOKEN"])
def test_missing_invalid_expired_or_foreign_tokens_are_unauthorized(lambda_context, token):
    token = {
        "EXPIRED": _token(exp=int(time.time()) - 10),
        "WRONG_AUDIENCE": _token(aud="other"),
        "ACCESS_TOKEN": _token(token_use="access"),
    }.get(token, token)
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorizer.handler(_event(token), lambda_context)
