"""IAM in memory: the OwnedRoles port (adapters.aws.iam).

Held to the adapter on the sandbox's IAM by tests/ports/test_iam.py."""

from __future__ import annotations


class Iam:
    """IAM's roles by name, each an ARN and its tags; ``asked`` is the names looked up. A role is Launchpod's when
    it carries every tag asked (ownership tags), as the adapter decides."""

    def __init__(self, roles: dict[str, tuple[str, dict[str, str]]] | None = None) -> None:
        self.roles = roles if roles is not None else {}
        self.asked: list[str] = []

    def owned_role(self, name: str, tags: dict[str, str]) -> str | None:
        self.asked.append(name)
        found = self.roles.get(name)
        if found is None:
            return None
        arn, carried = found
        return arn if all(carried.get(k) == v for k, v in tags.items()) else None
