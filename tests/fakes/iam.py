"""IAM in memory: the OwnedRoles port and the roles the phases make (adapters.aws.iam).

Held to the adapter on the sandbox's IAM by tests/ports/test_iam.py."""

from __future__ import annotations

from launchpod.domain.errors import PermanentError


class Iam:
    """IAM's roles by name, each an ARN and its tags; ``asked`` is the names looked up. A role is Launchpod's when
    it carries every tag asked (ownership tags), as the adapter decides."""

    def __init__(self, roles: dict[str, tuple[str, dict[str, str]]] | None = None) -> None:
        self.roles = roles if roles is not None else {}
        self.asked: list[str] = []
        self.attached: dict[str, list[str]] = {}  # role -> its managed policies' ARNs
        self.inline: dict[str, dict[str, dict[str, object]]] = {}  # role -> its inline policies by name
        self.deleted: list[tuple[str, bool]] = []  # (role, detach) of each role deleted
        self.trusts: dict[str, dict[str, object]] = {}  # role -> its trust policy
        self.oidc_providers: dict[str, str] = {}  # issuer URL without https:// -> the provider's ARN

    def oidc_provider_arn(self, issuer_url: str) -> str | None:
        return self.oidc_providers.get(issuer_url.removeprefix("https://"))

    def ensure_role_trusting(self, name: str, trust: dict[str, object], tags: dict[str, str], description: str) -> str:
        """A role with this trust policy: one of Launchpod's trusting something else is made again (IAM lets no
        one rewrite a trust); anyone else's is refused."""
        if name in self.roles and self.trusts.get(name) == trust:
            return self.roles[name][0]
        if name in self.roles and not self.delete_owned_role(name, tags, detach=True):
            raise PermanentError(
                f"IAM role {name} exists, is not Launchpod's and trusts something else; delete or rename it."
            )
        self.roles[name] = (f"arn:aws:iam::123456789012:role/{name}", dict(tags))
        self.trusts[name] = trust
        return self.roles[name][0]

    def ensure_role(self, name: str, service: str, policies: list[str], tags: dict[str, str], description: str) -> str:
        """The role (created with ``tags`` when missing) with each of ``policies`` attached; its ARN."""
        if name not in self.roles:
            self.roles[name] = (f"arn:aws:iam::123456789012:role/{name}", dict(tags))
        attached = self.attached.setdefault(name, [])
        attached += [p for p in policies if p not in attached]
        return self.roles[name][0]

    def put_inline_policy(self, role: str, name: str, document: dict[str, object]) -> None:
        self.inline.setdefault(role, {})[name] = document

    def delete_owned_role(self, name: str, tags: dict[str, str], detach: bool = False) -> bool:
        """Deleted (inline policies first; with ``detach`` managed ones too) only when it carries ``tags``; a role
        that keeps managed policies is refused as IAM refuses it (DeleteConflict)."""
        if self.owned_role(name, tags) is None:
            return False
        if self.attached.get(name) and not detach:
            self.inline.pop(name, None)
            raise PermanentError(
                "iam:DeleteRole failed: DeleteConflict: Cannot delete entity, must detach all policies first."
            )
        self.deleted.append((name, detach))
        for held in (self.roles, self.attached, self.inline, self.trusts):
            held.pop(name, None)
        return True

    def owned_role(self, name: str, tags: dict[str, str]) -> str | None:
        self.asked.append(name)
        found = self.roles.get(name)
        if found is None:
            return None
        arn, carried = found
        return arn if all(carried.get(k) == v for k, v in tags.items()) else None
