"""Add-on operations: CreateAddon, UpdateAddon and DeleteAddon against the catalogue, with their pod
identity associations."""

from __future__ import annotations

import json
import time
from typing import Any

import jsonschema
import yaml
from moto.eks.exceptions import InvalidParameterException
from moto.eks.models import EKSBackend

from sandbox.aws import clock
from sandbox.aws.eks.access import check_association_free
from sandbox.aws.eks.catalog import ADDON_CATALOG, addon_versions, configuration_schema, default_addon_version
from sandbox.aws.eks.clusters import backend_cluster, require_active
from sandbox.aws.eks.common import LOCK, expired, in_use, not_found, validate_role_arn
from sandbox.aws.eks.durations import durations
from sandbox.aws.eks.models import Addon, PodIdentityAssociation, SandboxCluster, Update

_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}
_UNSUPPORTED = "ConfigurationValue provided in request is not supported: Json schema validation failed with error: "


def _json_type(value: Any) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


def _schema_messages(error: jsonschema.ValidationError) -> list[str]:
    """One error in the wording EKS's validator uses (networknt json-schema-validator): "$.node.defaultTolerations:
    is not defined in the schema and the schema does not allow additional properties"
    (https://github.com/awslabs/mountpoint-s3-csi-driver/issues/784), "$: null found, object expected"
    (https://github.com/cookpad/terraform-aws-eks/pull/331), "$.enableNetworkPolicy: boolean found, string
    expected"; "is missing but it is required" is the same library's wording for a missing required key
    (not seen in an EKS error on a public page: inferred)."""
    path = "$" + "".join(f".{p}" if isinstance(p, str) else f"[{p}]" for p in error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        return [f"{path}.{key}: is missing but it is required" for key in error.validator_value if key not in instance]
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = set((error.schema or {}).get("properties", {}))
        return [
            f"{path}.{key}: is not defined in the schema and the schema does not allow additional properties"
            for key in instance
            if key not in known
        ]
    if error.validator == "type":
        expected = error.validator_value if isinstance(error.validator_value, str) else "/".join(error.validator_value)
        return [f"{path}: {_json_type(instance)} found, {expected} expected"]
    if error.validator == "pattern":
        return [f"{path}: does not match the regex pattern {error.validator_value}"]
    if error.validator == "minLength":
        return [f"{path}: must be at least {error.validator_value} characters long"]
    return [f"{path}: {error.message}"]


def _parse_configuration_values(value: str) -> Any:
    """EKS takes configuration values as JSON or YAML ("--configuration-values", CreateAddon)."""
    try:
        return json.loads(value)
    except ValueError:
        pass
    try:
        return yaml.safe_load(value)
    except yaml.YAMLError:
        raise InvalidParameterException(message=_UNSUPPORTED + "[$: is not valid JSON or YAML]") from None


def validate_configuration_values(addon_name: str, value: str | None) -> None:
    """Check ``value`` against the add-on's schema (DescribeAddonConfiguration) as CreateAddon and UpdateAddon
    do: InvalidParameterException "ConfigurationValue provided in request is not supported: Json schema
    validation failed with error: [...]". An add-on whose schema requires keys (the HyperPod inference
    add-on: executionRoleArn, tlsCertificateS3Bucket) is refused without values, the request being
    checked as the empty object; what EKS answers in that case is not documented (inferred)."""
    schema = configuration_schema(addon_name)
    if not value and not schema.get("required"):
        return
    document = _parse_configuration_values(value) if value else {}
    errors = sorted(jsonschema.Draft6Validator(schema).iter_errors(document), key=lambda e: list(e.absolute_path))
    messages = list(dict.fromkeys(m for e in errors for m in _schema_messages(e)))  # one a key, in order
    if messages:
        raise InvalidParameterException(message=_UNSUPPORTED + "[" + ", ".join(messages) + "]")


def find_addon(cluster: SandboxCluster, name: str) -> Addon:
    addon = cluster.addons.get(name)
    if addon is None or expired(addon.gone_at):
        raise not_found(f"No addon: {name} found in cluster: {cluster.name}", cluster=cluster.name, addon=name)
    return addon


def _associate_for_addon(cluster: SandboxCluster, addon: Addon, associations: list[dict[str, str]] | None) -> None:
    for item in associations or []:
        validate_role_arn(item["roleArn"])
        check_association_free(cluster, addon.namespace, item["serviceAccount"])
    for item in associations or []:
        association = PodIdentityAssociation(
            cluster,
            addon.namespace,
            item["serviceAccount"],
            item["roleArn"],
            None,
            None,
            None,
            None,
            owner_arn=addon.arn,
        )
        cluster.pod_identity_associations[association.association_id] = association
        addon.pod_identity_association_arns.append(association.association_arn)


def _drop_addon_associations(cluster: SandboxCluster, addon: Addon) -> None:
    for association_id, association in list(cluster.pod_identity_associations.items()):
        if association.owner_arn == addon.arn:
            del cluster.pod_identity_associations[association_id]
    addon.pod_identity_association_arns.clear()


def _check_addon_version(cluster: SandboxCluster, addon_name: str, addon_version: str | None) -> None:
    """CreateAddon/UpdateAddon accept only a version DescribeAddonVersions lists for the cluster's
    Kubernetes version; anything else is EKS's InvalidParameterException "Addon version specified is
    not supported" (e.g. https://github.com/hashicorp/terraform-provider-aws/issues/32238)."""
    if addon_version and addon_version not in addon_versions(addon_name, cluster.version):
        raise InvalidParameterException(message="Addon version specified is not supported")
    if not addon_version and default_addon_version(addon_name, cluster.version) is None:
        raise _unsupported(cluster, addon_name)


def _unsupported(cluster: SandboxCluster, addon_name: str) -> InvalidParameterException:
    return InvalidParameterException(
        message=f"Addon {addon_name} specified is not supported in {cluster.version} cluster version"
    )


def create_addon(
    backend: EKSBackend,
    cluster_name: str,
    addon_name: str,
    addon_version: str | None = None,
    role_arn: str | None = None,
    configuration_values: str | None = None,
    tags: dict[str, str] | None = None,
    pod_identity_associations: list[dict[str, str]] | None = None,
    namespace: str | None = None,
) -> Addon:
    cluster = backend_cluster(backend, cluster_name)
    with LOCK:
        existing = cluster.addons.get(addon_name)
        if existing is not None and not expired(existing.gone_at):
            raise in_use(f"Addon already exists: {addon_name}", cluster=cluster_name, addon=addon_name)
        require_active(cluster)
        if addon_name not in ADDON_CATALOG:
            raise _unsupported(cluster, addon_name)
        _check_addon_version(cluster, addon_name, addon_version)
        if role_arn:
            validate_role_arn(role_arn)
        validate_configuration_values(addon_name, configuration_values)
        addon = Addon(cluster, addon_name, addon_version, role_arn, configuration_values, tags, namespace)
        _associate_for_addon(cluster, addon, pod_identity_associations)
        cluster.addons[addon_name] = addon
        return addon


def update_addon(
    backend: EKSBackend,
    cluster_name: str,
    addon_name: str,
    addon_version: str | None = None,
    role_arn: str | None = None,
    configuration_values: str | None = None,
    pod_identity_associations: list[dict[str, str]] | None = None,
    resolve_conflicts: str | None = None,
) -> Update:
    cluster = backend_cluster(backend, cluster_name)
    with LOCK:
        addon = find_addon(cluster, addon_name)
        if addon.status in ("CREATING", "UPDATING", "DELETING"):
            raise in_use(
                f"Addon {addon_name} is in {addon.status} state and cannot be updated",
                cluster=cluster_name,
                addon=addon_name,
            )
        params: list[dict[str, str]] = []
        if addon_version:
            _check_addon_version(cluster, addon_name, addon_version)
            addon.addon_version = addon_version
            params.append({"type": "AddonVersion", "value": addon_version})
        if role_arn is not None:
            if role_arn:
                validate_role_arn(role_arn)
            addon.service_account_role_arn = role_arn or None
            params.append({"type": "ServiceAccountRoleArn", "value": role_arn})
        if configuration_values is not None:
            validate_configuration_values(addon_name, configuration_values or None)
            addon.configuration_values = configuration_values or None
            params.append({"type": "ConfigurationValues", "value": configuration_values})
        if pod_identity_associations is not None:
            _drop_addon_associations(cluster, addon)
            _associate_for_addon(cluster, addon, pod_identity_associations)
            params.append({"type": "PodIdentityAssociations", "value": json.dumps(addon.pod_identity_association_arns)})
        if resolve_conflicts:
            params.append({"type": "ResolveConflicts", "value": resolve_conflicts})
        addon.start_update()
        update = Update("AddonUpdate", params, addon)
        cluster.updates[update.id] = update
        return update


def delete_addon(backend: EKSBackend, cluster_name: str, addon_name: str) -> Addon:
    cluster = backend_cluster(backend, cluster_name)
    with LOCK:
        addon = find_addon(cluster, addon_name)
        if addon.gone_at is None:
            addon.status = "DELETING"
            addon.gone_at = time.monotonic() + clock.real_seconds(durations()["addon_delete"] or 0.0)
            _drop_addon_associations(cluster, addon)
        return addon
