"""AWS calls made by a pod, as the identity its service account gets on EKS.

A pod reaches AWS as an IAM role in one of two ways, and only if the role allows it:
- **EKS Pod Identity**: an association for the pod's namespace and service account names the role;
  the role must trust ``pods.eks.amazonaws.com`` for ``sts:AssumeRole`` and ``sts:TagSession``
  (EKS user guide, "Assign an IAM role to a Kubernetes service account").
- **IRSA**: the service account carries the annotation ``eks.amazonaws.com/role-arn``; the pod's
  projected token is exchanged with ``sts:AssumeRoleWithWebIdentity``, which succeeds only if the role
  trusts the cluster's IAM OIDC provider (``Principal.Federated``) and its conditions match the token's
  ``<issuer>:sub`` (``system:serviceaccount:<namespace>:<name>``) and ``<issuer>:aud``
  (``sts.amazonaws.com``) (EKS user guide, "Configure a Kubernetes service account to assume an IAM role").
Pod Identity wins when both are set, as the SDKs' credential chain prefers it (container credentials
come before web identity in the AWS SDKs' default provider chain).

The call is then authorized against the role's inline and attached policies with the same evaluator
the Lambdas' calls pass (``policy.evaluate``), S3's ``s3:prefix`` in the context of ListObjects, and
served by moto only when allowed. A role with a permissions boundary (every role Launchpod creates has
one) may do only what both its policies and the boundary allow ("Permissions boundaries for IAM
entities", https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html).
Not modelled: session tags' ABAC, resource policies (bucket policies), the pod identity agent's own
reachability.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from sandbox.aws.iam import authz
from sandbox.aws.iam.policy import AuthzRequest, evaluate

ROLE_ANNOTATION = "eks.amazonaws.com/role-arn"


@dataclass(frozen=True)
class PodIdentity:
    role_arn: str
    via: str  # "pod-identity" or "irsa"
    session: str

    @property
    def principal(self) -> str:
        account, name = self.role_arn.split(":")[4], self.role_arn.rsplit("/", 1)[-1]
        return f"arn:aws:sts::{account}:assumed-role/{name}/{self.session}"


class NoCredentials(Exception):
    """The pod gets no AWS credentials (the message says why, as the SDK or STS would)."""


def _document(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    text = str(raw)
    try:
        return dict(json.loads(text))
    except ValueError:
        return dict(json.loads(unquote(text)))


def _statements(document: dict[str, Any]) -> list[dict[str, Any]]:
    found = document.get("Statement") or []
    return [found] if isinstance(found, dict) else list(found)


def _iam(account: str) -> Any:
    from moto.iam.models import iam_backends

    return iam_backends[account]["global"]


def _role(account: str, arn: str) -> Any:
    try:
        return _iam(account).get_role_by_arn(arn)
    except Exception as exc:
        raise NoCredentials(f"Role {arn} does not exist.") from exc


def _trusts_pods(role: Any) -> bool:
    for s in _statements(_document(role.assume_role_policy_document)):
        service = (s.get("Principal") or {}).get("Service")
        services = [service] if isinstance(service, str) else list(service or [])
        actions = s.get("Action")
        actions = [actions] if isinstance(actions, str) else list(actions or [])
        if s.get("Effect") == "Allow" and "pods.eks.amazonaws.com" in services and "sts:AssumeRole" in actions:
            return True
    return False


def _trusts_web_identity(role: Any, provider_arn: str, issuer_host: str, subject: str) -> bool:
    context: dict[str, tuple[str, ...]] = {
        f"{issuer_host}:sub".lower(): (subject,),
        f"{issuer_host}:aud".lower(): ("sts.amazonaws.com",),
    }
    for s in _statements(_document(role.assume_role_policy_document)):
        federated = (s.get("Principal") or {}).get("Federated")
        federated = [federated] if isinstance(federated, str) else list(federated or [])
        if provider_arn not in federated:
            continue
        statement = {k: v for k, v in s.items() if k != "Principal"} | {"Resource": "*"}
        if evaluate([statement], AuthzRequest("sts:AssumeRoleWithWebIdentity", "*", context)) == "Allow":
            return True
    return False


def identity_of(
    eks_cluster: Any, account: str, account_object: dict[str, Any] | None, namespace: str, name: str
) -> PodIdentity:
    """The role a pod with service account ``namespace/name`` works as, or NoCredentials saying why."""
    for association in eks_cluster.pod_identity_associations.values():
        if association.namespace == namespace and association.service_account == name:
            role = _role(account, association.role_arn)
            if not _trusts_pods(role):
                raise NoCredentials(
                    f"The pod identity agent could not assume {association.role_arn}: its trust policy does not allow "
                    "pods.eks.amazonaws.com to call sts:AssumeRole and sts:TagSession."
                )
            return PodIdentity(association.role_arn, "pod-identity", f"eks-{eks_cluster.name}-{name}")
    annotations = ((account_object or {}).get("metadata") or {}).get("annotations") or {}
    role_arn = annotations.get(ROLE_ANNOTATION)
    if account_object is None or not role_arn:
        raise NoCredentials(
            f"No credentials: service account {namespace}/{name} has no pod identity association and no "
            f"{ROLE_ANNOTATION} annotation, so the SDK finds none."
        )
    issuer = eks_cluster.identity["oidc"]["issuer"]
    host = issuer.removeprefix("https://")
    provider_arn = f"arn:aws:iam::{account}:oidc-provider/{host}"
    try:
        _iam(account).get_open_id_connect_provider(provider_arn)
    except Exception as exc:
        raise NoCredentials(
            f"AssumeRoleWithWebIdentity failed: no OpenIDConnect provider found in your account for {issuer}"
        ) from exc
    role = _role(account, role_arn)
    if not _trusts_web_identity(role, provider_arn, host, f"system:serviceaccount:{namespace}:{name}"):
        raise NoCredentials("AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity")
    return PodIdentity(role_arn, "irsa", f"botocore-session-{namespace}-{name}")


def role_statements(account: str, role_arn: str) -> list[dict[str, Any]]:
    role = _role(account, role_arn)
    out: list[dict[str, Any]] = []
    for document in role.policies.values():
        out += _statements(_document(document))
    for policy in role.managed_policies.values():
        version = next((v for v in policy.versions if v.is_default), None)
        if version is not None:
            out += _statements(_document(version.document))
    return out


def boundary_statements(account: str, role_arn: str) -> list[dict[str, Any]] | None:
    """The statements of the role's permissions boundary, or None when it has none."""
    boundary = getattr(_role(account, role_arn), "permissions_boundary_arn", None)
    if not boundary:
        return None
    try:
        policy = _iam(account).get_policy(boundary)
    except Exception:
        return []  # a boundary that no longer exists allows nothing
    version = next((v for v in policy.versions if v.is_default), None)
    return _statements(_document(version.document)) if version is not None else []


def authorize(identity: PodIdentity, call: authz.Call) -> str | None:
    """None when the role's policies, and its permissions boundary if any, allow every check of the call,
    else AccessDenied's message."""
    statements = role_statements(call.account, identity.role_arn)
    boundary = boundary_statements(call.account, identity.role_arn)
    for check in authz.checks(call, _NoLookup()):
        context = dict(check.request.context)
        if call.prefix == "s3" and call.operation in ("ListObjectsV2", "ListObjects"):
            context["s3:prefix"] = (str(call.params.get("Prefix") or ""),)
        request = AuthzRequest(check.request.action, check.request.resource, context)
        denied = f"User: {identity.principal} is not authorized to perform: {request.action} on resource: " + (
            f'"{request.resource}" because no'
        )
        if evaluate(statements, request) != "Allow":
            return f"{denied} identity-based policy allows the {request.action} action"
        if boundary is not None and evaluate(boundary, request) != "Allow":
            return f"{denied} permissions boundary allows the {request.action} action"
    return None


class _NoLookup(authz.Lookup):
    """A pod's calls create no service-linked roles and pass no roles; nothing to look up."""

    def role_boundary(self, role_name: str) -> str | None:
        return None

    def role_exists(self, role_name: str) -> bool:
        return True

    def hyperpod_eks_cluster(self, name: str) -> str | None:
        return None

    def create_service_linked_role(self, service: str) -> None:
        return None
