"""EKS in memory: the ControlPlanes / AddonReader / AddonCatalog / EksClusters ports (adapters.aws.eks)."""

from __future__ import annotations

import json
from typing import Any

from launchpod.adapters.aws.eks import eks_addon, eks_cluster
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.errors import Conflict, NotFound

ACCOUNT = "123456789012"


def _offered(
    offered: dict[str, tuple[list[str], str | None]], name: str, kubernetes_version: str
) -> tuple[list[str], str | None]:
    """What a fake EKS offers of add-on ``name``: ``offered``'s entry, or else the manifest's pin alone."""
    if name in offered:
        return offered[name]
    from launchpod.domain import dependencies

    pins = {a.name: a.version for a in dependencies.manifest().addons}
    f = dependencies.manifest().features
    for entry in (f.trainingOperator, f.inferenceOperator, f.taskGovernance, f.observability, f.hyperpodObservability):
        pins[entry.addon] = entry.version
    pin = pins.get(name)
    return ([pin], pin) if pin else ([], None)


class Eks:
    """EKS: clusters by name as DescribeCluster answers them (its name and ARN filled in where a test leaves
    them out, as EKS always gives both), read as the adapter reads them; each cluster's add-ons by name, and
    the add-on versions offered (``offered``'s entry, or else the dependency manifest's pin alone). Add-ons are
    kept as DescribeAddon answers them (``addon_map``: cluster -> name -> answer, its addonName filled in where a
    test leaves it out) and read as the adapter reads them."""

    def __init__(
        self,
        clusters: dict[str, dict[str, Any]] | None = None,
        addons: dict[str, dict[str, dict[str, Any]]] | None = None,
        offered: dict[str, tuple[list[str], str | None]] | None = None,
    ) -> None:
        self.clusters = clusters if clusters is not None else {}
        self.addon_map = addons if addons is not None else {}
        self.offered = offered or {}
        self.created: list[dict[str, Any]] = []  # each CreateAddon: name, version, tags, identity, configuration
        self.updated: list[tuple[str, str]] = []  # each UpdateAddon: (name, version)
        self.deleted: list[str] = []  # each add-on DeleteAddon removed
        self.schemas: dict[str, dict[str, Any]] = {}  # add-on -> its configuration values' JSON schema

    def cluster(self, name: str) -> EksCluster | None:
        found = self.clusters.get(name)
        if found is None:
            return None
        arn = f"arn:aws:eks:us-east-1:{ACCOUNT}:cluster/{name}"
        return eks_cluster({"name": name, "arn": arn, **found})

    def cluster_names(self) -> set[str]:
        return set(self.clusters)

    def addons(self, cluster: str) -> dict[str, EksAddon]:
        """A cluster neither seeded nor given add-ons does not exist: ListAddons answers ResourceNotFound."""
        if cluster not in self.clusters and cluster not in self.addon_map:
            raise NotFound(
                f"eks:ListAddons failed: ResourceNotFoundException: No cluster found for name: {cluster}.",
                aws_code="ResourceNotFoundException",
            )
        return {n: eks_addon({"addonName": n, **a}) for n, a in self.addon_map.get(cluster, {}).items()}

    def addon_versions(self, name: str, kubernetes_version: str) -> tuple[list[str], str | None]:
        return _offered(self.offered, name, kubernetes_version)

    def create_addon(
        self,
        cluster: str,
        name: str,
        tags: dict[str, str],
        version: str | None = None,
        pod_identity: tuple[str, str] | None = None,
        configuration: dict[str, Any] | None = None,
    ) -> None:
        """CreateAddon: CREATING at ``version``, else the default version EKS offers, with its tags, configuration
        values (as the adapter sends them) and pod identity association."""
        chosen = version or self.addon_versions(name, "")[1]
        self.created.append(
            {"name": name, "version": version, "tags": tags, "identity": pod_identity, "configuration": configuration}
        )
        addon: dict[str, Any] = {"addonName": name, "clusterName": cluster, "status": "CREATING", "tags": dict(tags)}
        if configuration:
            addon["configurationValues"] = json.dumps(configuration, sort_keys=True)
        if pod_identity:
            association = f"a-{len(self.created):017d}"
            addon["podIdentityAssociations"] = [
                f"arn:aws:eks:us-east-1:{ACCOUNT}:podidentityassociation/{cluster}/{association}"
            ]
        self.addon_map.setdefault(cluster, {})[name] = addon | ({"addonVersion": chosen} if chosen else {})

    def update_addon(self, cluster: str, name: str, version: str) -> None:
        """UpdateAddon: UPDATING to ``version``; an add-on still CREATING, UPDATING or DELETING is refused as EKS
        refuses it (ResourceInUseException)."""
        self.addons(cluster)
        found = self.addon_map[cluster][name]
        if found.get("status") in ("CREATING", "UPDATING", "DELETING"):
            raise Conflict(
                f"eks:UpdateAddon {name} failed: ResourceInUseException: Addon {name} is in {found['status']} state "
                "and cannot be updated"
            )
        self.updated.append((name, version))
        found.update(status="UPDATING", addonVersion=version)

    def delete_addon(self, cluster: str, name: str) -> bool:
        """DeleteAddon: the add-on goes (with its pod identity associations); False when it is already gone."""
        if name not in self.addon_map.get(cluster, {}):
            return False
        self.deleted.append(name)
        del self.addon_map[cluster][name]
        return True

    def addon_configuration_schema(self, name: str, version: str) -> dict[str, Any]:
        """DescribeAddonConfiguration's schema of the add-on's configuration values ({} when it publishes none)."""
        return dict(self.schemas.get(name, {}))
