"""IAM ListRoles pages that stay put while roles come and go.

moto's ListRoles marker is an offset into the roles sorted by id, so a role deleted on an earlier page
while a caller pages through shifts every later role one place back and the caller never sees one of
them. IAM's marker is an opaque continuation token ("Use this parameter only when paginating results
and only after you receive a response indicating that the results are truncated", IAM API reference,
ListRoles); roles deleted meanwhile do not hide the ones that remain. Here the marker is the id of the
last role returned, and the next page starts after it: Launchpod's teardown, which pages through every
role looking for its own, missed one whenever another cluster's roles were being deleted at the time.

GetRole and the lookups by ARN walk moto's live dict of roles in Python while another request's
CreateRole may add to it; a full run once failed a provisioning phase with "dictionary changed size during
iteration" from GetRole. IAM answers concurrent requests, so ``get_roles`` hands out a snapshot (a
list built in one C-level step, which no other thread interleaves with).
"""

from __future__ import annotations

from typing import Any

from sandbox.aws.core import once, patch


@once
def install() -> None:
    """Patch moto's IAM backend (idempotent)."""
    from moto.iam.models import IAMBackend, filter_items_with_path_prefix

    def list_roles(
        self: Any, path_prefix: str | None = None, marker: str | None = None, max_items: int | None = None
    ) -> tuple[list[Any], str | None]:
        limit = int(max_items) if max_items else 100
        roles = sorted(filter_items_with_path_prefix(path_prefix or "/", list(self.roles.values())), key=lambda r: r.id)
        after = [r for r in roles if not marker or r.id > marker]
        page = after[:limit]
        return page, (page[-1].id if len(after) > limit else None)

    patch(IAMBackend, "list_roles", list_roles)
    patch(IAMBackend, "get_roles", lambda self: list(self.roles.values()))
