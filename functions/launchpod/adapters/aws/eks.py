"""EKS: clusters, access entries and add-ons."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code, or_none
from launchpod.domain.clusters.eks_addon import AddonIssue, EksAddon
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.concurrency import ContextPool


def eks_cluster(described: Mapping[str, Any]) -> EksCluster:
    """DescribeCluster's ``cluster`` as Launchpod reads it (a cluster still CREATING has no endpoint, CA or
    issuer yet; one created without logging has no clusterLogging)."""
    vpc = described.get("resourcesVpcConfig") or {}
    logging = (described.get("logging") or {}).get("clusterLogging") or []
    return EksCluster(
        name=str(described["name"]),
        arn=str(described["arn"]),
        status=str(described["status"]),
        version=described.get("version"),
        endpoint=described.get("endpoint"),
        certificate_authority=(described.get("certificateAuthority") or {}).get("data"),
        vpc_id=vpc.get("vpcId"),
        subnet_ids=tuple(vpc.get("subnetIds") or ()),
        security_group_ids=tuple(vpc.get("securityGroupIds") or ()),
        cluster_security_group_id=vpc.get("clusterSecurityGroupId"),
        authentication_mode=(described.get("accessConfig") or {}).get("authenticationMode"),
        log_types=tuple(t for entry in logging if entry.get("enabled") for t in entry.get("types") or ()),
        oidc_issuer=((described.get("identity") or {}).get("oidc") or {}).get("issuer"),
        tags=dict(described.get("tags") or {}),
    )


def eks_addon(described: Mapping[str, Any]) -> EksAddon:
    """DescribeAddon's ``addon`` as Launchpod reads it; its configurationValues (a JSON string) parsed, {} when
    it has none or they are not a JSON object."""
    try:
        values = json.loads(described.get("configurationValues") or "{}")
    except ValueError:
        values = {}
    return EksAddon(
        name=str(described["addonName"]),
        status=described.get("status"),
        version=described.get("addonVersion"),
        issues=tuple(
            AddonIssue(code=str(i.get("code", "")), message=str(i.get("message", "")))
            for i in (described.get("health") or {}).get("issues") or ()
        ),
        pod_identity_associations=tuple(described.get("podIdentityAssociations") or ()),
        configuration=values if isinstance(values, dict) else {},
        tags=dict(described.get("tags") or {}),
    )


class Eks:
    def __init__(self) -> None:
        self.eks = client("eks")

    def cluster(self, name: str) -> EksCluster | None:
        """The cluster as EKS describes it, or None when there is none by that name."""
        with aws_call("eks:DescribeCluster"):
            found = or_none(lambda: self.eks.describe_cluster(name=name)["cluster"], "ResourceNotFoundException")
        return eks_cluster(found) if found is not None else None

    def cluster_names(self) -> set[str]:
        """The name of every EKS cluster in this Region (ListClusters, every page). ``include=all`` lists
        connected clusters too, as DescribeCluster answers for them ("ListClusters", Amazon EKS API Reference)."""
        with aws_call("eks:ListClusters"):
            pages = self.eks.get_paginator("list_clusters").paginate(include=["all"])
            return {name for page in pages for name in page.get("clusters", [])}

    def create_cluster(
        self,
        *,
        name: str,
        role_arn: str,
        subnet_ids: list[str],
        version: str,
        log_types: list[str],
        tags: dict[str, str],
        security_group_ids: list[str] | None = None,
    ) -> dict[str, Any]:
        with aws_call("eks:CreateCluster"):
            return dict(
                self.eks.create_cluster(
                    name=name,
                    version=version,
                    roleArn=role_arn,
                    resourcesVpcConfig={
                        "subnetIds": subnet_ids,
                        # Put on the control plane's interfaces next to EKS's own cluster security group.
                        "securityGroupIds": list(security_group_ids or []),
                        "endpointPublicAccess": True,
                        "endpointPrivateAccess": True,
                    },
                    # HyperPod needs API or API_AND_CONFIG_MAP; keeping the config map eases migration.
                    accessConfig={
                        "authenticationMode": "API_AND_CONFIG_MAP",
                        "bootstrapClusterCreatorAdminPermissions": True,
                    },
                    logging={"clusterLogging": [{"types": log_types, "enabled": True}]} if log_types else {},
                    tags=tags,
                )["cluster"]
            )

    # ------------------------------------------------------------------ access entries
    def ensure_access_entry(
        self,
        cluster: str,
        principal_arn: str,
        policy_arn: str | None,
        tags: dict[str, str],
        entry_type: str = "STANDARD",
    ) -> None:
        with aws_call("eks:DescribeAccessEntry"):
            found = or_none(
                lambda: self.eks.describe_access_entry(clusterName=cluster, principalArn=principal_arn),
                "ResourceNotFoundException",
            )
            exists = found is not None
        with aws_call("eks:CreateAccessEntry"):
            if not exists:
                self.eks.create_access_entry(
                    clusterName=cluster, principalArn=principal_arn, type=entry_type, tags=tags
                )
        if policy_arn is None:
            return
        with aws_call("eks:AssociateAccessPolicy"):
            associated = self.eks.list_associated_access_policies(clusterName=cluster, principalArn=principal_arn)
            if not any(p["policyArn"] == policy_arn for p in associated.get("associatedAccessPolicies", [])):
                self.eks.associate_access_policy(
                    clusterName=cluster,
                    principalArn=principal_arn,
                    policyArn=policy_arn,
                    accessScope={"type": "cluster"},
                )

    # ------------------------------------------------------------------ add-ons
    def addons(self, cluster: str) -> dict[str, EksAddon]:
        """Add-on name -> the add-on (status, version, health). EKS describes one add-on a call; a
        cluster with a dozen waits a dozen round trips one after another, so they are asked side by side
        (boto3 clients are thread safe; botocore pools 10 connections per client by default)."""
        with aws_call("eks:ListAddons"):
            names = self.eks.list_addons(clusterName=cluster).get("addons", [])

        def describe(name: str) -> EksAddon | None:
            with aws_call("eks:DescribeAddon"):
                # Listed, then deleted before it could be described (an add-on finishing its DELETING).
                found = or_none(
                    lambda: self.eks.describe_addon(clusterName=cluster, addonName=name)["addon"],
                    "ResourceNotFoundException",
                )
            return eks_addon(found) if found is not None else None

        if len(names) < 2:
            described = [describe(n) for n in names]
        else:
            with ContextPool(max_workers=min(10, len(names)), thread_name_prefix="addon") as pool:
                described = list(pool.map(describe, names))
        return {n: a for n, a in zip(names, described, strict=True) if a is not None}

    def addon_versions(self, name: str, kubernetes_version: str) -> tuple[list[str], str | None]:
        """The versions EKS offers of add-on ``name`` for clusters of ``kubernetes_version`` (newest first, as
        DescribeAddonVersions lists them) and the one it marks default for that version."""
        versions: list[str] = []
        default: str | None = None
        with aws_call("eks:DescribeAddonVersions"):
            pages = self.eks.get_paginator("describe_addon_versions").paginate(
                addonName=name, kubernetesVersion=kubernetes_version
            )
            for page in pages:
                for addon in page.get("addons", []):
                    for found in addon.get("addonVersions", []):
                        versions.append(found["addonVersion"])
                        if any(
                            c.get("defaultVersion") and c.get("clusterVersion") == kubernetes_version
                            for c in found.get("compatibilities", [])
                        ):
                            default = found["addonVersion"]
        return versions, default

    def addon_configuration_schema(self, name: str, version: str) -> dict[str, Any]:
        """The JSON schema of the add-on version's configuration values (DescribeAddonConfiguration)."""
        with aws_call("eks:DescribeAddonConfiguration"):
            found = self.eks.describe_addon_configuration(addonName=name, addonVersion=version)
        schema = json.loads(found.get("configurationSchema") or "{}")
        return schema if isinstance(schema, dict) else {}

    def create_addon(
        self,
        cluster: str,
        name: str,
        tags: dict[str, str],
        version: str | None = None,
        pod_identity: tuple[str, str] | None = None,
        configuration: dict[str, Any] | None = None,
    ) -> None:
        """Create an add-on, optionally at a version, with a pod identity (service account, role ARN) and
        configuration values."""
        kwargs: dict[str, Any] = {
            "clusterName": cluster,
            "addonName": name,
            "resolveConflicts": "OVERWRITE",
            "tags": tags,
        }
        if version:
            kwargs["addonVersion"] = version
        if pod_identity:
            kwargs["podIdentityAssociations"] = [{"serviceAccount": pod_identity[0], "roleArn": pod_identity[1]}]
        if configuration:
            kwargs["configurationValues"] = json.dumps(configuration, sort_keys=True)
        with aws_call(f"eks:CreateAddon {name}"):
            self.eks.create_addon(**kwargs)

    def update_addon(self, cluster: str, name: str, version: str) -> None:
        with aws_call(f"eks:UpdateAddon {name}"):
            self.eks.update_addon(
                clusterName=cluster, addonName=name, addonVersion=version, resolveConflicts="OVERWRITE"
            )

    def delete_addon(self, cluster: str, name: str) -> bool:
        """Delete an add-on (EKS removes its pod identity associations with it); False when already gone."""
        with aws_call(f"eks:DeleteAddon {name}"):
            try:
                self.eks.delete_addon(clusterName=cluster, addonName=name)
            except ClientError as exc:
                if error_code(exc) == "ResourceNotFoundException":
                    return False
                raise
        return True

    def ensure_pod_identity_association(
        self, cluster: str, namespace: str, service_account: str, role_arn: str, tags: dict[str, str]
    ) -> None:
        """Associate the role with the service account, once (EKS allows one association per service account)."""
        with aws_call("eks:ListPodIdentityAssociations"):
            found = self.eks.list_pod_identity_associations(
                clusterName=cluster, namespace=namespace, serviceAccount=service_account
            ).get("associations", [])
        if found:
            return
        with aws_call(f"eks:CreatePodIdentityAssociation {namespace}/{service_account}"):
            self.eks.create_pod_identity_association(
                clusterName=cluster, namespace=namespace, serviceAccount=service_account, roleArn=role_arn, tags=tags
            )

    def delete_cluster(self, name: str) -> None:
        with aws_call("eks:DeleteCluster"):
            self.eks.delete_cluster(name=name)
