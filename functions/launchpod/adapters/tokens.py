"""Verifying users' OIDC tokens (Cognito ID tokens) against the issuer's published keys."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jwt

from launchpod.domain.errors import Unauthorized


@lru_cache(maxsize=4)
def _keys(issuer: str) -> jwt.PyJWKClient:
    # The JWKS is cached by the client for the container's life; keys rotate rarely.
    return jwt.PyJWKClient(f"{issuer.rstrip('/')}/.well-known/jwks.json", cache_keys=True, lifespan=3600)


def verify(token: str, *, issuer: str, audience: str) -> dict[str, Any]:
    try:
        key = _keys(issuer).get_signing_key_from_jwt(token)
        claims = jwt.decode(
            token,
            key.key,
            algorithms=["RS256"],
            audience=audience,
            issuer=issuer,
            options={"require": ["exp", "iss", "sub"]},
        )
    except jwt.PyJWTError as exc:
        raise Unauthorized(f"The token is not valid: {exc}.") from exc
    if claims.get("token_use", "id") != "id":
        raise Unauthorized("Send the ID token, not the access token.")
    return dict(claims)
