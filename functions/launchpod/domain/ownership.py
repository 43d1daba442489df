"""What "created by Launchpod" means, written once: the AWS tags every resource Launchpod creates
carries (how a phase finds its own work again, and the only thing delete may remove), and the
Kubernetes label on every object it applies.

A tag alone can be forged by anyone allowed to tag (eks:TagResource has no condition key that tells a
create from a later TagResource), so the EKS and HyperPod clusters delete-cluster removes must also be
recorded as created in the cluster registry: the create phases write the ARN right after AWS created
the cluster (``CREATED_EKS``/``CREATED_HYPERPOD``), announced by a marker written just before the create
call so that a retried phase that finds its own cluster can still record it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from launchpod.domain import addons as addon_health

if TYPE_CHECKING:
    from launchpod.domain.clusters.cluster_record import ClusterRecord
    from launchpod.domain.clusters.eks_addon import EksAddon
    from launchpod.domain.plan import Step

# Kubernetes' recommended label for the tool that manages an object.
K8S_MANAGED_BY = "app.kubernetes.io/managed-by"
K8S_MANAGER = "launchpod"
K8S_LABELS: dict[str, str] = {K8S_MANAGED_BY: K8S_MANAGER}


def aws_tags(cluster: str, prefix: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Tags on everything Launchpod creates in AWS for ``cluster``; the user's own tags come first and
    can never override these two."""
    return {**(extra or {}), f"{prefix}:cluster": cluster, f"{prefix}:managed-by": prefix}


def owns_aws(tags: Mapping[str, str], cluster: str, prefix: str) -> bool:
    """True only for a resource Launchpod created for ``cluster`` (both tags, exactly)."""
    expected = aws_tags(cluster, prefix)
    return all(tags.get(key) == value for key, value in expected.items())


def owns_k8s(obj: Mapping[str, object] | None) -> bool:
    """True only for a Kubernetes object Launchpod applied (its managed-by label)."""
    metadata = (obj or {}).get("metadata") or {}
    labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
    return isinstance(labels, Mapping) and labels.get(K8S_MANAGED_BY) == K8S_MANAGER


# Registry facts: the ARN of the cluster a create phase made, and the marker written before the call.
CREATED_EKS, CREATED_HYPERPOD = "createdEksArn", "createdHyperPodArn"


def requested(fact: str) -> str:
    return f"{fact}Requested"


def recorded_as_created(record: ClusterRecord | None, fact: str, arn: str) -> bool:
    """True only when the registry records ``arn`` as the cluster Launchpod's create phase made."""
    return record is not None and record.created.get(fact) == arn


def may_record_existing(record: ClusterRecord | None, fact: str) -> bool:
    """A create phase that finds its cluster already there (a retry after the create call) records it
    only when its own marker says it asked AWS to create one, and nothing is recorded yet."""
    return record is not None and fact in record.requested and fact not in record.created


# The only principals a role Launchpod creates may trust: the services AWS documents for each role (EKS
# cluster role: eks.amazonaws.com, EKS user guide "Amazon EKS cluster IAM role"; HyperPod execution role and
# MLflow tracking server: sagemaker.amazonaws.com, SageMaker developer guide "IAM role for SageMaker
# HyperPod" and "Set up IAM permissions for MLflow"; Karpenter's role: hyperpod.sagemaker.amazonaws.com,
# "Create an IAM role for HyperPod autoscaling with Karpenter"; pod identities: pods.eks.amazonaws.com,
# EKS user guide "Understand how EKS Pod Identity works"; the Amazon Managed Grafana workspace role:
# grafana.amazonaws.com, Amazon Managed Grafana user guide "Amazon Managed Grafana permissions and policies for
# AWS data sources and notification channels"), and for IRSA this account's OIDC providers (EKS user guide
# "Assign IAM roles to Kubernetes service accounts"). No AWS account, user or role.
TRUSTED_SERVICES = frozenset(
    {
        "eks.amazonaws.com",
        "sagemaker.amazonaws.com",
        "hyperpod.sagemaker.amazonaws.com",
        "pods.eks.amazonaws.com",
        "grafana.amazonaws.com",
    }
)


def untrusted_principals(document: Mapping[str, object], account: str) -> list[str]:
    """The principals a trust policy names beyond TRUSTED_SERVICES and this account's OIDC providers."""
    out: list[str] = []
    statements = document.get("Statement") or []
    for statement in statements if isinstance(statements, list) else [statements]:
        principal = statement.get("Principal") if isinstance(statement, Mapping) else None
        if not isinstance(principal, Mapping):
            out.append(str(principal))
            continue
        for kind, values in principal.items():
            for value in [values] if isinstance(values, str) else list(values or []):
                if kind == "Service" and value in TRUSTED_SERVICES:
                    continue
                if kind == "Federated" and f":iam::{account}:oidc-provider/" in str(value):
                    continue
                out.append(f"{kind}:{value}")
    return out


@dataclass(frozen=True)
class AddonFeature:
    """A managed feature that is one EKS add-on, with the pod identity ``role`` Launchpod makes for it when it has
    one (``whose`` role, in the removal's reason: "the operator's", ...); ``field`` is the request's."""

    addon: str
    field: str
    phase: str
    role: str | None = None
    whose: str = ""

    def steps(
        self,
        addons: Mapping[str, EksAddon],
        cluster: str,
        prefix: str,
        wanted: bool,
        install: Callable[[], list[Step]],
    ) -> list[Step]:
        """Turned on or off: nothing when it already is, ``install()`` to turn it on, and to turn it off its
        removal, only when Launchpod installed it (``owned_addon_removal``)."""
        addon = addons.get(self.addon)
        if wanted:
            return [] if addon_health.installed(addon) else install()
        return owned_addon_removal(self.addon, addon, cluster, prefix, self.field, self.phase, self.role, self.whose)


def owned_addon_removal(
    name: str,
    addon: EksAddon | None,
    cluster: str,
    prefix: str,
    field: str,
    phase: str,
    role: str | None,
    whose: str,
) -> list[Step]:
    """A feature add-on's removal plan, only when Launchpod installed it: the add-on ``name``, then its pod identity
    ``role`` when it has one (``whose``: "the operator's", ...); none when it is not installed, a 409 when someone
    else installed it."""
    from launchpod.domain.errors import Conflict
    from launchpod.domain.plan import Step

    if addon is None:
        return []
    if not owns_aws(addon.tags, cluster, prefix):
        raise Conflict(
            f"The add-on {name} on {cluster} was not installed by Launchpod; remove it where it was"
            " installed (Launchpod removes only what it created).",
            details=[{"field": f"body.{field}.enabled", "rule": "owned_by_launchpod", "message": name}],
        )
    removal = [Step("delete", f"EKS add-on {name}", f"{field}.enabled is false and it is installed", phase)]
    if role is not None:
        removal.append(Step("delete", f"IAM role {role}", f"{whose} pod identity role, created by Launchpod", phase))
    return removal
