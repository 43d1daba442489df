"""A HyperPod operator add-on with its IAM role (the pod identity of its controller's service account, or an
execution role it assumes through IRSA), created at the version EKS offers for the cluster's Kubernetes
version (the pin, else EKS's default) and awaited until ACTIVE (or only waiting for nodes); its
configuration values checked against DescribeAddonConfiguration's schema first, and the dependency add-ons
it fails without installed before it. Turned off, the add-on Launchpod installed is deleted (EKS removes its
pod identity association) and its role after it. The training and inference operators' and the
observability add-on's phases are this, each with its own entry, role, policies and values."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons, dependencies, features, ownership
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.reconcile_dependencies import pod_identity_role


@dataclass(frozen=True)
class OperatorAddon:
    phase: str
    title: str  # "training operator"
    field: str  # the UpdateFeaturesInput field that turns it on or off
    entry: Callable[[], Any]  # the pinned add-on (features.training_operator, ...)
    role_name: Callable[[str, str], str]  # (resource prefix, cluster) -> role name
    policy_name: str | None
    # the HyperPod cluster's ARN -> the role's inline policy; None: the role carries only managed policies
    policy: Callable[[str | None], dict[str, Any]] | None
    managed_policies: Callable[[], list[str]] = list  # AWS managed policy ARNs attached to the role
    # (OIDC provider ARN, issuer host) -> the role's trust: an execution role assumed through IRSA, passed in
    # the add-on's configuration values; None: a pod identity association for the entry's service account
    trust: Callable[[str, str], dict[str, Any]] | None = None
    # (role ARN, HyperPod cluster ARN) -> the add-on's configuration values; None: it takes none
    configuration: Callable[[str, str | None], dict[str, Any]] | None = None
    # dependency add-ons (manifest entries) it fails to create without: installed first, awaited until rolled out
    prerequisites: tuple[str, ...] = ()

    def _wait(self, doc: WorkflowInput, message: str) -> PhaseResult:
        if doc.poll.get(self.phase, 0) >= features.MAX_POLLS:
            raise PermanentError(f"The {self.title} add-on did not settle in 20 minutes ({message}); retry.")
        return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=message)

    def _prerequisites_pending(self, doc: WorkflowInput, tags: dict[str, str], kubernetes: str) -> list[str]:
        """Install the prerequisites that are missing; the names of those not rolled out yet."""
        eks = wiring.eks()
        present = eks.addons(doc.target)
        pending = []
        for name in self.prerequisites:
            found = present.get(name)
            if found is None:
                entry = next(a for a in dependencies.manifest().addons if a.name == name)
                version = dependencies.wanted_version(
                    name, entry.version, eks.addon_versions(name, kubernetes), kubernetes
                )
                identity = pod_identity_role(doc.target, entry, tags) if entry.podIdentity else None
                eks.create_addon(doc.target, name, tags, version, identity)
                pending.append(f"{name} {version} (CREATING)")
            elif addons.broken(found):
                raise PermanentError(f"The {self.title} needs {addons.problem(name, found)}. Fix it, then retry.")
            elif not addons.settled(found):
                pending.append(f"{name} ({found.get('status')})")
        return pending

    def _role(self, doc: WorkflowInput, tags: dict[str, str], cluster_arn: str | None) -> str:
        name = self.role_name(settings().resource_prefix, doc.target)
        iam = wiring.iam()
        description = f"The {self.title} add-on on {doc.target}, created by Launchpod"
        if self.trust is None:
            arn = iam.ensure_role(name, "pods.eks.amazonaws.com", self.managed_policies(), tags, description)
        else:
            issuer = (((wiring.eks().cluster(doc.target) or {}).get("identity") or {}).get("oidc") or {}).get("issuer")
            provider = iam.oidc_provider_arn(issuer) if issuer else None
            if provider is None or not issuer:
                raise PermanentError(
                    f"{doc.target} has no IAM OIDC provider for its issuer, which the {self.title}'s execution "
                    f"role trusts; run POST /api/clusters/{doc.target}/phases/control-plane, then retry."
                )
            arn = iam.ensure_role_trusting(
                name, self.trust(provider, issuer.removeprefix("https://")), tags, description
            )
        if self.policy is not None and self.policy_name is not None:
            iam.put_inline_policy(name, self.policy_name, self.policy(cluster_arn))
        return arn

    def _create(self, doc: WorkflowInput, tags: dict[str, str]) -> PhaseResult:
        op = self.entry()
        eks = wiring.eks()
        kubernetes = str((eks.cluster(doc.target) or {}).get("version") or "")
        pending = self._prerequisites_pending(doc, tags, kubernetes)
        if pending:
            return self._wait(doc, f"Installing what {op.addon} needs first: {', '.join(pending)}")
        version = dependencies.wanted_version(
            op.addon, op.version, eks.addon_versions(op.addon, kubernetes), kubernetes
        )
        cluster_arn = None
        if self.policy is not None or self.configuration is not None:
            found = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
            cluster_arn = (found or {}).get("ClusterArn")
        arn = self._role(doc, tags, cluster_arn)
        values = self.configuration(arn, cluster_arn) if self.configuration is not None else None
        if values is not None:
            problems = addons.configuration_problems(eks.addon_configuration_schema(op.addon, version), values)
            if problems:
                raise PermanentError(
                    f"{op.addon} {version} would refuse Launchpod's configuration values: {'; '.join(problems)}."
                )
        identity = (op.serviceAccount, arn) if self.trust is None else None
        eks.create_addon(doc.target, op.addon, tags, version, identity, values)
        note = (
            ""
            if version == op.version
            else f" (EKS's default: {op.version} is not offered for Kubernetes {kubernetes})"
        )
        return self._wait(doc, f"Installing {op.addon} {version}{note}")

    def _enable(self, doc: WorkflowInput, tags: dict[str, str]) -> PhaseResult:
        op = self.entry()
        found = wiring.eks().addons(doc.target).get(op.addon)
        if found is None:
            return self._create(doc, tags)
        if addons.broken(found):
            raise PermanentError(f"{addons.problem(op.addon, found)}. Fix the cause shown, then retry.")
        if found.get("status") == "ACTIVE":
            return PhaseResult(outputs={"version": found.get("addonVersion")}, message=f"{op.addon} is ACTIVE.")
        if addons.waits_for_nodes(found):
            return PhaseResult(
                outputs={"version": found.get("addonVersion"), "waitingForNodes": True},
                message=addons.waiting_note(op.addon, found.get("addonVersion")) + ".",
            )
        return self._wait(doc, f"{op.addon} is {found.get('status')}")

    def _disable(self, doc: WorkflowInput, tags: dict[str, str]) -> PhaseResult:
        op = self.entry()
        prefix = settings().resource_prefix
        found = wiring.eks().addons(doc.target).get(op.addon)
        if found is not None:
            if not ownership.owns_aws(found.get("tags") or {}, doc.target, prefix):
                raise PermanentError(f"{op.addon} on {doc.target} was not installed by Launchpod; it is left in place.")
            if found.get("status") != "DELETING":
                wiring.eks().delete_addon(doc.target, op.addon)
            return self._wait(doc, f"Removing {op.addon}")
        removed = wiring.iam().delete_owned_role(
            self.role_name(prefix, doc.target), tags, detach=bool(self.managed_policies())
        )
        return PhaseResult(message=f"{op.addon} removed" + (" with its pod identity role." if removed else "."))

    def run(self, doc: WorkflowInput) -> PhaseResult:
        wanted = getattr(UpdateFeaturesInput.model_validate(doc.request), self.field)
        if wanted is None:
            return PhaseResult(skipped=True, message=f"The request does not change the {self.title}.")
        tags = control_plane.tags(doc.target, settings().resource_prefix)
        return self._enable(doc, tags) if wanted.enabled else self._disable(doc, tags)
