"""A HyperPod operator add-on with its pod identity (an IAM role for its controller's service account),
created and awaited until ACTIVE (or only waiting for nodes); or, when turned off, the add-on Launchpod
installed deleted (EKS removes its pod identity association) and its role after it. The training and
inference operators' and the observability add-on's phases are this, each with its own entry, role and
policies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons, features, ownership
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


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

    def _wait(self, doc: WorkflowInput, message: str) -> PhaseResult:
        if doc.poll.get(self.phase, 0) >= features.MAX_POLLS:
            raise PermanentError(f"The {self.title} add-on did not settle in 20 minutes ({message}); retry.")
        return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=message)

    def _enable(self, doc: WorkflowInput, tags: dict[str, str]) -> PhaseResult:
        op = self.entry()
        found = wiring.eks().addons(doc.target).get(op.addon)
        if found is None:
            name = self.role_name(settings().resource_prefix, doc.target)
            iam = wiring.iam()
            arn = iam.ensure_role(
                name,
                "pods.eks.amazonaws.com",
                self.managed_policies(),
                tags,
                f"Pod identity of the {self.title} add-on on {doc.target}, created by Launchpod",
            )
            if self.policy is not None and self.policy_name is not None:
                cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
                iam.put_inline_policy(name, self.policy_name, self.policy((cluster or {}).get("ClusterArn")))
            wiring.eks().create_addon(doc.target, op.addon, tags, op.version, (op.serviceAccount, arn))
            return self._wait(doc, f"Installing {op.addon} {op.version}")
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
