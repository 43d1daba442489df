"""OIDC ID tokens verified in memory: the Tokens port (adapters.tokens), against one issuer's public key."""

from __future__ import annotations

from typing import Any

import jwt
from launchpod.domain.errors import Unauthorized


class Tokens:
    """An issuer that publishes ``public_key`` (RS256): a token is verified as the adapter verifies it (audience,
    issuer, exp/iss/sub required; a Cognito access token refused; ``groups_claim`` given as cognito:groups)."""

    COGNITO_GROUPS = "cognito:groups"

    def __init__(self, public_key: Any) -> None:
        self.public_key = public_key

    def verify(self, token: str, *, issuer: str, audience: str, groups_claim: str | None = None) -> dict[str, Any]:
        try:
            claims = jwt.decode(
                token,
                self.public_key,
                algorithms=["RS256"],
                audience=audience,
                issuer=issuer,
                options={"require": ["exp", "iss", "sub"]},
            )
        except jwt.PyJWTError as exc:
            raise Unauthorized(f"The token is not valid: {exc}.") from exc
        if "token_use" in claims and claims["token_use"] != "id":
            raise Unauthorized("Send the ID token, not the access token.")
        claims = dict(claims)
        if groups_claim and groups_claim != self.COGNITO_GROUPS:
            claims[self.COGNITO_GROUPS] = claims.get(groups_claim)
        return claims
