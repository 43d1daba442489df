"""Access entries, access policy associations and pod identity associations."""

from __future__ import annotations

import re
from typing import Any

from moto.eks.exceptions import InvalidParameterException, ResourceNotFoundException
from moto.eks.models import EKSBackend

from sandbox.aws.eks.catalog import ACCESS_ENTRY_TYPES, ACCESS_POLICIES
from sandbox.aws.eks.clusters import backend_cluster, require_api_authentication
from sandbox.aws.eks.common import LOCK, in_use, not_found, utcnow, validate_role_arn
from sandbox.aws.eks.models import AccessEntry, PodIdentityAssociation, SandboxCluster

_PRINCIPAL_ARN = re.compile(r"arn:[^:]+:iam::\d{12}:(role|user)/.+")


def find_access_entry(cluster: SandboxCluster, principal_arn: str) -> AccessEntry:
    entry = cluster.access_entries.get(principal_arn)
    if entry is None:
        raise not_found(
            "The specified principalArn could not be found. You can view your available access entries "
            "with 'list-access-entries'.",
            cluster=cluster.name,
        )
    return entry


def create_access_entry(
    backend: EKSBackend,
    cluster_name: str,
    principal_arn: str,
    entry_type: str | None,
    kubernetes_groups: list[str] | None,
    username: str | None,
    tags: dict[str, str] | None,
) -> AccessEntry:
    cluster = backend_cluster(backend, cluster_name)
    entry_type = entry_type or "STANDARD"
    with LOCK:
        require_api_authentication(cluster)
        if not _PRINCIPAL_ARN.fullmatch(principal_arn or ""):
            raise InvalidParameterException(message=f"The specified principalArn is invalid: {principal_arn}")
        if entry_type not in ACCESS_ENTRY_TYPES:
            raise InvalidParameterException(message=f"The specified access entry type is invalid: {entry_type}")
        if entry_type != "STANDARD" and (kubernetes_groups or username):
            raise InvalidParameterException(
                message=f"The kubernetesGroups and username can't be specified for access entries of type {entry_type}."
            )
        if principal_arn in cluster.access_entries:
            raise in_use("The specified access entry resource is already in use on this cluster.", cluster=cluster_name)
        entry = AccessEntry(cluster, principal_arn, entry_type, kubernetes_groups, username, tags)
        cluster.access_entries[principal_arn] = entry
        return entry


def update_access_entry(
    backend: EKSBackend,
    cluster_name: str,
    principal_arn: str,
    kubernetes_groups: list[str] | None,
    username: str | None,
) -> AccessEntry:
    cluster = backend_cluster(backend, cluster_name)
    with LOCK:
        entry = find_access_entry(cluster, principal_arn)
        if kubernetes_groups is not None:
            entry.kubernetes_groups = list(kubernetes_groups)
        if username:
            entry.username = username
        entry.modified_at = utcnow()
        return entry


def associate_access_policy(
    backend: EKSBackend, cluster_name: str, principal_arn: str, policy_arn: str, access_scope: dict[str, Any]
) -> dict[str, Any]:
    cluster = backend_cluster(backend, cluster_name)
    with LOCK:
        entry = find_access_entry(cluster, principal_arn)
        policy_name = policy_arn.rsplit("/", 1)[-1]
        if not re.fullmatch(r"arn:[^:]+:eks::aws:cluster-access-policy/[A-Za-z0-9]+", policy_arn or "") or (
            policy_name not in ACCESS_POLICIES
        ):
            raise ResourceNotFoundException(
                clusterName=cluster_name,
                nodegroupName=None,
                fargateProfileName=None,
                addonName=None,
                message=f"The policy {policy_arn} could not be found.",
            )
        scope_type = (access_scope or {}).get("type")
        namespaces = list((access_scope or {}).get("namespaces") or [])
        if scope_type not in ("cluster", "namespace"):
            raise InvalidParameterException(message="accessScope.type must be one of [cluster, namespace]")
        if scope_type == "namespace" and not namespaces:
            raise InvalidParameterException(
                message="Namespaces must be specified when the access scope type is namespace"
            )
        if scope_type == "cluster" and namespaces:
            raise InvalidParameterException(
                message="Namespaces can't be specified when the access scope type is cluster"
            )
        now = utcnow()
        previous = entry.policies.get(policy_arn)
        entry.policies[policy_arn] = {
            "policyArn": policy_arn,
            "accessScope": {"type": scope_type, "namespaces": namespaces},
            "associatedAt": previous["associatedAt"] if previous else now,
            "modifiedAt": now,
        }
        return entry.policies[policy_arn]


def create_pod_identity_association(
    backend: EKSBackend,
    cluster_name: str,
    namespace: str,
    service_account: str,
    role_arn: str,
    tags: dict[str, str] | None,
    disable_session_tags: bool | None,
    target_role_arn: str | None,
    policy: str | None,
) -> PodIdentityAssociation:
    cluster = backend_cluster(backend, cluster_name)
    with LOCK:
        validate_role_arn(role_arn)
        if target_role_arn:
            validate_role_arn(target_role_arn)
        check_association_free(cluster, namespace, service_account)
        association = PodIdentityAssociation(
            cluster, namespace, service_account, role_arn, tags, disable_session_tags, target_role_arn, policy
        )
        cluster.pod_identity_associations[association.association_id] = association
        return association


def check_association_free(cluster: SandboxCluster, namespace: str, service_account: str) -> None:
    for association in cluster.pod_identity_associations.values():
        if (association.namespace, association.service_account) == (namespace, service_account):
            raise in_use(
                f"Association already exists: {association.association_id} for namespace {namespace} and "
                f"service account {service_account}",
                cluster=cluster.name,
            )


def find_association(cluster: SandboxCluster, association_id: str) -> PodIdentityAssociation:
    association = cluster.pod_identity_associations.get(association_id)
    if association is None:
        raise not_found(f"Association not found: {association_id}", cluster=cluster.name)
    return association
