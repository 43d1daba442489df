"""Who may use an emulated cluster's Kubernetes API: EKS authentication and access-entry authorization.

EKS turns a bearer token into an IAM principal by replaying its presigned STS GetCallerIdentity URL;
STS checks the signature (which covers the cluster name) with the caller's secret key. Here the
secret comes from moto's STS (assumed roles) or IAM (users' access keys); an unknown key or a bad
signature answers 401, as STS would refuse the replay.

The principal is then looked up among the cluster's access entries (an assumed role matches the
role's entry). No entry answers 401: "Your current IAM principal doesn't have access to Kubernetes
objects on this cluster" / "You must be logged in to the server (Unauthorized)"
(https://repost.aws/knowledge-center/eks-troubleshoot-iam-issues). An entry authenticates; what it
may do comes from its associated access policies
(https://docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html), scoped to the
cluster or to namespaces (wildcards allowed,
https://docs.aws.amazon.com/eks/latest/userguide/access-policies.html); anything else answers 403.
Entry types other than STANDARD (HyperPod and EC2 nodes, Fargate) get "the permissions required to
function properly" from EKS itself, so they are allowed. Discovery paths (/api, /apis, /version,
/healthz) are open to every authenticated user, as the ``system:discovery`` and
``system:public-info-viewer`` bindings make them on every cluster.

Not modelled: Kubernetes RBAC for an entry's ``kubernetesGroups`` (an entry with groups and no
policy is refused, stricter than EKS when a matching RoleBinding exists), the aws-auth ConfigMap,
the cluster creator's bootstrap entry, token expiry, and each policy's exact rule list (the
policies are reduced to read-only, namespaced write and cluster-wide write).
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from sandbox.kube.tokens import Access, EksToken, KubeRequest, signature_matches

_READ = {"get", "list", "watch"}
# The user-facing ClusterRoles the policies mirror: view/admin-view read, edit/admin write namespaced
# resources, cluster-admin everything (Kubernetes "User-facing roles").
_READ_ONLY = {"AmazonEKSViewPolicy", "AmazonEKSAdminViewPolicy"}
_NAMESPACED_WRITE = {"AmazonEKSEditPolicy", "AmazonEKSAdminPolicy"}
_EVERYTHING = {"AmazonEKSClusterAdminPolicy"}
_DISCOVERY = re.compile(r"^/(api|apis|version|healthz|livez|readyz|openapi)(/|$)")
# Cluster-scoped resources the namespaced policies (edit, admin) do not write.
_CLUSTER_SCOPED = {
    "nodes",
    "namespaces",
    "persistentvolumes",
    "customresourcedefinitions",
    "clusterroles",
    "clusterrolebindings",
    "storageclasses",
    "csidrivers",
    "priorityclasses",
    "validatingwebhookconfigurations",
    "mutatingwebhookconfigurations",
    "apiservices",
}


def _credentials(access_key_id: str) -> tuple[str, str] | None:
    """(principal ARN as EKS matches it, secret key) for a key moto issued, or None."""
    from moto.iam.models import iam_backends
    from moto.sts.models import sts_backends

    for account in list(sts_backends):
        for backend in list(sts_backends[account].values()):
            role = backend.get_assumed_role_from_access_key(access_key_id)
            if role is not None:
                return role.role_arn, role.secret_access_key
    for account in list(iam_backends):
        for iam in list(iam_backends[account].values()):
            user = iam.get_user_from_access_key_id(access_key_id)
            if user is not None:
                key = next(k for k in user.access_keys if k.access_key_id == access_key_id)
                return user.arn, key.secret_access_key
    return None


def _entry(cluster: Any, principal_arn: str) -> Any:
    entry = cluster.access_entries.get(principal_arn)
    if entry is None:
        # An entry names the role without its path; the assumed-role identity carries no path either.
        bare = re.sub(r":(role|user)/.*/", r":\1/", principal_arn)
        entry = next(
            (e for arn, e in cluster.access_entries.items() if re.sub(r":(role|user)/.*/", r":\1/", arn) == bare),
            None,
        )
    return entry


def _in_scope(scope: dict[str, Any], request: KubeRequest) -> bool:
    if scope.get("type") == "cluster":
        return True
    return request.namespace is not None and any(
        fnmatch.fnmatchcase(request.namespace, pattern) for pattern in scope.get("namespaces") or []
    )


def _policy_allows(policy_name: str, request: KubeRequest) -> bool:
    if policy_name in _EVERYTHING:
        return True
    if request.verb in _READ and policy_name in _READ_ONLY | _NAMESPACED_WRITE:
        return True
    base = (request.resource or "").split("/")[0]
    return policy_name in _NAMESPACED_WRITE and base not in _CLUSTER_SCOPED and request.namespace is not None


def _username(entry: Any, token_principal: str) -> str:
    return str(entry.username).replace("{{SessionName}}", "launchpod").replace("{{AccountID}}", "")


def authorize(cluster_name: str, token: EksToken, request: KubeRequest) -> Access:
    """The EKS answer for one request to ``cluster_name``'s API server (see the module docstring)."""
    from sandbox.aws.eks import find_cluster

    found = _credentials(token.access_key_id)
    if found is None or not signature_matches(token, cluster_name, found[1]):
        return Access(401)
    principal_arn = found[0]
    cluster = find_cluster(cluster_name)
    entry = _entry(cluster, principal_arn) if cluster is not None else None
    if entry is None:
        return Access(401)
    user = _username(entry, principal_arn)
    if entry.type != "STANDARD" or (request.resource is None and _DISCOVERY.match(request.path)):
        return Access(200, user)
    for name, policy in entry.policies.items():
        if _in_scope(policy.get("accessScope") or {}, request) and _policy_allows(name.rsplit("/", 1)[-1], request):
            return Access(200, user)
    return Access(403, user)
