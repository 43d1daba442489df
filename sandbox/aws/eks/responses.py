"""moto response methods for the EKS operations moto lacks, and the URL patterns that route them."""

from __future__ import annotations

import json
import uuid
from typing import Any

from moto.core.responses import ActionResult, EmptyResult
from moto.eks.exceptions import InvalidParameterException, InvalidRequestException
from moto.eks.responses import EKSResponse

from sandbox.aws.eks.access import (
    associate_access_policy,
    create_access_entry,
    create_pod_identity_association,
    find_access_entry,
    find_association,
    update_access_entry,
)
from sandbox.aws.eks.addons import create_addon, delete_addon, find_addon, update_addon
from sandbox.aws.eks.catalog import (
    ACCESS_POLICIES,
    ACCESS_POLICY_ARN,
    ADDON_CATALOG,
    KUBERNETES_VERSIONS,
    configuration_schema,
    default_addon_version,
    requires_configuration,
)
from sandbox.aws.eks.clusters import (
    backend_cluster,
    require_api_authentication,
    update_cluster_config,
    update_cluster_version,
)
from sandbox.aws.eks.common import LOCK, expired, not_found, paginate, utcnow, validate_role_arn
from sandbox.aws.eks.models import Addon


def _body(self: EKSResponse) -> Any:
    """The request's JSON body (an object; its members as the client sent them)."""
    try:
        return json.loads(self.body or "{}")
    except ValueError:
        return {}


def _uri(self: EKSResponse, name: str) -> str:
    from urllib.parse import unquote

    # moto's router hands path parameters over still percent-encoded (principal and policy ARNs have '/').
    return unquote(self.uri_match[name])


def _query(self: EKSResponse, name: str) -> Any:
    values = self.querystring.get(name)
    return values[0] if isinstance(values, list) and values else None


def _page(self: EKSResponse, key: str, items: list[Any], **about: Any) -> ActionResult:
    """A List call's answer: the page of ``items`` its maxResults and nextToken ask for, under ``key``, after
    the fields ``about`` that name what was listed."""
    page, token = paginate(items, _query(self, "maxResults"), _query(self, "nextToken"))
    return ActionResult({**about, key: page, "nextToken": token})


def _r_create_cluster(self: EKSResponse) -> ActionResult:
    body = _body(self)
    backend: Any = self.eks_backend  # its create_cluster is the sandbox's (sandbox.aws.eks.clusters)
    cluster = backend.create_cluster(
        name=body.get("name"),
        version=body.get("version"),
        role_arn=body.get("roleArn"),
        resources_vpc_config=body.get("resourcesVpcConfig"),
        kubernetes_network_config=body.get("kubernetesNetworkConfig"),
        logging=body.get("logging"),
        client_request_token=body.get("clientRequestToken"),
        tags=body.get("tags"),
        encryption_config=body.get("encryptionConfig"),
        remote_network_config=body.get("remoteNetworkConfig"),
        access_config=body.get("accessConfig"),
        extra={
            "upgrade_policy": body.get("upgradePolicy"),
            "zonal_shift_config": body.get("zonalShiftConfig"),
            "compute_config": body.get("computeConfig"),
            "storage_config": body.get("storageConfig"),
            "deletion_protection": body.get("deletionProtection"),
        },
    )
    return ActionResult({"cluster": cluster})


def _r_update_cluster_config(self: EKSResponse) -> ActionResult:
    return ActionResult({"update": update_cluster_config(self.eks_backend, _uri(self, "name"), _body(self)).to_dict()})


def _r_update_cluster_version(self: EKSResponse) -> ActionResult:
    update = update_cluster_version(self.eks_backend, _uri(self, "name"), _body(self).get("version", ""))
    return ActionResult({"update": update.to_dict()})


def _r_create_addon(self: EKSResponse) -> ActionResult:
    body = _body(self)
    addon = create_addon(
        self.eks_backend,
        _uri(self, "name"),
        body.get("addonName"),
        body.get("addonVersion"),
        body.get("serviceAccountRoleArn"),
        body.get("configurationValues"),
        body.get("tags"),
        body.get("podIdentityAssociations"),
        (body.get("namespaceConfig") or {}).get("namespace"),
    )
    return ActionResult({"addon": addon.to_dict()})


def _r_describe_addon(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    return ActionResult({"addon": find_addon(cluster, _uri(self, "addonName")).to_dict()})


def _r_list_addons(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    names = sorted(n for n, a in cluster.addons.items() if not expired(a.gone_at))
    return _page(self, "addons", names)


def _r_update_addon(self: EKSResponse) -> ActionResult:
    body = _body(self)
    update = update_addon(
        self.eks_backend,
        _uri(self, "name"),
        _uri(self, "addonName"),
        body.get("addonVersion"),
        body.get("serviceAccountRoleArn"),
        body.get("configurationValues"),
        body.get("podIdentityAssociations"),
        body.get("resolveConflicts"),
    )
    return ActionResult({"update": update.to_dict()})


def _r_delete_addon(self: EKSResponse) -> ActionResult:
    addon = delete_addon(self.eks_backend, _uri(self, "name"), _uri(self, "addonName"))
    return ActionResult({"addon": addon.to_dict()})


def _r_describe_addon_versions(self: EKSResponse) -> ActionResult:
    """One entry per add-on with the versions compatible with ``kubernetesVersion`` (every offered
    version when none is given); the first compatible version is the default."""
    wanted = _query(self, "addonName")
    kubernetes_version = _query(self, "kubernetesVersion")
    clusters = [kubernetes_version] if kubernetes_version else list(KUBERNETES_VERSIONS)
    addons = []
    for name, info in sorted(ADDON_CATALOG.items()):
        if wanted not in (None, name):
            continue
        defaults = {k: default_addon_version(name, k) for k in clusters}
        versions = [
            {
                "addonVersion": version,
                "architecture": ["amd64", "arm64"],
                "computeTypes": ["ec2"],
                "compatibilities": [
                    {"clusterVersion": k, "platformVersions": ["*"], "defaultVersion": defaults[k] == version}
                    for k in clusters
                    if k in compatible
                ],
                "requiresConfiguration": requires_configuration(name),
                "requiresIamPermissions": info["type"] in ("storage", "observability"),
            }
            for version, compatible in info["versions"]
            if any(k in compatible for k in clusters)
        ]
        if versions:
            addons.append(
                {
                    "addonName": name,
                    "type": info["type"],
                    "publisher": info["publisher"],
                    "owner": info["owner"],
                    "defaultNamespace": info["namespace"],
                    "addonVersions": versions,
                }
            )
    return _page(self, "addons", addons)


def _r_describe_addon_configuration(self: EKSResponse) -> ActionResult:
    """The add-on version's configuration schema, as a JSON string
    (https://docs.aws.amazon.com/eks/latest/APIReference/API_DescribeAddonConfiguration.html). An add-on or
    version EKS does not offer is refused like CreateAddon refuses it (the API reference names only
    InvalidParameterException among this call's errors for bad input)."""
    name, version = _query(self, "addonName"), _query(self, "addonVersion")
    if name not in ADDON_CATALOG or version not in {v for v, _ in ADDON_CATALOG[name]["versions"]}:
        raise InvalidParameterException(message="Addon version specified is not supported")
    return ActionResult(
        {
            "addonName": name,
            "addonVersion": version,
            "configurationSchema": json.dumps(configuration_schema(name)),
            "podIdentityConfiguration": [],
        }
    )


def _r_describe_update(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    update = cluster.updates.get(_uri(self, "updateId"))
    if update is None:
        raise not_found(f"No update found for ID: {_uri(self, 'updateId')}", cluster=cluster.name)
    return ActionResult({"update": update.to_dict()})


def _r_list_updates(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    addon_name = _query(self, "addonName")
    ids = [
        u.id
        for u in sorted(cluster.updates.values(), key=lambda u: u.created_at)
        if (addon_name is None and u.target is cluster)
        or (isinstance(u.target, Addon) and u.target.addon_name == addon_name)
    ]
    return _page(self, "updateIds", ids)


def _r_create_access_entry(self: EKSResponse) -> ActionResult:
    body = _body(self)
    entry = create_access_entry(
        self.eks_backend,
        _uri(self, "name"),
        body.get("principalArn"),
        body.get("type"),
        body.get("kubernetesGroups"),
        body.get("username"),
        body.get("tags"),
    )
    return ActionResult({"accessEntry": entry.to_dict()})


def _r_describe_access_entry(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    return ActionResult({"accessEntry": find_access_entry(cluster, _uri(self, "principalArn")).to_dict()})


def _r_update_access_entry(self: EKSResponse) -> ActionResult:
    body = _body(self)
    entry = update_access_entry(
        self.eks_backend,
        _uri(self, "name"),
        _uri(self, "principalArn"),
        body.get("kubernetesGroups"),
        body.get("username"),
    )
    return ActionResult({"accessEntry": entry.to_dict()})


def _r_list_access_entries(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    require_api_authentication(cluster)
    policy = _query(self, "associatedPolicyArn")
    arns = sorted(arn for arn, e in cluster.access_entries.items() if policy is None or policy in e.policies)
    return _page(self, "accessEntries", arns)


def _r_delete_access_entry(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    with LOCK:
        find_access_entry(cluster, _uri(self, "principalArn"))
        del cluster.access_entries[_uri(self, "principalArn")]
    return EmptyResult()


def _r_associate_access_policy(self: EKSResponse) -> ActionResult:
    body = _body(self)
    cluster_name, principal_arn = _uri(self, "name"), _uri(self, "principalArn")
    policy = associate_access_policy(
        self.eks_backend, cluster_name, principal_arn, body.get("policyArn"), body.get("accessScope")
    )
    return ActionResult({"clusterName": cluster_name, "principalArn": principal_arn, "associatedAccessPolicy": policy})


def _r_list_associated_access_policies(self: EKSResponse) -> ActionResult:
    cluster_name, principal_arn = _uri(self, "name"), _uri(self, "principalArn")
    entry = find_access_entry(backend_cluster(self.eks_backend, cluster_name), principal_arn)
    policies = [entry.policies[arn] for arn in sorted(entry.policies)]
    return _page(self, "associatedAccessPolicies", policies, clusterName=cluster_name, principalArn=principal_arn)


def _r_disassociate_access_policy(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    with LOCK:
        entry = find_access_entry(cluster, _uri(self, "principalArn"))
        policy_arn = _uri(self, "policyArn")
        if entry.policies.pop(policy_arn, None) is None:
            raise not_found(f"The policy {policy_arn} is not associated with this access entry.", cluster=cluster.name)
    return EmptyResult()


def _r_list_access_policies(self: EKSResponse) -> ActionResult:
    partition = "aws-cn" if self.region.startswith("cn-") else "aws"
    policies = [{"name": n, "arn": ACCESS_POLICY_ARN.format(partition=partition, name=n)} for n in ACCESS_POLICIES]
    return _page(self, "accessPolicies", policies)


def _r_create_pod_identity_association(self: EKSResponse) -> ActionResult:
    body = _body(self)
    association = create_pod_identity_association(
        self.eks_backend,
        _uri(self, "name"),
        body.get("namespace"),
        body.get("serviceAccount"),
        body.get("roleArn"),
        body.get("tags"),
        body.get("disableSessionTags"),
        body.get("targetRoleArn"),
        body.get("policy"),
    )
    return ActionResult({"association": association.to_dict()})


def _r_describe_pod_identity_association(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    return ActionResult({"association": find_association(cluster, _uri(self, "associationId")).to_dict()})


def _r_update_pod_identity_association(self: EKSResponse) -> ActionResult:
    body = _body(self)
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    with LOCK:
        association = find_association(cluster, _uri(self, "associationId"))
        if body.get("roleArn"):
            validate_role_arn(body["roleArn"])
            association.role_arn = body["roleArn"]
        if body.get("disableSessionTags") is not None:
            association.disable_session_tags = bool(body["disableSessionTags"])
        if "targetRoleArn" in body:
            association.target_role_arn = body["targetRoleArn"] or None
            association.external_id = str(uuid.uuid4()) if association.target_role_arn else None
        if "policy" in body:
            association.policy = body["policy"] or None
        association.modified_at = utcnow()
    return ActionResult({"association": association.to_dict()})


def _r_list_pod_identity_associations(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    namespace, service_account = _query(self, "namespace"), _query(self, "serviceAccount")
    items = [
        a.summary()
        for a in sorted(cluster.pod_identity_associations.values(), key=lambda a: a.created_at)
        if namespace in (None, a.namespace) and service_account in (None, a.service_account)
    ]
    return _page(self, "associations", items)


def _r_delete_pod_identity_association(self: EKSResponse) -> ActionResult:
    cluster = backend_cluster(self.eks_backend, _uri(self, "name"))
    with LOCK:
        association = find_association(cluster, _uri(self, "associationId"))
        if association.owner_arn:
            raise InvalidRequestException(
                message=f"Association {association.association_id} is owned by {association.owner_arn} and "
                "can only be removed through its owner."
            )
        del cluster.pod_identity_associations[association.association_id]
    return ActionResult({"association": association.to_dict()})


RESPONSE_METHODS = {
    "create_cluster": _r_create_cluster,
    "update_cluster_config": _r_update_cluster_config,
    "update_cluster_version": _r_update_cluster_version,
    "create_addon": _r_create_addon,
    "describe_addon": _r_describe_addon,
    "list_addons": _r_list_addons,
    "update_addon": _r_update_addon,
    "delete_addon": _r_delete_addon,
    "describe_addon_versions": _r_describe_addon_versions,
    "describe_addon_configuration": _r_describe_addon_configuration,
    "describe_update": _r_describe_update,
    "list_updates": _r_list_updates,
    "create_access_entry": _r_create_access_entry,
    "describe_access_entry": _r_describe_access_entry,
    "update_access_entry": _r_update_access_entry,
    "list_access_entries": _r_list_access_entries,
    "delete_access_entry": _r_delete_access_entry,
    "associate_access_policy": _r_associate_access_policy,
    "list_associated_access_policies": _r_list_associated_access_policies,
    "disassociate_access_policy": _r_disassociate_access_policy,
    "list_access_policies": _r_list_access_policies,
    "create_pod_identity_association": _r_create_pod_identity_association,
    "describe_pod_identity_association": _r_describe_pod_identity_association,
    "update_pod_identity_association": _r_update_pod_identity_association,
    "list_pod_identity_associations": _r_list_pod_identity_associations,
    "delete_pod_identity_association": _r_delete_pod_identity_association,
}

# Regexes only route a request to EKSResponse.dispatch; moto's router then picks the operation from
# botocore's model. Principal and policy ARNs contain '/', hence the greedy tails.
URL_PATHS = [
    "{0}/clusters/(?P<name>[^/]+)/addons$",
    "{0}/clusters/(?P<name>[^/]+)/addons/(?P<addonName>[^/]+)$",
    "{0}/clusters/(?P<name>[^/]+)/addons/(?P<addonName>[^/]+)/update$",
    "{0}/addons/supported-versions$",
    "{0}/addons/configuration-schemas$",
    "{0}/clusters/(?P<name>[^/]+)/updates$",
    "{0}/clusters/(?P<name>[^/]+)/updates/(?P<updateId>[^/]+)$",
    "{0}/clusters/(?P<name>[^/]+)/access-entries$",
    "{0}/clusters/(?P<name>[^/]+)/access-entries/(?P<principalArn>.+)$",
    "{0}/access-policies$",
    "{0}/clusters/(?P<name>[^/]+)/pod-identity-associations$",
    "{0}/clusters/(?P<name>[^/]+)/pod-identity-associations/(?P<associationId>[^/]+)$",
]
