"""Who is calling, and may they? API Gateway's authorizer only authenticates; roles are enforced here.

Cognito puts a user's groups in the ``cognito:groups`` claim: a list, or a string such as
``"[admin operator]"`` or ``"admin,operator"`` depending on the authorizer. The strongest
Launchpod role among them wins.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from launchpod.contracts.common import Role
from launchpod.domain.errors import Forbidden, Unauthorized
from launchpod.domain.operations import Principal


def _groups(raw: Any) -> list[str]:
    if isinstance(raw, list):
        return [str(g) for g in raw]
    return [g for g in re.split(r"[\s,\[\]]+", str(raw or "")) if g]


def principal_of(app: APIGatewayRestResolver) -> Principal:
    authorizer = (app.current_event.raw_event.get("requestContext") or {}).get("authorizer") or {}
    claims = authorizer.get("claims") or {}
    subject = claims.get("cognito:username") or claims.get("username") or claims.get("sub")
    if not subject:
        raise Unauthorized("Sign in first: send an Authorization: Bearer <token> header.")
    roles = [Role(g) for g in _groups(claims.get("cognito:groups")) if g in Role.__members__.values()]
    if not roles:
        raise Forbidden(f"{subject} is in no Launchpod group; ask an admin to add you to viewer, operator or admin.")
    return Principal(subject=str(subject), role=max(roles, key=lambda r: r.rank))


def require(role: Role) -> Callable[[APIGatewayRestResolver, Callable[..., Response]], Response]:
    """Route middleware: 401 without a signed-in user, 403 when their role is below ``role``."""

    def middleware(app: APIGatewayRestResolver, next_middleware: Callable[..., Response]) -> Response:
        who = principal_of(app)
        if not who.role.allows(role):
            raise Forbidden(f"This needs the {role.value} role; {who.subject} is {who.role.value}.")
        app.append_context(principal=who)
        return next_middleware(app)

    return middleware
