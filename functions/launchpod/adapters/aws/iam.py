"""IAM: roles Launchpod creates for the clusters it runs, and the OIDC provider of each cluster."""

from __future__ import annotations

import json
from urllib.parse import unquote

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code, or_none
from launchpod.adapters.aws.tags import carries, tag_dict, tag_list
from launchpod.domain import ownership
from launchpod.domain.errors import PermanentError
from launchpod.runtime.settings import settings

# The thumbprint IAM wants for EKS OIDC issuers; IAM no longer checks it for EKS, but the field is required.
EKS_OIDC_THUMBPRINT = "9e99a48a9960b14926bb7f3b02e22da2b0ab7280"


def trust_policy(service: str) -> str:
    if service not in ownership.TRUSTED_SERVICES:
        raise PermanentError(f"Launchpod creates no role trusted by {service} (launchpod.domain.ownership).")
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Service": service},
                    "Action": ["sts:AssumeRole", "sts:TagSession"],
                }
            ],
        }
    )


class Iam:
    def __init__(self) -> None:
        self.iam = client("iam")

    @staticmethod
    def account() -> str | None:
        """This account's ID, read from the permissions boundary's ARN (arn:<p>:iam::<account>:policy/...)."""
        parts = (settings().role_boundary_arn or "").split(":")
        return parts[4] if len(parts) > 4 and parts[4] else None

    def role_arn(self, name: str) -> str | None:
        return or_none(lambda: str(self.iam.get_role(RoleName=name)["Role"]["Arn"]), "NoSuchEntity")

    def ensure_role(self, name: str, service: str, policies: list[str], tags: dict[str, str], description: str) -> str:
        with aws_call("iam:GetRole"):
            arn = self.role_arn(name)
        with aws_call("iam:CreateRole"):
            if arn is None:
                # Launchpod may only create roles that carry its permissions boundary (launchpod.policies).
                boundary = settings().role_boundary_arn
                arn = self.iam.create_role(
                    RoleName=name,
                    AssumeRolePolicyDocument=trust_policy(service),
                    Description=description,
                    Tags=tag_list(tags),
                    **({"PermissionsBoundary": boundary} if boundary else {}),
                )["Role"]["Arn"]
            attached = {p["PolicyArn"] for p in self.iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]}
            for policy in policies:
                if policy not in attached:
                    self.iam.attach_role_policy(RoleName=name, PolicyArn=policy)
        return str(arn)

    def owned_role(self, name: str, tags: dict[str, str]) -> str | None:
        """The role's ARN when it exists and carries every tag in ``tags`` (one Launchpod created), else None."""
        with aws_call("iam:GetRole"):
            try:
                role = self.iam.get_role(RoleName=name)["Role"]
            except ClientError as exc:
                if error_code(exc) == "NoSuchEntity":
                    return None
                raise
        return str(role["Arn"]) if carries(tag_dict(role.get("Tags")), tags) else None

    def ensure_role_trusting(self, name: str, trust: dict[str, object], tags: dict[str, str], description: str) -> str:
        """A role with this trust policy. No function may rewrite a role's trust (there is no IAM condition
        key on its content), so a role of Launchpod's (``tags``) that trusts something else, such as a gone
        cluster's OIDC provider from an earlier install, is deleted and created again; anyone else's is
        refused."""
        account = self.account()
        strangers = ownership.untrusted_principals(trust, account) if account else []
        if strangers:
            raise PermanentError(f"Launchpod creates no role trusted by {', '.join(strangers)}.")
        with aws_call("iam:GetRole"):
            existing = or_none(lambda: self.iam.get_role(RoleName=name)["Role"], "NoSuchEntity")
        if existing is not None:
            current = existing.get("AssumeRolePolicyDocument")
            current = json.loads(unquote(current)) if isinstance(current, str) else current
            if current == trust:
                return str(existing["Arn"])
            if not self.delete_owned_role(name, tags, detach=True):
                raise PermanentError(
                    f"IAM role {name} exists, is not Launchpod's and trusts something else; delete or rename it."
                )
        boundary = settings().role_boundary_arn
        with aws_call("iam:CreateRole"):
            return str(
                self.iam.create_role(
                    RoleName=name,
                    AssumeRolePolicyDocument=json.dumps(trust),
                    Description=description,
                    Tags=tag_list(tags),
                    **({"PermissionsBoundary": boundary} if boundary else {}),
                )["Role"]["Arn"]
            )

    def delete_owned_role(self, name: str, tags: dict[str, str], detach: bool = False) -> bool:
        """Delete the role (its inline policies first, and with ``detach`` its managed policies: IAM refuses
        to delete a role with attached policies, DeleteConflict) only if it carries every tag in ``tags``."""
        if self.owned_role(name, tags) is None:
            return False
        with aws_call("iam:DeleteRole"):
            self._delete_role(name, detach)
        return True

    def _delete_role(self, name: str, detach: bool) -> None:
        """Its inline policies, with ``detach`` its managed policies (IAM refuses to delete a role that still
        has either: DeleteConflict), then the role."""
        for policy in self.iam.list_role_policies(RoleName=name)["PolicyNames"]:
            self.iam.delete_role_policy(RoleName=name, PolicyName=policy)
        if detach:
            for attached in self.iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]:
                self.iam.detach_role_policy(RoleName=name, PolicyArn=attached["PolicyArn"])
        self.iam.delete_role(RoleName=name)

    def oidc_provider_arn(self, issuer_url: str) -> str | None:
        host_path = issuer_url.removeprefix("https://")
        with aws_call("iam:ListOpenIDConnectProviders"):
            for provider in self.iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]:
                if provider["Arn"].endswith(f"oidc-provider/{host_path}"):
                    return str(provider["Arn"])
        return None

    def ensure_oidc_provider(self, issuer_url: str, tags: dict[str, str]) -> str:
        host_path = issuer_url.removeprefix("https://")
        with aws_call("iam:ListOpenIDConnectProviders"):
            for provider in self.iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]:
                if provider["Arn"].endswith(f"oidc-provider/{host_path}"):
                    return str(provider["Arn"])
        with aws_call("iam:CreateOpenIDConnectProvider"):
            return str(
                self.iam.create_open_id_connect_provider(
                    Url=issuer_url,
                    ClientIDList=["sts.amazonaws.com"],
                    ThumbprintList=[EKS_OIDC_THUMBPRINT],
                    Tags=tag_list(tags),
                )["OpenIDConnectProviderArn"]
            )

    def put_inline_policy(self, role: str, name: str, document: dict[str, object]) -> None:
        with aws_call("iam:PutRolePolicy"):
            self.iam.put_role_policy(RoleName=role, PolicyName=name, PolicyDocument=json.dumps(document))

    def delete_tagged_roles(self, name_prefix: str, tags: dict[str, str]) -> list[str]:
        """Delete roles whose name starts with ``name_prefix`` AND that carry every tag in ``tags``."""
        gone = []
        with aws_call("iam:DeleteRole"):
            for page in self.iam.get_paginator("list_roles").paginate():
                for role in page["Roles"]:
                    name = role["RoleName"]
                    if not name.startswith(name_prefix):
                        continue
                    if not carries(tag_dict(self.iam.list_role_tags(RoleName=name)["Tags"]), tags):
                        continue
                    self._delete_role(name, detach=True)
                    gone.append(name)
        return gone

    def delete_oidc_provider(self, issuer_url: str, tags: dict[str, str]) -> str | None:
        host_path = issuer_url.removeprefix("https://")
        with aws_call("iam:DeleteOpenIDConnectProvider"):
            for provider in self.iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]:
                arn = provider["Arn"]
                if not arn.endswith(f"oidc-provider/{host_path}"):
                    continue
                found = self.iam.get_open_id_connect_provider(OpenIDConnectProviderArn=arn).get("Tags")
                if carries(tag_dict(found), tags):
                    self.iam.delete_open_id_connect_provider(OpenIDConnectProviderArn=arn)
                    return str(arn)
        return None
