"""Cluster operations: CreateCluster (endpoint from ``set_kube_endpoint_provider``, network config),
DescribeCluster, ListClusters, DeleteCluster (DELETING until it expires), UpdateClusterConfig and
UpdateClusterVersion."""

from __future__ import annotations

import json
import string
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import moto.eks.models as eks_models
from moto.eks.exceptions import InvalidParameterException, InvalidRequestException
from moto.eks.models import EKSBackend, validate_safe_to_delete

from sandbox.aws import clock
from sandbox.aws.eks.catalog import DEFAULT_PLATFORM_VERSION, KUBERNETES_VERSIONS
from sandbox.aws.eks.common import LOCK, expired, in_use, not_found, random_id
from sandbox.aws.eks.durations import durations
from sandbox.aws.eks.models import SandboxCluster, Update
from sandbox.aws.state import STATE


@dataclass
class EndpointState:
    """Where a new cluster's Kubernetes API server is."""

    endpoint_provider: Callable[[str, str], str] | None = None


def _state() -> EndpointState:
    return STATE.of(EndpointState)


def set_kube_endpoint_provider(provider: Callable[[str, str], str] | None) -> None:
    """Use ``provider(cluster_name, kubernetes_version) -> url`` as each new cluster's ``endpoint`` (None
    restores moto's), so its API server reports the cluster's version."""
    _state().endpoint_provider = provider


def _reap(backend: EKSBackend) -> None:
    """Drop clusters and add-ons whose DELETING period has run out."""
    with LOCK:
        for name, cluster in list(backend.clusters.items()):
            if expired(getattr(cluster, "gone_at", None)):
                backend.clusters.pop(name, None)
                backend.cluster_count -= 1
                continue
            addons = getattr(cluster, "addons", {})
            for addon_name, addon in list(addons.items()):
                if expired(addon.gone_at):
                    addons.pop(addon_name, None)


def backend_cluster(backend: EKSBackend, name: str) -> SandboxCluster:
    _reap(backend)
    cluster = backend.clusters.get(name)
    if cluster is None:
        raise not_found(f"No cluster found for name: {name}.", cluster=name)
    return cluster  # type: ignore[return-value]


def find_cluster(name: str) -> SandboxCluster | None:
    """The cluster of that name in any account and region (the fleet keys API servers by name)."""
    for account in list(eks_models.eks_backends):
        for backend in list(eks_models.eks_backends[account].values()):
            cluster = backend.clusters.get(name)
            if cluster is not None:
                return cast(SandboxCluster, cluster)  # install() makes every moto cluster one
    return None


def require_active(cluster: SandboxCluster) -> None:
    if cluster.status != "ACTIVE":
        raise InvalidRequestException(message=f"Cluster is in {cluster.status} state")


def require_api_authentication(cluster: SandboxCluster) -> None:
    if cluster.authentication_mode not in ("API", "API_AND_CONFIG_MAP"):
        raise InvalidRequestException(
            message="The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] "
            "to perform this operation."
        )


_original_create_cluster = EKSBackend.create_cluster
_original_describe_cluster = EKSBackend.describe_cluster
_original_list_clusters = EKSBackend.list_clusters


def create_cluster(
    self: EKSBackend,
    *args: Any,
    access_config: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    **kwargs: Any,
) -> SandboxCluster:
    _reap(self)
    version = kwargs.get("version")
    if version and version not in KUBERNETES_VERSIONS:
        # EKS creates clusters only at the versions of its release calendar (KUBERNETES_VERSIONS).
        raise InvalidParameterException(
            message=f"unsupported Kubernetes version {version}; supported: {', '.join(KUBERNETES_VERSIONS)}"
        )
    cluster: SandboxCluster = _original_create_cluster(self, *args, **kwargs)  # type: ignore[assignment]
    # EKS defaults: API_AND_CONFIG_MAP when accessConfig is sent without a mode, CONFIG_MAP without it.
    if access_config is not None:
        cluster.access_config = {
            "bootstrapClusterCreatorAdminPermissions": access_config.get(
                "bootstrapClusterCreatorAdminPermissions", True
            ),
            "authenticationMode": access_config.get("authenticationMode") or "API_AND_CONFIG_MAP",
        }
    for key, value in (extra or {}).items():
        if value is not None:
            setattr(cluster, key, value)
    _complete_network_config(self, cluster)
    # Start the CREATING clock when the cluster is complete, not before the EC2 lookups above.
    cluster._time_progressed = datetime.now()
    provider = _state().endpoint_provider
    if provider is not None:
        cluster.endpoint = provider(cluster.name, cluster.version)
    return cluster


def _complete_network_config(backend: EKSBackend, cluster: SandboxCluster) -> None:
    """Fill what EKS adds to the VPC config: defaults, the VPC id and the cluster security group.

    When the subnets exist in moto's EC2 backend the cluster security group is created there for real
    (EKS creates it in the cluster's VPC), so code that adds rules to it finds it with EC2 calls.
    Unknown subnets are tolerated and get a made-up group id.
    """
    vpc_config = {
        "endpointPublicAccess": True,
        "endpointPrivateAccess": False,
        "publicAccessCidrs": ["0.0.0.0/0"],
        **(cluster.resources_vpc_config or {}),
    }
    cluster.kubernetes_network_config = {"ipFamily": "ipv4", **(cluster.kubernetes_network_config or {})}
    vpc_id = None
    try:
        from moto.ec2.models import ec2_backends

        ec2 = ec2_backends[backend.account_id][backend.region_name]
        subnet_ids = vpc_config.get("subnetIds") or []
        if subnet_ids:
            vpc_id = ec2.get_subnet(subnet_ids[0]).vpc_id
    except Exception:
        ec2 = None
    if vpc_id and ec2 is not None:
        group = ec2.create_security_group(
            name=f"eks-cluster-sg-{cluster.name}-{random_id(10, string.digits)}",
            description="EKS created security group applied to ENI that is attached to EKS Control Plane "
            "master nodes, as well as any managed workloads.",
            vpc_id=vpc_id,
            tags={f"kubernetes.io/cluster/{cluster.name}": "owned", "aws:eks:cluster-name": cluster.name},
        )
        # EKS's cluster security group: all inbound traffic from itself, all outbound (CreateSecurityGroup's
        # default) (https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html).
        no_ports: Any = None  # moto types the ports str; an all-traffic ("-1") rule has none
        ec2.authorize_security_group_ingress(
            group.id, "-1", no_ports, no_ports, [], source_groups=[{"GroupId": group.id}], vpc_id=vpc_id
        )
        vpc_config.update(vpcId=vpc_id, clusterSecurityGroupId=group.id)
    else:
        vpc_config.setdefault("clusterSecurityGroupId", "sg-" + random_id(17, "0123456789abcdef"))
    cluster.resources_vpc_config = vpc_config


def describe_cluster(self: EKSBackend, name: str) -> SandboxCluster:
    return backend_cluster(self, name)


def list_clusters(self: EKSBackend, max_results: int, next_token: str | None) -> Any:
    _reap(self)
    return _original_list_clusters(self, max_results, next_token)


def delete_cluster(self: EKSBackend, name: str) -> SandboxCluster:
    cluster = backend_cluster(self, name)
    with LOCK:
        if cluster.gone_at is not None:
            return cluster  # already DELETING: answer like a repeated request, don't restart the clock
        validate_safe_to_delete(cluster)
        if cluster.deletion_protection:
            raise InvalidRequestException(
                message=f"Cluster {name} has deletion protection enabled. Disable it with "
                "UpdateClusterConfig before deleting the cluster."
            )
        cluster.status = "DELETING"
        cluster.gone_at = time.monotonic() + clock.real_seconds(durations()["cluster_delete"] or 0.0)
        # EKS removes the cluster's add-ons, access entries and pod identity associations with it.
        cluster.addons.clear()
        cluster.access_entries.clear()
        cluster.pod_identity_associations.clear()
    return cluster


_AUTHENTICATION_MODE_ORDER = ["CONFIG_MAP", "API_AND_CONFIG_MAP", "API"]


def update_cluster_config(backend: EKSBackend, name: str, body: dict[str, Any]) -> Update:
    """UpdateClusterConfig: one update per call, as EKS only accepts one kind of change at a time."""
    cluster = backend_cluster(backend, name)
    with LOCK:
        _require_no_update_in_progress(cluster)
        params: list[dict[str, str]] = []
        update_type = "ConfigUpdate"
        if body.get("accessConfig"):
            mode = body["accessConfig"].get("authenticationMode")
            current = cluster.authentication_mode
            # EKS only moves towards API: CONFIG_MAP -> API_AND_CONFIG_MAP -> API, never back.
            if mode not in _AUTHENTICATION_MODE_ORDER or (
                _AUTHENTICATION_MODE_ORDER.index(mode) < _AUTHENTICATION_MODE_ORDER.index(current)
            ):
                raise InvalidParameterException(
                    message=f"Unsupported authentication mode update from {current} to {mode}"
                )
            cluster.access_config = {**cluster.access_config, "authenticationMode": mode}
            update_type = "AccessConfigUpdate"
            params.append({"type": "AuthenticationMode", "value": json.dumps(mode)})
        if body.get("logging"):
            cluster.logging = body["logging"]
            update_type = "LoggingUpdate"
            params.append({"type": "ClusterLogging", "value": json.dumps(body["logging"])})
        if body.get("resourcesVpcConfig"):
            cluster.resources_vpc_config = {
                **(cluster.resources_vpc_config or {}),
                **body["resourcesVpcConfig"],
            }
            update_type = "EndpointAccessUpdate"
            for key, kind in (
                ("endpointPublicAccess", "EndpointPublicAccess"),
                ("endpointPrivateAccess", "EndpointPrivateAccess"),
                ("publicAccessCidrs", "PublicAccessCidrs"),
            ):
                if key in body["resourcesVpcConfig"]:
                    params.append({"type": kind, "value": json.dumps(body["resourcesVpcConfig"][key])})
        if body.get("upgradePolicy"):
            cluster.upgrade_policy = body["upgradePolicy"]
            update_type = "UpgradePolicyUpdate"
            params.append({"type": "UpgradePolicy", "value": json.dumps(body["upgradePolicy"])})
        if body.get("deletionProtection") is not None:
            cluster.deletion_protection = bool(body["deletionProtection"])
            update_type = "DeletionProtectionUpdate"
            params.append({"type": "DeletionProtection", "value": json.dumps(cluster.deletion_protection)})
        if not params:
            raise InvalidParameterException(message="No changes needed for the cluster configuration")
        cluster.start_update()
        update = Update(update_type, params, cluster)
        cluster.updates[update.id] = update
        return update


def update_cluster_version(backend: EKSBackend, name: str, version: str) -> Update:
    cluster = backend_cluster(backend, name)
    with LOCK:
        _require_no_update_in_progress(cluster)
        if version not in KUBERNETES_VERSIONS:
            raise InvalidParameterException(message=f"unsupported Kubernetes version {version}")
        current_minor, wanted_minor = (int(v.split(".")[1]) for v in (cluster.version, version))
        if wanted_minor != current_minor + 1:
            raise InvalidParameterException(
                message=f"Unsupported Kubernetes minor version update from {cluster.version} to {version}"
            )
        cluster.version = version
        cluster.start_update()
        update = Update(
            "VersionUpdate",
            [
                {"type": "Version", "value": version},
                {"type": "PlatformVersion", "value": DEFAULT_PLATFORM_VERSION},
            ],
            cluster,
        )
        cluster.updates[update.id] = update
        return update


def _require_no_update_in_progress(cluster: SandboxCluster) -> None:
    status = cluster.status
    if status == "UPDATING":
        raise in_use("Cluster has an update in progress", cluster=cluster.name)
    require_active(cluster)
