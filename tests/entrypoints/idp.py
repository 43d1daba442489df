"""A test identity provider: one RSA key, the issuer's settings, and tokens signed with that key."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from launchpod.adapters import tokens
from launchpod.runtime.settings import settings

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def trust(monkeypatch: Any, issuer: str, audience: str = "client-1", groups_claim: str | None = None) -> None:
    """Point the settings at ``issuer`` and make its published key the test key."""
    monkeypatch.setenv("LAUNCHPOD_JWT_ISSUER", issuer)
    monkeypatch.setenv("LAUNCHPOD_JWT_AUDIENCE", audience)
    if groups_claim:
        monkeypatch.setenv("LAUNCHPOD_JWT_GROUPS_CLAIM", groups_claim)
    settings.cache_clear()
    key = SimpleNamespace(key=KEY.public_key())
    monkeypatch.setattr(tokens, "_keys", lambda issuer: SimpleNamespace(get_signing_key_from_jwt=lambda token: key))


def sign(claims: dict[str, Any]) -> str:
    return jwt.encode(claims, KEY, algorithm="RS256")


def id_token(issuer: str, claims: dict[str, Any], **overrides: Any) -> str:
    """An ID token ``issuer`` gave user u-1 of client-1, valid five more minutes, with the provider's own
    ``claims`` (its user name and groups); ``overrides`` replace any claim."""
    return sign({"iss": issuer, "aud": "client-1", "sub": "u-1", "exp": int(time.time()) + 300, **claims, **overrides})
