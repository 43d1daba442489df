"""Who is calling: an OIDC ID token (Cognito's, or your own issuer's) verified against the issuer the
deployment trusts (runtime.settings). The REST and WebSocket authorizers turn the claims into API Gateway's
answer; roles are enforced per route (entrypoints/api/auth.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from launchpod.domain.errors import Unauthorized
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.runtime.wiring import Tokens


@dataclass(frozen=True)
class IdentityPorts:
    tokens: Tokens
    issuer: str | None
    audience: str | None
    groups_claim: str | None = None  # the issuer's groups claim when it is not Cognito's ``cognito:groups``


def real() -> IdentityPorts:
    """The deployed token verifier and trusted issuer (runtime.wiring, runtime.settings)."""
    s = settings()
    return IdentityPorts(
        tokens=wiring.tokens(), issuer=s.jwt_issuer, audience=s.jwt_audience, groups_claim=s.jwt_groups_claim
    )


def claims_of(token: str, *, ports: IdentityPorts) -> dict[str, Any]:
    """The verified token's claims, its groups under ``cognito:groups``; Unauthorized when no issuer is
    configured or the token does not verify."""
    if not (ports.issuer and ports.audience):
        raise Unauthorized("No token issuer is configured.")
    if not token:
        raise Unauthorized("Send an Authorization: Bearer <token> header (a WebSocket: ?token=<token>).")
    return ports.tokens.verify(token, issuer=ports.issuer, audience=ports.audience, groups_claim=ports.groups_claim)
