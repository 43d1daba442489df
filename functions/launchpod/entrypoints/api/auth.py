"""Who is calling, and may they? API Gateway's authorizer only authenticates; roles are enforced here."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from launchpod.contracts.common import Role
from launchpod.domain.access import role_from_groups
from launchpod.domain.errors import Forbidden, Unauthorized

if TYPE_CHECKING:
    from launchpod.domain.operations import Principal


def principal_of(app: APIGatewayRestResolver) -> Principal:
    return principal_from(app.current_event.raw_event)


def principal_from(event: dict[str, Any]) -> Principal:
    from launchpod.domain.operations import Principal  # with the operations' contracts: not for /api/health

    authorizer = (event.get("requestContext") or {}).get("authorizer") or {}
    # Cognito authorizer: the token's claims under "claims"; Lambda authorizer (your own IdP): its
    # context keys directly under the authorizer.
    claims = authorizer.get("claims") or authorizer
    subject = claims.get("cognito:username") or claims.get("username") or claims.get("sub")
    if not subject:
        raise Unauthorized("Sign in first: send an Authorization: Bearer <token> header.")
    role = role_from_groups(claims.get("cognito:groups"))
    if role is None:
        raise Forbidden(f"{subject} is in no Launchpod group; ask an admin to add you to viewer, operator or admin.")
    return Principal(subject=str(subject), role=role)


@functools.cache
def _templates() -> list[tuple[str, re.Pattern[str], Role | None]]:
    from launchpod.entrypoints.api.lazy_routes import routes  # the catalog's routes, without their models

    return [
        (r.method, re.compile("^" + re.sub(r"{\w+}", "[^/]+", r.path) + "/?$"), Role(r.role) if r.role else None)
        for r in routes()
    ]


def check_before_validation(event: dict[str, Any]) -> None:
    """Authenticate and authorize from the catalog before the body is validated, so an anonymous
    or under-privileged caller learns nothing about what a valid request looks like."""
    method, path = event.get("httpMethod", ""), event.get("path", "")
    for verb, pattern, role in _templates():
        if verb == method and pattern.match(path):
            if role is None:
                return
            who = principal_from(event)
            if not who.role.allows(role):
                raise Forbidden(f"This needs the {role.value} role; {who.subject} has the {who.role.value} role.")
            return


def require(role: Role) -> Callable[[APIGatewayRestResolver, Callable[..., Response[Any]]], Response[Any]]:
    """Route middleware: 401 without a signed-in user, 403 when their role is below ``role``."""

    def middleware(app: APIGatewayRestResolver, next_middleware: Callable[..., Response[Any]]) -> Response[Any]:
        who = principal_of(app)
        if not who.role.allows(role):
            raise Forbidden(f"This needs the {role.value} role; {who.subject} has the {who.role.value} role.")
        app.append_context(principal=who)
        return next_middleware(app)

    return middleware
