"""The observability feature (Container Insights): what it is on the real cluster and the plan that turns
it on or off, and where its container logs live in CloudWatch Logs once it runs.

It is the Amazon CloudWatch Observability EKS add-on with a pod identity role for its ``cloudwatch-agent``
service account, the role carrying the AWS managed policies the add-on's guide names (the pinned entry in
``dependencies/manifest.yaml`` cites them). Fluent Bit, installed by the add-on, ships each container's
lines to ``/aws/containerinsights/<cluster>/application``; that log group is the user's data, kept when
the feature is turned off or the cluster is deleted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial

from launchpod.contracts.features import FeatureObjectView, FeatureView
from launchpod.domain import addons as addon_health
from launchpod.domain import ownership
from launchpod.domain.clusters.control_plane import resource_name
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.dependencies import ObservabilityEntry, manifest
from launchpod.domain.plan import Step

PHASE = "Observability"
FIELD = "observability"


@dataclass(frozen=True)
class ShippedLines:
    """The last lines of one container of a pod, as Fluent Bit shipped them to the cluster's log group, oldest first."""

    pod: str
    container: str
    lines: list[str]


def entry() -> ObservabilityEntry:
    return manifest().features.observability


role_name = partial(resource_name, purpose="observability")  # (prefix, cluster) -> the add-on's role


def policy_arns() -> list[str]:
    return [f"arn:aws:iam::aws:policy/{name}" for name in entry().managedPolicies]


def log_group(cluster: str) -> str:
    return entry().log_group(cluster)


def enabled(addons: dict[str, EksAddon]) -> bool:
    """The add-on is installed and not being removed: Fluent Bit ships (or will ship) container logs."""
    return addon_health.in_use(addons.get(entry().addon))


def _quoted(value: str) -> str:
    return json.dumps(value)


def pod_filter(namespace: str, pod: str, container: str | None) -> str:
    """A CloudWatch Logs JSON filter pattern for one pod's (and container's) events: Fluent Bit's kubernetes
    filter puts ``kubernetes.pod_name``, ``namespace_name`` and ``container_name`` on every record
    ("Using filter patterns to match terms in JSON log events",
    https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html). ``pod`` may end
    in ``*`` (a wildcard, as JSON filter patterns allow in string values)."""
    terms = [f"$.kubernetes.namespace_name = {_quoted(namespace)}", f"$.kubernetes.pod_name = {_quoted(pod)}"]
    if container:
        terms.append(f"$.kubernetes.container_name = {_quoted(container)}")
    return "{ " + " && ".join(terms) + " }"


def view(addons: dict[str, EksAddon], cluster: str) -> FeatureView:
    obs = entry()
    addon = addons.get(obs.addon)
    objects = [FeatureObjectView(kind="EKS add-on", name=obs.addon, state=str(addon.status) if addon else None)]
    objects += addon_health.pod_identity_objects(addon)
    objects.append(FeatureObjectView(kind="CloudWatch Logs log group", name=log_group(cluster), state=None))
    note = addon_health.health_note(obs.addon, addon)
    return FeatureView(
        name="observability",
        title="Observability (CloudWatch Container Insights)",
        **addon_health.feature_facts(addon),
        settings={"applicationLogGroup": log_group(cluster)},
        objects=objects,
        dependsOn=["eks-pod-identity-agent"],
        note=note
        or "Container logs go to CloudWatch Logs while it runs, so a job's logs outlive its pods; the log"
        " group is kept when the feature is turned off.",
    )


def steps(addons: dict[str, EksAddon], cluster: str, prefix: str, wanted: bool) -> list[Step]:
    obs = entry()
    role = role_name(prefix, cluster)

    def install() -> list[Step]:
        return [
            Step(
                "create",
                f"IAM role {role}",
                f"the add-on's pod identity, with the AWS managed policies {', '.join(obs.managedPolicies)}",
                PHASE,
            ),
            Step(
                "create",
                f"EKS add-on {obs.addon} {obs.version}",
                f"observability.enabled is true and the add-on is not installed; pod identity for "
                f"{obs.namespace}/{obs.serviceAccount}",
                PHASE,
            ),
        ]

    feature = ownership.AddonFeature(obs.addon, "observability", PHASE, role, "the add-on's")
    return feature.steps(addons, cluster, prefix, wanted, install)
