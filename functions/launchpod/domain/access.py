"""Roles from identity-provider groups: the strongest Launchpod role among a user's groups wins.

Cognito puts a user's groups in the ``cognito:groups`` claim: a list, or a string such as
``"[admin operator]"`` or ``"admin,operator"`` depending on the authorizer that passes it on.
"""

from __future__ import annotations

import re
from typing import Any

from launchpod.contracts.common import Role


def role_from_groups(raw: Any) -> Role | None:
    groups = (
        [str(g) for g in raw] if isinstance(raw, list) else [g for g in re.split(r"[\s,\[\]]+", str(raw or "")) if g]
    )
    roles = [Role(g) for g in groups if g in Role.__members__.values()]
    return max(roles, key=lambda r: r.rank) if roles else None
