"""OIDC ID tokens verified in memory: the Tokens port (adapters.tokens), against one issuer's public key."""

from __future__ import annotations

from typing import Any

from launchpod.adapters import tokens as adapter


class Tokens:
    """An issuer that publishes ``public_key`` (RS256): a token is verified by the adapter's own rules
    (``adapters.tokens.claims_of``), with the key in memory instead of fetched from the issuer's JWKS."""

    def __init__(self, public_key: Any) -> None:
        self.public_key = public_key

    def verify(self, token: str, *, issuer: str, audience: str, groups_claim: str | None = None) -> dict[str, Any]:
        return adapter.claims_of(token, self.public_key, issuer=issuer, audience=audience, groups_claim=groups_claim)
