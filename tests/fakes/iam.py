"""IAM in memory: the OwnedRoles port (adapters.aws.iam)."""

from __future__ import annotations


class Iam:
    """IAM: the roles Launchpod created, by name, and the names asked."""

    def __init__(self, roles: dict[str, str]) -> None:
        self.roles, self.asked = roles, list[str]()

    def owned_role(self, name: str, tags: dict[str, str]) -> str | None:
        self.asked.append(name)
        return self.roles.get(name)
