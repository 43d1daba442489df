"""Cluster dependencies: the pinned manifest, the Kubernetes objects each entry installs, and how
what is installed compares with what is pinned (drift)."""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from launchpod.domain import addons as addon_health
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


class FeatureEntries(BaseModel):
    model_config = ConfigDict(extra="forbid")
    trainingOperator: TrainingOperatorEntry
    tieredCheckpointing: TieredCheckpointingEntry
    taskGovernance: AddonFeatureEntry
    inferenceOperator: TrainingOperatorEntry
    observability: ObservabilityEntry


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
    ("Addons", "EKS add-ons: cert-manager, Mountpoint for S3 CSI, FSx CSI, metrics-server"),
    ("Manifests", "Health agent, device plugins (NVIDIA, Neuron, EFA), KubeRay operator, AWS Load Balancer Controller"),
)
MAX_POLLS = 80
POLL_SECONDS = 15


def plan(cluster: str, include_optional: bool) -> WorkflowPlan:
    return WorkflowPlan(
        kind=KIND,
        target=cluster,
        request={"name": cluster, "includeOptional": include_optional},
        phases=PHASES,
        role=role_for(KIND),
    )


def wanted_addons(include_optional: bool) -> list[AddonEntry]:
    return [a for a in manifest().addons if a.required or include_optional]


def wanted_manifests(include_optional: bool) -> list[ManifestEntry]:
    return [m for m in manifest().manifests if m.required or include_optional]


def status(addons: dict[str, dict[str, Any]], workloads: dict[str, str | None]) -> list[dict[str, Any]]:
    """Each dependency: required or optional, pinned vs installed version, and whether it drifted."""
    rows = []
    for a in manifest().addons:
        found = addons.get(a.name)
        installed = found.get("addonVersion") if found else None
        row = _row(a.name, "addon", a.required, a.version, installed, found.get("status") if found else None, a.purpose)
        if found and addon_health.waits_for_nodes(found):
            row["note"] = addon_health.waiting_note(a.name, installed)
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
        phase = "Addons" if row["kind"] == "addon" else "Manifests"
        what = f"{'EKS add-on' if row['kind'] == 'addon' else 'manifest'} {row['name']} {row['pinned']}"
        if row["installed"] is None:
            steps.append(Step("install", what, "not installed", phase))
        elif row["drift"] and not addon_health.is_downgrade(row["installed"], row["pinned"]):
            steps.append(Step("update", what, f"{row['installed']} is installed; {row['pinned']} is pinned", phase))
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
