"""Verifying users' OIDC tokens (Cognito ID tokens, or your own IdP's) against the issuer's published keys."""

from __future__ import annotations

import json
import urllib.request
from functools import lru_cache
from typing import Any

import jwt

from launchpod.domain.errors import Unauthorized

COGNITO_GROUPS = "cognito:groups"


def _jwks_uri(issuer: str) -> str:
    """The issuer's ``jwks_uri`` from its discovery document; Cognito's fixed path if that cannot be read."""
    base = issuer.rstrip("/")
    try:
        with urllib.request.urlopen(f"{base}/.well-known/openid-configuration", timeout=5) as response:
            uri = json.load(response).get("jwks_uri")
        if isinstance(uri, str) and uri.startswith("https://"):
            return uri
    except (OSError, ValueError):
        pass
    return f"{base}/.well-known/jwks.json"


@lru_cache(maxsize=4)
def _keys(issuer: str) -> jwt.PyJWKClient:
    # The JWKS is cached by the client for the container's life; keys rotate rarely.
    return jwt.PyJWKClient(_jwks_uri(issuer), cache_keys=True, lifespan=3600)


def verify(token: str, *, issuer: str, audience: str, groups_claim: str | None = None) -> dict[str, Any]:
    """The token's claims. With ``groups_claim`` (e.g. ``groups`` for Okta or Entra ID), that claim's
    value is also given as ``cognito:groups``, the name the rest of Launchpod reads."""
    try:
        key = _keys(issuer).get_signing_key_from_jwt(token).key
    except jwt.PyJWTError as exc:
        raise Unauthorized(f"The token is not valid: {exc}.") from exc
    return claims_of(token, key, issuer=issuer, audience=audience, groups_claim=groups_claim)


def claims_of(token: str, key: Any, *, issuer: str, audience: str, groups_claim: str | None = None) -> dict[str, Any]:
    """The claims of ``token`` verified with the issuer's public ``key``."""
    try:
        claims = jwt.decode(
            token,
            key,
            algorithms=["RS256"],
            audience=audience,
            issuer=issuer,
            options={"require": ["exp", "iss", "sub"]},
        )
    except jwt.PyJWTError as exc:
        raise Unauthorized(f"The token is not valid: {exc}.") from exc
    # Cognito marks its tokens; other issuers' ID tokens carry no token_use.
    if "token_use" in claims and claims["token_use"] != "id":
        raise Unauthorized("Send the ID token, not the access token.")
    claims = dict(claims)
    if groups_claim and groups_claim != COGNITO_GROUPS:
        claims[COGNITO_GROUPS] = claims.get(groups_claim)
    return claims
