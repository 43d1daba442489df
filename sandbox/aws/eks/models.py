"""The EKS model: moto's Cluster with a lifecycle and the fields moto drops, add-ons whose health follows
their workloads, update records, access entries and pod identity associations."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta
from typing import Any

import moto.eks.models as eks_models
from moto.moto_api import state_manager
from moto.moto_api._internal.managed_state_model import ManagedState

from sandbox.aws import clock
from sandbox.aws.eks.catalog import (
    ADDON_CATALOG,
    DEFAULT_KUBERNETES_VERSION,
    DEFAULT_PLATFORM_VERSION,
    Workload,
    default_addon_version,
)
from sandbox.aws.eks.common import certificate_authority_data, expired, random_id, utcnow
from sandbox.aws.eks.durations import ADDON_MODEL, CLUSTER_MODEL, addon_rollout_seconds, durations
from sandbox.aws.eks.nodes import can_host, cluster_nodes

_MotoCluster = eks_models.Cluster  # kept: install() swaps the module global for SandboxCluster


class SandboxCluster(ManagedState, _MotoCluster):  # type: ignore[misc]  # both bases define status
    """moto's Cluster with a CREATING -> ACTIVE lifecycle and the fields moto drops."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _MotoCluster.__init__(self, *args, **kwargs)
        # After Cluster.__init__, which assigns status=ACTIVE through ManagedState's setter.
        ManagedState.__init__(self, CLUSTER_MODEL, [("CREATING", "ACTIVE"), ("UPDATING", "ACTIVE")])
        region = kwargs["region_name"]
        self.version = kwargs.get("version") or DEFAULT_KUBERNETES_VERSION
        self.platformVersion = DEFAULT_PLATFORM_VERSION
        # moto shares one issuer id between all clusters; EKS issues one per cluster.
        self.identity = {"oidc": {"issuer": f"https://oidc.eks.{region}.amazonaws.com/id/{uuid.uuid4().hex.upper()}"}}
        self.certificate_authority = {"data": certificate_authority_data()}
        self.health: dict[str, list[dict[str, Any]]] = {"issues": []}
        self.access_config: dict[str, Any] = {
            "bootstrapClusterCreatorAdminPermissions": True,
            "authenticationMode": "CONFIG_MAP",
        }
        self.upgrade_policy = {"supportType": "EXTENDED"}
        self.deletion_protection = False
        self.addons: dict[str, Addon] = {}
        self.access_entries: dict[str, AccessEntry] = {}
        self.pod_identity_associations: dict[str, PodIdentityAssociation] = {}
        self.updates: dict[str, Update] = {}
        self.gone_at: float | None = None  # monotonic deadline once DELETING

    @property
    def authentication_mode(self) -> str:
        return str(self.access_config["authenticationMode"])

    def start_update(self) -> None:
        # UPDATING -> ACTIVE uses the cluster transition (600 simulated seconds, like an upgrade).
        self.status = "UPDATING"
        self._time_progressed = datetime.now()  # ManagedState's clock for the 'time' progression


class Addon(ManagedState):
    """An EKS add-on: CREATING/UPDATING -> ACTIVE after its rollout time (durations.addon_rollout_seconds,
    or the 'eks::addon' transition when one is set), DELETING -> gone. A creation whose documented
    prerequisites are missing when it rolls out ends CREATE_FAILED with the error AWS documents."""

    def __init__(
        self,
        cluster: SandboxCluster,
        name: str,
        version: str | None,
        role_arn: str | None,
        configuration_values: str | None,
        tags: dict[str, str] | None,
        namespace: str | None,
    ) -> None:
        super().__init__(ADDON_MODEL, [("CREATING", "ACTIVE"), ("UPDATING", "ACTIVE")])
        catalog = ADDON_CATALOG[name]
        self.cluster_name = cluster.name
        self.addon_name = name
        self.addon_version = version or default_addon_version(name, cluster.version) or ""
        self.workloads: tuple[Workload, ...] = catalog["workloads"]
        self.requires: tuple[str, ...] = catalog.get("requires", ())
        self.prerequisites: tuple[tuple[str, str], ...] = catalog.get("prerequisites", ())
        self.failure: list[dict[str, Any]] = []  # the health issues of a failed creation
        self._cluster = cluster
        self.service_account_role_arn = role_arn
        self.configuration_values = configuration_values
        self.tags = tags or {}
        self.namespace = namespace or catalog["namespace"]
        self.publisher = catalog["publisher"]
        self.owner = catalog["owner"]
        self.arn = cluster.arn.replace(":cluster/", ":addon/", 1) + f"/{name}/{uuid.uuid4()}"
        self.pod_identity_association_arns: list[str] = []
        self.created_at = self.modified_at = utcnow()
        self.gone_at: float | None = None

    @property
    def status(self) -> str | None:
        before = self._status
        transition = state_manager.get_transition(self.model_name)
        if transition["progression"] == "time" and durations()["addon"] is None and before in ("CREATING", "UPDATING"):
            rollout = clock.real_seconds(addon_rollout_seconds(self.cluster_name, self.addon_name))
            if datetime.now() > self._time_progressed + timedelta(seconds=rollout):
                self._status = "ACTIVE"
                self._time_progressed = datetime.now()
        else:
            ManagedState.status.fget(self)  # type: ignore[attr-defined]
        if before == "CREATING" and self._status == "ACTIVE":
            self.failure = self._missing_prerequisites()
            if self.failure:
                self._status = "CREATE_FAILED"
        return self._status

    @status.setter
    def status(self, value: str) -> None:
        self._status = value

    def _missing_prerequisites(self) -> list[dict[str, Any]]:
        """The documented errors of the prerequisites not installed when this add-on rolls out: an add-on
        counts as installed once its own rollout applied its objects (CRDs, the CSIDriver)."""
        issues = []
        for name, message in self.prerequisites:
            other = self._cluster.addons.get(name)
            installed = (
                other is not None
                and not expired(other.gone_at)
                and other.status not in ("CREATING", "CREATE_FAILED", "DELETING")
            )
            if not installed:
                issues.append({"code": "K8sResourceNotFound", "message": message, "resourceIds": [name]})
        return issues

    def start_update(self) -> None:
        self.status = "UPDATING"
        self._time_progressed = datetime.now()  # ManagedState's clock for the 'time' progression
        self.modified_at = utcnow()

    def health(self, nodes: list[dict[str, Any]] | None = None) -> tuple[str | None, list[dict[str, Any]]]:
        """The status EKS reports and its health issues, from the add-on's workloads.

        Once rolled out, EKS keeps checking the add-on's Kubernetes resources: DaemonSets are complete
        with zero nodes (one pod per node), but a Deployment whose replicas have no node to run on
        leaves the add-on DEGRADED with the health issue InsufficientNumberOfReplicas, "The add-on is
        unhealthy because it doesn't have the desired number of replicas." (AddonIssue codes:
        https://docs.aws.amazon.com/eks/latest/APIReference/API_AddonIssue.html; coredns on a cluster
        without nodes, e.g. https://github.com/aws/containers-roadmap/issues/2328 and
        https://github.com/pulumi/pulumi-eks/issues/1819). It turns ACTIVE once nodes can host them.
        ``nodes`` are the cluster's Nodes when the caller already holds them (on the emulator's own loop,
        which the node reader would wait on).
        """
        status = self.status
        if status == "CREATE_FAILED":
            return status, list(self.failure)
        if status != "ACTIVE":
            return status, []
        found = self._missing_requirements()
        if not any(kind == "Deployment" for kind, _ in self.workloads) or any(
            can_host(node) for node in (cluster_nodes(self.cluster_name) if nodes is None else nodes)
        ):
            return ("DEGRADED", found) if found else (status, [])
        issue = {
            "code": "InsufficientNumberOfReplicas",
            "message": "The add-on is unhealthy because it doesn't have the desired number of replicas.",
        }
        return "DEGRADED", [issue, *found]

    def _missing_requirements(self) -> list[dict[str, Any]]:
        """A required add-on that is not ACTIVE leaves this one's resources unservable: the training
        operator's Certificate and Issuer (cert-manager.io/v1) have no CRD and its webhook no serving
        certificate. The issue code is EKS's K8sResourceNotFound; the wording is ours (AWS documents none)."""
        issues = []
        for name in self.requires:
            other = self._cluster.addons.get(name)
            state = other.health()[0] if other is not None and not expired(other.gone_at) else None
            if state != "ACTIVE":
                issues.append(
                    {
                        "code": "K8sResourceNotFound",
                        "message": f"{self.addon_name} needs the {name} add-on ACTIVE (it is "
                        f"{state or 'not installed'}): the server could not find the requested resource "
                        "(Certificate.cert-manager.io/v1).",
                    }
                )
        return issues

    def to_dict(self) -> dict[str, Any]:
        status, issues = self.health()
        out: dict[str, Any] = {
            "addonName": self.addon_name,
            "clusterName": self.cluster_name,
            "status": status,
            "addonVersion": self.addon_version,
            "health": {"issues": issues},
            "addonArn": self.arn,
            "createdAt": self.created_at,
            "modifiedAt": self.modified_at,
            "tags": self.tags,
            "publisher": self.publisher,
            "owner": self.owner,
            "podIdentityAssociations": list(self.pod_identity_association_arns),
            "namespaceConfig": {"namespace": self.namespace},
        }
        if self.service_account_role_arn:
            out["serviceAccountRoleArn"] = self.service_account_role_arn
        if self.configuration_values:
            out["configurationValues"] = self.configuration_values
        return out


class Update:
    """An EKS update record; InProgress until the updated cluster or add-on is ACTIVE again."""

    def __init__(self, update_type: str, params: list[dict[str, str]], target: Any = None) -> None:
        self.id = str(uuid.uuid4())
        self.type = update_type
        self.params = params
        self.target = target  # a SandboxCluster or an Addon
        self.created_at = utcnow()

    def to_dict(self) -> dict[str, Any]:
        done = self.target is None or self.target.status == "ACTIVE"
        return {
            "id": self.id,
            "status": "Successful" if done else "InProgress",
            "type": self.type,
            "params": self.params,
            "createdAt": self.created_at,
            "errors": [],
        }


class AccessEntry:
    """An access entry with its associated access policies (keyed by policy ARN)."""

    def __init__(
        self,
        cluster: SandboxCluster,
        principal_arn: str,
        entry_type: str,
        kubernetes_groups: list[str] | None,
        username: str | None,
        tags: dict[str, str] | None,
    ) -> None:
        match = re.match(
            r"arn:(?P<partition>[^:]+):iam::(?P<account>\d{12}):(?P<kind>role|user)/(?:.*/)?(?P<name>[^/]+)$",
            principal_arn,
        )
        assert match  # validated by the caller
        self.cluster_name = cluster.name
        self.principal_arn = principal_arn
        self.type = entry_type
        self.kubernetes_groups = list(kubernetes_groups or [])
        self.username = username or _default_username(match, entry_type)
        self.tags = tags or {}
        region, account = cluster.arn.split(":")[3], cluster.arn.split(":")[4]
        self.arn = (
            f"arn:{match['partition']}:eks:{region}:{account}:access-entry/{cluster.name}/"
            f"{match['kind']}/{match['account']}/{match['name']}/{uuid.uuid4().hex[:32]}"
        )
        self.created_at = self.modified_at = utcnow()
        self.policies: dict[str, dict[str, Any]] = {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "clusterName": self.cluster_name,
            "principalArn": self.principal_arn,
            "kubernetesGroups": self.kubernetes_groups,
            "accessEntryArn": self.arn,
            "createdAt": self.created_at,
            "modifiedAt": self.modified_at,
            "tags": self.tags,
            "username": self.username,
            "type": self.type,
        }


def _default_username(match: re.Match[str], entry_type: str) -> str:
    # The usernames EKS generates when none is given.
    if entry_type in ("EC2_LINUX", "EC2_WINDOWS", "EC2", "HYBRID_LINUX"):
        return "system:node:{{EC2PrivateDNSName}}"
    if entry_type == "HYPERPOD_LINUX":
        return "system:node:{{SessionName}}"
    if entry_type == "FARGATE_LINUX":
        return "system:node:{{SessionName}}"
    if match["kind"] == "role":
        sts_role = f"arn:{match['partition']}:sts::{match['account']}:assumed-role/{match['name']}"
        return sts_role + "/{{SessionName}}"
    return match.string


class PodIdentityAssociation:
    """An EKS Pod Identity association (namespace + service account -> IAM role)."""

    def __init__(
        self,
        cluster: SandboxCluster,
        namespace: str,
        service_account: str,
        role_arn: str,
        tags: dict[str, str] | None,
        disable_session_tags: bool | None,
        target_role_arn: str | None,
        policy: str | None,
        owner_arn: str | None = None,
    ) -> None:
        self.cluster_name = cluster.name
        self.namespace = namespace
        self.service_account = service_account
        self.role_arn = role_arn
        self.association_id = "a-" + random_id(17)
        self.association_arn = (
            cluster.arn.replace(":cluster/", ":podidentityassociation/", 1) + f"/{self.association_id}"
        )
        self.tags = tags or {}
        self.disable_session_tags = bool(disable_session_tags)
        self.target_role_arn = target_role_arn
        self.external_id = str(uuid.uuid4()) if target_role_arn else None
        self.policy = policy
        self.owner_arn = owner_arn
        self.created_at = self.modified_at = utcnow()

    def summary(self) -> dict[str, Any]:
        out = {
            "clusterName": self.cluster_name,
            "namespace": self.namespace,
            "serviceAccount": self.service_account,
            "associationArn": self.association_arn,
            "associationId": self.association_id,
        }
        if self.owner_arn:
            out["ownerArn"] = self.owner_arn
        return out

    def to_dict(self) -> dict[str, Any]:
        out = {
            **self.summary(),
            "roleArn": self.role_arn,
            "tags": self.tags,
            "createdAt": self.created_at,
            "modifiedAt": self.modified_at,
            "disableSessionTags": self.disable_session_tags,
        }
        for key, value in (
            ("targetRoleArn", self.target_role_arn),
            ("externalId", self.external_id),
            ("policy", self.policy),
        ):
            if value:
                out[key] = value
        return out
