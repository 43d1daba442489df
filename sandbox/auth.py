"""Sandbox users and their bearer tokens, standing in for the Cognito user pool.

``make sandbox`` calls ``SandboxTokens.generate()`` once at start-up and prints the three tokens
(admin, operator, viewer). The gateway turns a valid token into the claims a Cognito user-pool
authorizer would put in ``requestContext.authorizer.claims``; the backend maps ``cognito:groups``
to roles itself, as it does on AWS. Tokens are random per run and compared in constant time.
"""

from __future__ import annotations

import dataclasses
import hmac
import secrets
from typing import Any

USERS = ("admin", "operator", "viewer")


@dataclasses.dataclass(frozen=True)
class SandboxUser:
    """One sandbox user: a Cognito username whose only group is the role of the same name."""

    username: str
    token: str

    @property
    def claims(self) -> dict[str, Any]:
        # Cognito REST authorizers pass every claim as a string; groups are space separated there.
        return {
            "sub": f"sandbox-{self.username}",
            "cognito:username": self.username,
            "cognito:groups": self.username,
            "email": f"{self.username}@sandbox.launchpod.local",
            "email_verified": "true",
            "token_use": "id",
            "iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_sandbox",
            "aud": "launchpod-sandbox",
        }


class SandboxTokens:
    """The three sandbox users and a constant-time token lookup."""

    def __init__(self, users: dict[str, str]) -> None:
        """``users`` maps username (admin/operator/viewer) to token; use :meth:`generate` normally."""
        self._users = [SandboxUser(name, token) for name, token in users.items()]

    @classmethod
    def generate(cls) -> SandboxTokens:
        """Fresh random tokens for admin, operator and viewer (``lp-<user>-<random>``)."""
        return cls({name: f"lp-{name}-{secrets.token_urlsafe(24)}" for name in USERS})

    def user_for(self, token: str | None) -> SandboxUser | None:
        """The user a token belongs to, or None."""
        if not token:
            return None
        found = None
        for user in self._users:
            # Compare against every user so timing does not reveal which prefix matched.
            if hmac.compare_digest(user.token.encode(), token.encode()):
                found = user
        return found

    def claims_for(self, token: str | None) -> dict[str, Any] | None:
        """Cognito-authorizer-style claims for a valid token, or None."""
        user = self.user_for(token)
        return dict(user.claims) if user else None

    def token_for(self, username: str) -> str:
        """The token of one user (KeyError for an unknown username)."""
        for user in self._users:
            if user.username == username:
                return user.token
        raise KeyError(username)

    def as_dict(self) -> dict[str, str]:
        """username -> token, for printing at start-up."""
        return {user.username: user.token for user in self._users}


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None if absent or another scheme."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None
