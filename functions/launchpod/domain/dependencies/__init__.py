"""Cluster dependencies: the pinned manifest, the Kubernetes objects each entry installs, and how
what is installed compares with what is pinned (drift)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from launchpod.domain import addons as addon_health
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.errors import PermanentError
from launchpod.domain.operations import WorkflowPlan, role_for
from launchpod.domain.plan import Plan, Step


class PodIdentity(BaseModel):
    model_config = ConfigDict(extra="forbid")
    namespace: str
    serviceAccount: str
    access: Literal["shared-bucket-read-write", "fsx-lustre"]


class AddonEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    version: str
    required: bool
    purpose: str
    podIdentity: PodIdentity | None = None


class ManifestEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    version: str
    required: bool
    purpose: str


class KubernetesVersionEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: str
    hyperpod: bool  # SageMaker HyperPod supports clusters at this version
    standardSupportEnds: date  # EKS's end of standard support


class KubernetesVersions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reviewed: date
    versions: list[KubernetesVersionEntry]

    def supported(self) -> tuple[str, ...]:
        """HyperPod-supported versions in EKS standard support on the review date, newest first."""
        found = [v for v in self.versions if v.hyperpod and v.standardSupportEnds > self.reviewed]
        return tuple(
            v.version for v in sorted(found, key=lambda v: [int(n) for n in v.version.split(".")], reverse=True)
        )


class TrainingOperatorEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    addon: str
    version: str
    namespace: str
    serviceAccount: str
    requires: list[str]


class TieredCheckpointingEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    namespace: str
    serviceAccount: str
    prefix: str
    defaultMemoryPercentage: int


class AddonFeatureEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    addon: str
    version: str
    namespace: str


class ObservabilityEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    addon: str
    version: str
    namespace: str
    serviceAccount: str
    managedPolicies: list[str]
    applicationLogGroup: str  # "{cluster}" is the EKS cluster's name

    def log_group(self, cluster: str) -> str:
        return self.applicationLogGroup.format(cluster=cluster)


class HyperPodObservabilityEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    addon: str
    version: str
    namespace: str
    serviceAccount: str
    logGroups: str  # the CloudWatch Logs groups its collector may write (a log-group ARN's name part)


class FeatureEntries(BaseModel):
    model_config = ConfigDict(extra="forbid")
    trainingOperator: TrainingOperatorEntry
    tieredCheckpointing: TieredCheckpointingEntry
    taskGovernance: AddonFeatureEntry
    inferenceOperator: TrainingOperatorEntry
    observability: ObservabilityEntry
    hyperpodObservability: HyperPodObservabilityEntry


class DependencyManifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: str
    kubernetes: KubernetesVersions
    addons: list[AddonEntry]
    manifests: list[ManifestEntry]
    features: FeatureEntries


@lru_cache(maxsize=1)
def manifest() -> DependencyManifest:
    import yaml  # ~20 ms at import (its regexes); only this reads YAML, so the API Lambda need not pay it

    text = resources.files(__package__).joinpath("manifest.yaml").read_text()
    return DependencyManifest.model_validate(yaml.safe_load(text))


def kubernetes_versions() -> tuple[str, ...]:
    """The Kubernetes versions Launchpod creates clusters at, newest (the default) first."""
    return manifest().kubernetes.supported()


KIND = "reconcile-dependencies"
PHASES: tuple[tuple[str, str], ...] = (
    ("Addons", "EKS add-ons Launchpod pins"),
    ("Manifests", "HyperPod's health agent, device plugins and the other manifests Launchpod pins"),
)
# What a phase title calls each dependency (the manifest names them as EKS and their charts do).
_TITLES = {
    "cert-manager": "cert-manager",
    "aws-mountpoint-s3-csi-driver": "Mountpoint for S3 CSI",
    "aws-fsx-csi-driver": "FSx for Lustre CSI",
    "metrics-server": "metrics-server",
    "health-monitoring-agent": "health agent",
    "nvidia-device-plugin": "NVIDIA device plugin",
    "neuron-device-plugin": "Neuron device plugin",
    "efa-device-plugin": "EFA device plugin",
    "kuberay-operator": "KubeRay operator",
    "aws-load-balancer-controller": "AWS Load Balancer Controller",
}
MAX_POLLS = 80
POLL_SECONDS = 15


def title(name: str) -> str:
    return _TITLES.get(name, name)


def phases(include_optional: bool) -> tuple[tuple[str, str], ...]:
    """The phases titled with exactly what they install: the required dependencies, and the optional ones
    only when asked for (a title never names what is skipped)."""
    addons = ", ".join(title(a.name) for a in wanted_addons(include_optional))
    manifests = ", ".join(title(m.name) for m in wanted_manifests(include_optional))
    return (("Addons", f"EKS add-ons: {addons}"), ("Manifests", f"Manifests: {manifests}"))


def plan(cluster: str, include_optional: bool) -> WorkflowPlan:
    return WorkflowPlan(
        kind=KIND,
        target=cluster,
        request={"name": cluster, "includeOptional": include_optional},
        phases=phases(include_optional),
        role=role_for(KIND),
    )


def wanted_addons(include_optional: bool) -> list[AddonEntry]:
    return [a for a in manifest().addons if a.required or include_optional]


def wanted_manifests(include_optional: bool) -> list[ManifestEntry]:
    return [m for m in manifest().manifests if m.required or include_optional]


Offered = dict[str, tuple[list[str], str | None]]  # add-on -> (versions EKS offers, its default)


def offered_addons(
    kubernetes: str | None, versions: Callable[[str, str], tuple[list[str], str | None]]
) -> Offered | None:
    """What EKS offers of each pinned add-on for the cluster's Kubernetes version (``versions`` is
    DescribeAddonVersions by add-on and Kubernetes version); None when the cluster's version is unknown."""
    if not kubernetes:
        return None
    return {a.name: versions(a.name, kubernetes) for a in manifest().addons}


def version_for_cluster(eks: Any, cluster: str, name: str, pinned: str) -> str:
    """``wanted_version`` for the cluster's Kubernetes version, asked of ``eks`` (the adapter: cluster() and
    addon_versions(), DescribeCluster and DescribeAddonVersions)."""
    found = eks.cluster(cluster)
    kubernetes = str((found.version if found else None) or "")
    return wanted_version(name, pinned, eks.addon_versions(name, kubernetes), kubernetes)


def wanted_version(entry_name: str, pinned: str, offered: tuple[list[str], str | None], kubernetes: str) -> str:
    """The version to create or move add-on ``entry_name`` to: its pin when EKS offers it for the cluster's
    Kubernetes version, else EKS's default; PermanentError when EKS offers none."""
    version, why = addon_health.resolve_version(pinned, offered[0], offered[1], kubernetes)
    if version is None:
        raise PermanentError(f"{entry_name}: {why}; choose another Kubernetes version or remove the add-on.")
    return version


def status(
    addons: dict[str, EksAddon],
    workloads: dict[str, str | None],
    offered: Offered | None = None,
    kubernetes: str | None = None,
) -> list[dict[str, Any]]:
    """Each dependency: required or optional, pinned vs installed version, and whether it drifted.

    With ``offered`` (DescribeAddonVersions for the cluster's ``kubernetes`` version), an add-on's wanted
    version is its pin when EKS offers it, else EKS's default (launchpod.domain.addons.resolve_version): a
    pin not offered is drift, named in the row's note, even once the default is installed."""
    rows = []
    for a in manifest().addons:
        found = addons.get(a.name)
        installed = found.version if found else None
        wanted: str | None = a.version
        why: str | None = None
        if offered is not None and a.name in offered:
            versions, default = offered[a.name]
            wanted, why = addon_health.resolve_version(a.version, versions, default, kubernetes or "?")
        row = _row(a.name, "addon", a.required, a.version, installed, found.status if found else None, a.purpose)
        row["wanted"] = wanted
        row["drift"] = (installed is not None and installed != wanted) or why is not None
        notes = [why] if why else []
        if found and addon_health.waits_for_nodes(found):
            notes.append(addon_health.waiting_note(a.name, installed))
        if notes:
            row["note"] = "; ".join(notes)
        rows.append(row)
    for m in manifest().manifests:
        installed = workloads.get(m.name)
        rows.append(
            _row(m.name, "manifest", m.required, m.version, installed, "Applied" if installed else None, m.purpose)
        )
    return rows


def reconcile_plan(cluster: str, rows: list[dict[str, Any]], include_optional: bool) -> Plan:
    """One step per wanted dependency that is missing, or installed at another version than its pin
    (never a downgrade: an older pin than what runs is drift for a person to decide on)."""
    steps = []
    for row in rows:
        if not (row["required"] or include_optional):
            continue
        wanted = row.get("wanted", row["pinned"])
        if wanted is None:  # EKS offers no version for the cluster's Kubernetes version: nothing to install
            continue
        phase = "Addons" if row["kind"] == "addon" else "Manifests"
        what = f"{'EKS add-on' if row['kind'] == 'addon' else 'manifest'} {row['name']} {wanted}"
        if row["installed"] is None:
            steps.append(Step("install", what, "not installed", phase))
        elif row["installed"] != wanted and not addon_health.is_downgrade(row["installed"], wanted):
            why = "pinned" if wanted == row["pinned"] else "EKS's default (the pin is not offered)"
            steps.append(Step("update", what, f"{row['installed']} is installed; {wanted} is {why}", phase))
    return Plan(cluster, tuple(steps))


def _row(
    name: str, kind: str, required: bool, pinned: str, installed: str | None, state: str | None, purpose: str
) -> dict[str, Any]:
    return {
        "name": name,
        "kind": kind,
        "required": required,
        "pinned": pinned,
        "installed": installed,
        "state": state or "NOT_INSTALLED",
        "drift": installed is not None and installed != pinned,
        "purpose": purpose,
    }


def pod_identity_policy(access: str, bucket: str) -> dict[str, object]:
    """What a dependency add-on's pod identity role may do: read and write the shared bucket, or read the
    FSx file systems and volumes it mounts."""
    if access == "shared-bucket-read-write":
        return {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": f"arn:aws:s3:::{bucket}"},
                {
                    "Effect": "Allow",
                    "Action": ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:DeleteObject"],
                    "Resource": f"arn:aws:s3:::{bucket}/*",
                },
            ],
        }
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": ["fsx:DescribeFileSystems", "fsx:DescribeVolumes"], "Resource": "*"}
        ],
    }
