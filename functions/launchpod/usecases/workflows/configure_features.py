"""The configure-features workflow's phases: managed features toggled as the planner said (cert-manager first,
then the training operator, the checkpoint identity chain and HyperPod's TieredStorageConfig, task governance,
the inference operator, CloudWatch Observability and HyperPod observability)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons, dependencies, features, ownership
from launchpod.domain import hyperpod_observability as hp_observability
from launchpod.domain import observability as container_insights
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.domain.metrics.workspaces import PrometheusWorkspace
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows import grafana_workspace
from launchpod.usecases.workflows.phase import PhaseResult
from launchpod.usecases.workflows.reconcile_dependencies import pod_identity_role

CERT_MANAGER = "CertManager"
TIERED_STORAGE = "TieredStorage"
TASK_GOVERNANCE = "TaskGovernance"


def _oidc_provider(cluster: str) -> tuple[str | None, str | None]:
    """The EKS cluster's OIDC issuer and the IAM OIDC provider made for it (None where either is missing): what
    an IRSA role's trust names."""
    found = wiring.eks().cluster(cluster)
    issuer = found.oidc_issuer if found else None
    return issuer, wiring.iam().oidc_provider_arn(issuer) if issuer else None


@dataclass(frozen=True)
class OperatorAddon:
    """A HyperPod operator add-on with its IAM role (the pod identity of its controller's service account, or an
    execution role it assumes through IRSA), created at the version EKS offers for the cluster's Kubernetes
    version (the pin, else EKS's default) and awaited until ACTIVE (or only waiting for nodes); its
    configuration values checked against DescribeAddonConfiguration's schema first, and the dependency add-ons
    it fails without installed before it. Turned off, the add-on Launchpod installed is deleted (EKS removes its
    pod identity association) and its role after it. The training and inference operators' and the
    observability add-on's phases are this, each with its own entry, role, policies and values."""

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
                pending.append(f"{name} ({found.status})")
        return pending

    def _role(self, doc: WorkflowInput, tags: dict[str, str], cluster_arn: str | None) -> str:
        name = self.role_name(settings().resource_prefix, doc.target)
        iam = wiring.iam()
        description = f"The {self.title} add-on on {doc.target}, created by Launchpod"
        if self.trust is None:
            arn = iam.ensure_role(name, "pods.eks.amazonaws.com", self.managed_policies(), tags, description)
        else:
            issuer, provider = _oidc_provider(doc.target)
            if provider is None or not issuer:
                raise PermanentError(
                    f"{doc.target} has no IAM OIDC provider for its issuer, which the {self.title}'s execution "
                    "role trusts; run the cluster's EKS control plane provisioning phase again, then retry."
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
        described = eks.cluster(doc.target)
        kubernetes = str((described.version if described else None) or "")
        pending = self._prerequisites_pending(doc, tags, kubernetes)
        if pending:
            return self._wait(doc, f"Installing what {op.addon} needs first: {', '.join(pending)}")
        version = dependencies.wanted_version(
            op.addon, op.version, eks.addon_versions(op.addon, kubernetes), kubernetes
        )
        cluster_arn = None
        if self.policy is not None or self.configuration is not None:
            found = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
            cluster_arn = found.arn if found is not None else None
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
        if found.status == "ACTIVE":
            return PhaseResult(outputs={"version": found.version}, message=f"{op.addon} is ACTIVE.")
        if addons.waits_for_nodes(found):
            return PhaseResult(
                outputs={"version": found.version, "waitingForNodes": True},
                message=addons.waiting_note(op.addon, found.version) + ".",
            )
        return self._wait(doc, f"{op.addon} is {found.status}")

    def _disable(self, doc: WorkflowInput, tags: dict[str, str]) -> PhaseResult:
        op = self.entry()
        prefix = settings().resource_prefix
        found = wiring.eks().addons(doc.target).get(op.addon)
        if found is not None:
            if not ownership.owns_aws(found.tags, doc.target, prefix):
                raise PermanentError(f"{op.addon} on {doc.target} was not installed by Launchpod; it is left in place.")
            if found.status != "DELETING":
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


def cert_manager(doc: WorkflowInput) -> PhaseResult:
    """CertManager: the training and inference operators need cert-manager ACTIVE ("Installing the training
    operator" and "Setting up your HyperPod clusters for model deployment", AWS SageMaker developer guide);
    installed at its pinned version when missing, then awaited. Skipped when the request turns neither on."""
    request = UpdateFeaturesInput.model_validate(doc.request)
    wants = [r for r in (request.trainingOperator, request.inferenceOperator) if r is not None and r.enabled]
    if not wants:
        return PhaseResult(
            skipped=True, message="The request turns neither the training nor the inference operator on."
        )
    eks = wiring.eks()
    found = eks.addons(doc.target).get(features.CERT_MANAGER)
    if found is None:
        pinned = next(a for a in dependencies.manifest().addons if a.name == features.CERT_MANAGER)
        version = dependencies.version_for_cluster(eks, doc.target, features.CERT_MANAGER, pinned.version)
        tags = control_plane.tags(doc.target, settings().resource_prefix)
        eks.create_addon(doc.target, features.CERT_MANAGER, tags, version)
        return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=f"Installing cert-manager {version}")
    if addons.broken(found):
        raise PermanentError(f"{addons.problem(features.CERT_MANAGER, found)}; the training operator needs it ACTIVE.")
    if found.status == "ACTIVE":
        return PhaseResult(outputs={"version": found.version}, message="cert-manager is ACTIVE.")
    if addons.waits_for_nodes(found):
        return PhaseResult(
            outputs={"version": found.version, "waitingForNodes": True},
            message=addons.waiting_note(features.CERT_MANAGER, found.version) + ".",
        )
    if doc.poll.get(CERT_MANAGER, 0) >= features.MAX_POLLS:
        raise PermanentError("cert-manager did not become ACTIVE in 20 minutes; retry.")
    return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=f"cert-manager is {found.status}")


TRAINING_OPERATOR = OperatorAddon(
    phase="TrainingOperator",
    title="training operator",
    field="trainingOperator",
    entry=features.training_operator,
    role_name=features.operator_role_name,
    policy_name="launchpod-training-operator",
    policy=features.operator_policy,
)


def training_operator(doc: WorkflowInput) -> PhaseResult:
    """TrainingOperator: the HyperPod training operator add-on with its pod identity (``OperatorAddon``)."""
    return TRAINING_OPERATOR.run(doc)


def _enable_checkpoints(doc: WorkflowInput, tags: dict[str, str]) -> PhaseResult:
    s, k8s = settings(), wiring.kube()
    issuer, provider = _oidc_provider(doc.target)
    if provider is None or not issuer:
        raise PermanentError(
            f"{doc.target} has no IAM OIDC provider for its issuer, which the checkpoint role's trust needs; run "
            "the cluster's EKS control plane provisioning phase again, then retry."
        )
    name = features.checkpoint_role_name(s.resource_prefix, doc.target)
    iam = wiring.iam()
    arn = iam.owned_role(name, tags) or iam.ensure_role_trusting(
        name,
        features.checkpoint_trust(provider, issuer.removeprefix("https://")),
        tags,
        f"Tiered checkpointing pods of {doc.target}, created by Launchpod",
    )
    iam.put_inline_policy(name, "launchpod-checkpoints", features.checkpoint_policy(s.bucket, doc.target))
    account = features.service_account(doc.target, arn)
    k8s.apply(doc.target, account)
    meta = account["metadata"]
    where = f"s3://{s.bucket}/{features.checkpoint_prefix(doc.target)}"
    return PhaseResult(
        outputs={"roleArn": arn, "serviceAccount": f"{meta['namespace']}/{meta['name']}", "prefix": where},
        message=f"ServiceAccount {meta['namespace']}/{meta['name']} assumes {name}, which reaches {where} only.",
    )


def _disable_checkpoints(doc: WorkflowInput, tags: dict[str, str]) -> PhaseResult:
    gone, k8s = [], wiring.kube()
    # The feature's account and the copies jobs got in their own namespaces.
    for account in k8s.list_labelled(doc.target, "v1", "ServiceAccount", features.CHECKPOINT_LABEL):
        if ownership.owns_k8s(account) and k8s.delete(doc.target, account):
            gone.append(f"ServiceAccount {account['metadata']['namespace']}/{account['metadata']['name']}")
    name = features.checkpoint_role_name(settings().resource_prefix, doc.target)
    if wiring.iam().delete_owned_role(name, tags):
        gone.append(f"IAM role {name}")
    return PhaseResult(
        outputs={"deleted": gone},
        message=("Deleted " + ", ".join(gone) + ".") if gone else "Nothing Launchpod made was left.",
    )


def checkpoint_identity(doc: WorkflowInput) -> PhaseResult:
    """CheckpointIdentity: the identity chain tiered-checkpointing pods use (IRSA): an IAM role trusted by the
    cluster's OIDC provider for the checkpoint service account only, with a policy on this cluster's checkpoint
    prefix of the shared bucket, and the service account annotated with that role (jobs get a copy of it in
    their namespace when they are submitted). Turned off, the service accounts and role Launchpod created are
    deleted (nothing else)."""
    request = UpdateFeaturesInput.model_validate(doc.request)
    if request.tieredCheckpointing is None:
        return PhaseResult(skipped=True, message="The request does not change tiered checkpointing.")
    tags = control_plane.tags(doc.target, settings().resource_prefix)
    return _enable_checkpoints(doc, tags) if request.tieredCheckpointing.enabled else _disable_checkpoints(doc, tags)


def tiered_storage(doc: WorkflowInput) -> PhaseResult:
    """TieredStorage: HyperPod's TieredStorageConfig set with UpdateCluster (Mode Enable with the memory share,
    or Disable), then awaited until the cluster is InService again."""
    request = UpdateFeaturesInput.model_validate(doc.request)
    wanted = request.tieredCheckpointing
    if wanted is None:
        return PhaseResult(skipped=True, message="The request does not change tiered checkpointing.")
    name = hyperpod.hyperpod_name(doc.target)
    cluster = wiring.sagemaker().hyperpod_cluster(name)
    if cluster is None:
        raise PermanentError(f"{doc.target} has no HyperPod cluster; tiered checkpointing is a HyperPod setting.")
    mode = "Enable" if wanted.enabled else "Disable"
    current = cluster.tiered_storage_memory_percentage
    percentage = None
    if wanted.enabled:
        percentage = wanted.memoryPercentage or current or features.checkpointing().defaultMemoryPercentage
    matches = (cluster.tiered_storage_mode or "Disable") == mode and (percentage is None or current == percentage)
    status = cluster.status
    if matches and status == "InService":
        share = f" with {percentage}% of each node's memory" if percentage else ""
        return PhaseResult(
            outputs={"mode": mode, "memoryPercentage": percentage}, message=f"TieredStorageConfig {mode}{share}."
        )
    if status in ("Failed", "Deleting", "RollingBack"):
        raise PermanentError(f"The HyperPod cluster {doc.target} is {status}; tiered checkpointing cannot change now.")
    if doc.poll.get(TIERED_STORAGE, 0) >= features.MAX_POLLS:
        raise PermanentError(f"The HyperPod cluster {doc.target} is still {status} after 20 minutes; retry.")
    if not matches and status == "InService":
        wiring.sagemaker().update_tiered_storage(name, mode, percentage)
        return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=f"UpdateCluster TieredStorageConfig {mode}")
    return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=f"HyperPod is {status}")


def _task_governance_wait(doc: WorkflowInput, message: str) -> PhaseResult:
    if doc.poll.get(TASK_GOVERNANCE, 0) >= features.MAX_POLLS:
        raise PermanentError(f"The task governance add-on did not settle in 20 minutes ({message}); retry.")
    return PhaseResult(ready=False, wait=features.POLL_SECONDS, message=message)


def task_governance(doc: WorkflowInput) -> PhaseResult:
    """TaskGovernance: the HyperPod task governance add-on (it runs Kueue) created and awaited until ACTIVE
    (or only waiting for nodes); or, when turned off, the add-on Launchpod installed deleted and awaited gone."""
    request = UpdateFeaturesInput.model_validate(doc.request)
    if request.taskGovernance is None:
        return PhaseResult(skipped=True, message="The request does not change task governance.")
    tg, prefix = features.task_governance(), settings().resource_prefix
    found = wiring.eks().addons(doc.target).get(tg.addon)
    if request.taskGovernance.enabled:
        if found is None:
            eks = wiring.eks()
            version = dependencies.version_for_cluster(eks, doc.target, tg.addon, tg.version)
            eks.create_addon(doc.target, tg.addon, control_plane.tags(doc.target, prefix), version)
            return _task_governance_wait(doc, f"Installing {tg.addon} {version}")
        if addons.broken(found):
            raise PermanentError(f"{addons.problem(tg.addon, found)}. Fix the cause shown, then retry.")
        if addons.settled(found):
            note = addons.waiting_note(tg.addon, found.version) if addons.waits_for_nodes(found) else None
            return PhaseResult(outputs={"version": found.version}, message=(note or f"{tg.addon} is ACTIVE") + ".")
        return _task_governance_wait(doc, f"{tg.addon} is {found.status}")
    if found is None:
        return PhaseResult(message=f"{tg.addon} removed.")
    if not ownership.owns_aws(found.tags, doc.target, prefix):
        raise PermanentError(f"{tg.addon} on {doc.target} was not installed by Launchpod; it is left in place.")
    if found.status != "DELETING":
        wiring.eks().delete_addon(doc.target, tg.addon)
    return _task_governance_wait(doc, f"Removing {tg.addon}")


INFERENCE_OPERATOR = OperatorAddon(
    phase="InferenceOperator",
    title="inference operator",
    field="inferenceOperator",
    entry=features.inference_operator,
    role_name=features.inference_role_name,
    policy_name="launchpod-inference-operator",
    policy=lambda cluster_arn: features.inference_policy(cluster_arn, settings().bucket),
    trust=features.inference_trust,
    configuration=lambda role_arn, cluster_arn: features.inference_configuration(
        role_arn, settings().bucket, cluster_arn
    ),
    prerequisites=("aws-mountpoint-s3-csi-driver", features.FSX_CSI),
)


def inference_operator(doc: WorkflowInput) -> PhaseResult:
    """InferenceOperator: the HyperPod inference operator add-on (``OperatorAddon``) with the configuration values AWS
    requires (executionRoleArn, tlsCertificateS3Bucket) and its execution role, assumed through IRSA: TLS
    certificates and models in the shared bucket, the serving images, sagemaker:UpdateClusterInference. The
    add-on fails to create without cert-manager (the CertManager phase) and the Mountpoint for S3 and FSx CSI
    drivers: the FSx CSI driver, optional for reconcile-dependencies, is installed here first."""
    return INFERENCE_OPERATOR.run(doc)


OBSERVABILITY = OperatorAddon(
    phase=container_insights.PHASE,
    title="CloudWatch Observability",
    field=container_insights.FIELD,
    entry=container_insights.entry,
    role_name=container_insights.role_name,
    policy_name=None,
    policy=None,
    managed_policies=container_insights.policy_arns,
)


def observability(doc: WorkflowInput) -> PhaseResult:
    """Observability: the Amazon CloudWatch Observability add-on (Container Insights) with its pod identity
    (``OperatorAddon``): a role for the ``cloudwatch-agent`` service account carrying the AWS managed policies the
    add-on's guide names. Turned off, the add-on and that role go; the application log group stays (the
    user's data)."""
    return OBSERVABILITY.run(doc)


HYPERPOD_OBSERVABILITY = OperatorAddon(
    phase=hp_observability.PHASE,
    title="HyperPod observability",
    field=hp_observability.FIELD,
    entry=hp_observability.entry,
    role_name=hp_observability.role_name,
    policy_name="launchpod-hyperpod-observability",
    policy=None,  # set per workspace (hyperpod_observability below)
)
WORKSPACE_FAILED = ("CREATION_FAILED", "DELETING")


def _workspace(doc: WorkflowInput) -> PrometheusWorkspace | PhaseResult:
    """The workspace Launchpod made for the cluster (found by its alias and ownership tags), created when there
    is none; a PhaseResult to wait with while it is not ACTIVE yet."""
    prefix = settings().resource_prefix
    alias, tags = hp_observability.workspace_alias(prefix, doc.target), control_plane.tags(doc.target, prefix)
    workspaces = wiring.amp_workspaces()
    found = workspaces.owned(alias, tags) or workspaces.create(alias, tags)
    status = found.status
    if status in WORKSPACE_FAILED:
        raise PermanentError(
            f"The Amazon Managed Prometheus workspace {alias} ({found.id}) is {status}; delete it"
            " (aws amp delete-workspace), then retry."
        )
    if status != "ACTIVE":
        return HYPERPOD_OBSERVABILITY._wait(doc, f"Amazon Managed Prometheus workspace {alias} is {status}")
    return found


def hyperpod_observability(doc: WorkflowInput) -> PhaseResult:
    """HyperPodObservability: the HyperPod observability add-on (``OperatorAddon``) writing into an Amazon Managed
    Prometheus workspace: the one Launchpod made for the cluster before, else a new one, awaited until ACTIVE;
    then the collector's pod identity role (aps:RemoteWrite on that workspace, CloudWatch Logs on HyperPod's
    cluster log groups) and the add-on with the workspace in its configuration values; with
    createGrafanaWorkspace, an Amazon Managed Grafana workspace reading it first (usecases.workflows.
    grafana_workspace). Turned off, the add-on and the role go, and the Grafana workspace Launchpod made; the
    Prometheus workspace stays (its samples are the user's data) for the next time."""
    wanted = UpdateFeaturesInput.model_validate(doc.request).hyperpodObservability
    if wanted is not None and not wanted.enabled:
        grafana_workspace.remove(doc)  # the Grafana workspace Launchpod made for the dashboards, if any
    if wanted is None or not wanted.enabled or hp_observability.entry().addon in wiring.eks().addons(doc.target):
        return HYPERPOD_OBSERVABILITY.run(doc)
    found = _workspace(doc)
    if isinstance(found, PhaseResult):
        return found
    arn, endpoint, grafana = found.arn, str(found.endpoint), wanted.grafanaWorkspaceArn
    if wanted.grafana_sign_in is not None:
        made = grafana_workspace.ensure(
            doc, arn, wanted.grafana_sign_in, lambda message: HYPERPOD_OBSERVABILITY._wait(doc, message)
        )
        if isinstance(made, PhaseResult):
            return made
        grafana = made.arn
    addon = replace(
        HYPERPOD_OBSERVABILITY,
        policy=lambda _cluster_arn: hp_observability.policy(arn),
        configuration=lambda _role_arn, _cluster_arn: hp_observability.configuration(endpoint, arn, grafana),
    )
    return addon.run(doc)
