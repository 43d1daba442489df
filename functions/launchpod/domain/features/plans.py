"""Managed features as reconciled state: what each feature is on the real cluster (``views``), and the plan
that brings it to what a PATCH asks (``plan``, ``workflow``), in the configure-features workflow's phases."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from launchpod.contracts.features import FeatureObjectView, FeatureView, UpdateFeaturesInput
from launchpod.domain import addons as addon_health
from launchpod.domain import hyperpod_observability, observability, ownership
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.clusters.hyperpod_cluster import AutoScaling, HyperPodCluster
from launchpod.domain.errors import Conflict
from launchpod.domain.features.identities import (
    ROLE_ANNOTATION,
    checkpoint_prefix,
    checkpoint_role_name,
    checkpointing,
    inference_operator,
    inference_role_name,
    operator_role_name,
    task_governance,
    training_operator,
)
from launchpod.domain.metrics.workspaces import GrafanaWorkspace
from launchpod.domain.operations import WorkflowPlan, role_for
from launchpod.domain.plan import Plan, Step

KIND = "configure-features"
PHASES: tuple[tuple[str, str], ...] = (
    ("CertManager", "cert-manager, which the training and inference operators need, to ACTIVE"),
    ("TrainingOperator", "The training operator add-on with its pod identity role, installed or removed"),
    ("CheckpointIdentity", "Checkpoint service account, IAM role and policy on the checkpoint prefix, or removed"),
    ("TieredStorage", "UpdateCluster TieredStorageConfig, then InService"),
    ("TaskGovernance", "The task governance add-on (Kueue), installed or removed"),
    ("InferenceOperator", "The inference operator add-on with its pod identity role, installed or removed"),
    (
        "Observability",
        "The CloudWatch Observability add-on (Container Insights) with its pod identity role, or removed",
    ),
    (
        "HyperPodObservability",
        "The HyperPod observability add-on with its Amazon Managed Prometheus workspace and role, or removed",
    ),
)
MAX_POLLS = 80
POLL_SECONDS = 15
CERT_MANAGER = "cert-manager"
FSX_CSI = "aws-fsx-csi-driver"  # optional for reconcile-dependencies; the inference operator needs it


def inference_enabled(addons: dict[str, EksAddon]) -> bool:
    """The inference operator add-on is installed and not being removed."""
    return addon_health.in_use(addons.get(inference_operator().addon))


@dataclass
class RealState:
    """What the API read from AWS and Kubernetes for one cluster."""

    cluster: str
    addons: dict[str, EksAddon]
    hyperpod: HyperPodCluster | None
    checkpoint_account: dict[str, Any] | None  # the ServiceAccount, if any
    checkpoint_role: str | None  # the role's ARN when Launchpod's role exists
    prefix: str = "launchpod"
    bucket: str = "the shared bucket"
    grafana: GrafanaWorkspace | None = None  # the Amazon Managed Grafana workspace Launchpod made, if any

    @property
    def tiered_mode(self) -> str | None:
        """TieredStorageConfig's Mode: Enable or Disable, None when unset or without a HyperPod cluster."""
        return self.hyperpod.tiered_storage_mode if self.hyperpod else None

    @property
    def tiered_percentage(self) -> int | None:
        """The share of instance memory tiered storage takes (InstanceMemoryAllocationPercentage)."""
        return self.hyperpod.tiered_storage_memory_percentage if self.hyperpod else None

    @property
    def tiered_on(self) -> bool:
        return self.tiered_mode == "Enable"

    @property
    def chain_parts(self) -> bool:
        """Any part of the identity chain Launchpod made is there."""
        return self.checkpoint_role is not None or ownership.owns_k8s(self.checkpoint_account)


def _addon_state(addon: EksAddon | None) -> str:
    return str(addon.status) if addon else "NOT_INSTALLED"


def views(real: RealState) -> list[FeatureView]:
    op = training_operator()
    addon = real.addons.get(op.addon)
    cert = real.addons.get(CERT_MANAGER)
    waits = (
        None if real.hyperpod else "No HyperPod cluster yet: the operator installs, and its controller waits for nodes."
    )
    objects = [FeatureObjectView(kind="EKS add-on", name=op.addon, state=_addon_state(addon))]
    objects += addon_health.pod_identity_objects(addon)
    objects.append(FeatureObjectView(kind="EKS add-on", name=CERT_MANAGER, state=_addon_state(cert)))
    note = addon_health.health_note(op.addon, addon) or waits
    trainer = FeatureView(
        name="trainingOperator",
        title="HyperPod training operator",
        **addon_health.feature_facts(addon),
        objects=objects,
        dependsOn=list(op.requires),
        note=note,
    )
    c = checkpointing()
    hp_status = (real.hyperpod.status or None) if real.hyperpod else None
    tiered_blocked = [] if real.hyperpod else ["no HyperPod cluster: tiered checkpointing is a HyperPod setting"]
    annotation = ((real.checkpoint_account or {}).get("metadata", {}).get("annotations") or {}).get(ROLE_ANNOTATION)
    settings: dict[str, int | str] = {"checkpointPrefix": checkpoint_prefix(real.cluster)}
    if real.tiered_percentage is not None:
        settings["memoryPercentage"] = real.tiered_percentage
    tiered = FeatureView(
        name="tieredCheckpointing",
        title="Managed tiered checkpointing",
        enabled=real.tiered_on,
        status=("ENABLED" if real.tiered_on else "DISABLED") if hp_status in (None, "InService") else str(hp_status),
        settings=settings,
        objects=[
            FeatureObjectView(kind="HyperPod TieredStorageConfig", name="Mode", state=real.tiered_mode),
            FeatureObjectView(
                kind="ServiceAccount",
                name=f"{c.namespace}/{c.serviceAccount}",
                state="annotated" if annotation else ("present" if real.checkpoint_account else "absent"),
            ),
            FeatureObjectView(
                kind="IAM role",
                name=checkpoint_role_name(real.prefix, real.cluster),
                state="present" if real.checkpoint_role else "absent",
            ),
        ],
        dependsOn=["HyperPod cluster InService", "the cluster's IAM OIDC provider"],
        blockedBy=tiered_blocked,
    )
    return [
        trainer,
        tiered,
        _governance_view(real),
        _autoscaling_view(real),
        _inference_view(real),
        observability.view(real.addons, real.cluster),
        hyperpod_observability.view(real.addons, real.cluster, real.prefix, real.grafana),
    ]


def _inference_view(real: RealState) -> FeatureView:
    op = inference_operator()
    addon = real.addons.get(op.addon)
    objects = [FeatureObjectView(kind="EKS add-on", name=op.addon, state=_addon_state(addon))]
    objects += addon_health.pod_identity_objects(addon)
    objects += [
        FeatureObjectView(kind="EKS add-on", name=n, state=_addon_state(real.addons.get(n)))
        for n in op.requires
        if n != "eks-pod-identity-agent"
    ]
    note = addon_health.health_note(op.addon, addon)
    return FeatureView(
        name="inferenceOperator",
        title="HyperPod inference operator",
        **addon_health.feature_facts(addon),
        objects=objects,
        dependsOn=list(op.requires),
        blockedBy=_inference_blocked(real) if addon is None else [],
        note=note or "Managed (InferenceEndpointConfig) and JumpStart endpoints need it.",
    )


def _inference_blocked(real: RealState) -> list[str]:
    """Dependencies the plan does not install itself: reconcile-dependencies does."""
    op = inference_operator()
    return [
        f"the add-on {n} is not installed (installing the cluster's dependencies installs it)"
        for n in op.requires
        if n not in (CERT_MANAGER, FSX_CSI, "eks-pod-identity-agent") and n not in real.addons
    ]


def _cert_manager_step(real: RealState, needed_by: str) -> list[Step]:
    cert = real.addons.get(CERT_MANAGER)
    if cert is None:
        reason = f"the {needed_by} needs cert-manager ACTIVE and it is not installed"
        return [Step("install", f"EKS add-on {CERT_MANAGER}", reason, "CertManager")]
    if addon_health.broken(cert):
        raise Conflict(
            f"The {needed_by} needs cert-manager, which is {addon_health.problem(CERT_MANAGER, cert)}; "
            "install the cluster's dependencies again to fix it, and send the request again."
        )
    return []


def _inference_steps(real: RealState, enabled: bool, with_cert_manager: bool) -> list[Step]:
    op = inference_operator()
    role = inference_role_name(real.prefix, real.cluster)

    def install() -> list[Step]:
        blocked = _inference_blocked(real)
        if blocked:
            raise Conflict(
                f"The inference operator cannot be installed on {real.cluster}: {'; '.join(blocked)}.",
                details=[
                    {"field": "body.inferenceOperator", "rule": "needs_dependency", "message": b} for b in blocked
                ],
            )
        steps = _cert_manager_step(real, "inference operator") if with_cert_manager else []
        if FSX_CSI not in real.addons:
            reason = "the inference add-on fails to create without the FSx CSI driver (its CSIDriver fsx.csi.aws.com)"
            steps.append(Step("install", f"EKS add-on {FSX_CSI}", reason, "InferenceOperator"))
        return [
            *steps,
            Step(
                "create",
                f"IAM role {role}",
                "the operator's execution role, assumed through the cluster's OIDC provider (IRSA): TLS "
                "certificates in the shared bucket, images, sagemaker:UpdateClusterInference",
                "InferenceOperator",
            ),
            Step(
                "create",
                f"EKS add-on {op.addon} {op.version}",
                "inferenceOperator.enabled is true and the add-on is not installed; configuration values "
                "executionRoleArn, tlsCertificateS3Bucket, hyperpodClusterArn",
                "InferenceOperator",
            ),
        ]

    feature = ownership.AddonFeature(op.addon, "inferenceOperator", "InferenceOperator", role, "the operator's")
    return feature.steps(real.addons, real.cluster, real.prefix, enabled, install)


def _autoscaling_view(real: RealState) -> FeatureView:
    """HyperPod-managed Karpenter, read back from DescribeCluster AutoScaling {Mode, AutoScalerType,
    Status, FailureMessage}; the instance-groups routes turn it on or off."""
    auto = (real.hyperpod.autoscaling if real.hyperpod else None) or AutoScaling()
    on = auto.mode == "Enable"
    status = str(auto.status or ("ENABLED" if on else "DISABLED"))
    return FeatureView(
        name="autoscaling",
        title="HyperPod autoscaling (Karpenter)",
        enabled=on,
        status="Failed" if auto.failure_message else status,
        settings={"autoScalerType": auto.autoscaler_type} if auto.autoscaler_type else {},
        objects=[FeatureObjectView(kind="HyperPod AutoScaling", name="Mode", state=auto.mode)],
        dependsOn=["HyperPod cluster", "a cluster role that may BatchAddClusterNodes and BatchDeleteClusterNodes"],
        blockedBy=[] if real.hyperpod else ["no HyperPod cluster"],
        note=auto.failure_message,
        changedWith="Autoscaling, in the cluster's instance groups",
    )


def _governance_view(real: RealState) -> FeatureView:
    tg = task_governance()
    addon = real.addons.get(tg.addon)
    note = addon_health.health_note(tg.addon, addon)
    return FeatureView(
        name="taskGovernance",
        title="HyperPod task governance",
        **addon_health.feature_facts(addon),
        objects=[FeatureObjectView(kind="EKS add-on", name=tg.addon, state=_addon_state(addon))],
        dependsOn=["HyperPod cluster"],
        blockedBy=[] if real.hyperpod else ["no HyperPod cluster: task governance schedules HyperPod's compute"],
        note=note or "Once it is on, set its scheduling policy and the teams with their quotas.",
    )


def _governance_steps(real: RealState, enabled: bool) -> list[Step]:
    tg = task_governance()

    def install() -> list[Step]:
        if real.hyperpod is None:
            raise Conflict(
                f"{real.cluster} has no HyperPod cluster; task governance schedules HyperPod's compute. Create one"
                " first.",
                details=[{"field": "body.taskGovernance", "rule": "needs_hyperpod", "message": "no HyperPod cluster"}],
            )
        reason = "taskGovernance.enabled is true and the add-on is not installed"
        return [Step("create", f"EKS add-on {tg.addon} {tg.version}", reason, "TaskGovernance")]

    feature = ownership.AddonFeature(tg.addon, "taskGovernance", "TaskGovernance")
    return feature.steps(real.addons, real.cluster, real.prefix, enabled, install)


def _operator_steps(real: RealState, enabled: bool) -> list[Step]:
    op = training_operator()
    role = operator_role_name(real.prefix, real.cluster)

    def install() -> list[Step]:
        return [
            *_cert_manager_step(real, "training operator"),
            *_operator_install(op, "trainingOperator", "TrainingOperator", role, "it reads its cluster's nodes"),
        ]

    feature = ownership.AddonFeature(op.addon, "trainingOperator", "TrainingOperator", role, "the operator's")
    return feature.steps(real.addons, real.cluster, real.prefix, enabled, install)


def _operator_install(op: Any, field: str, phase: str, role: str, grants: str) -> list[Step]:
    """An operator add-on's install: its pod identity role, then the add-on."""
    return [
        Step("create", f"IAM role {role}", f"the operator's pod identity: {grants}", phase),
        Step(
            "create",
            f"EKS add-on {op.addon} {op.version}",
            f"{field}.enabled is true and the add-on is not installed; pod identity for "
            f"{op.namespace}/{op.serviceAccount}",
            phase,
        ),
    ]


def _checkpoint_steps(real: RealState, enabled: bool, percentage: int | None) -> list[Step]:
    c = checkpointing()
    account = f"ServiceAccount {c.namespace}/{c.serviceAccount}"
    role = f"IAM role {checkpoint_role_name(real.prefix, real.cluster)}"
    annotated = bool(
        ((real.checkpoint_account or {}).get("metadata", {}).get("annotations") or {}).get(ROLE_ANNOTATION)
    )
    if enabled:
        if real.hyperpod is None:
            raise Conflict(
                f"{real.cluster} has no HyperPod cluster; create one before turning on tiered checkpointing.",
                details=[
                    {"field": "body.tieredCheckpointing", "rule": "needs_hyperpod", "message": "no HyperPod cluster"}
                ],
            )
        steps = []
        if real.checkpoint_role is None:
            steps.append(
                Step(
                    "create",
                    role,
                    f"training pods write checkpoints to s3://{real.bucket}/{checkpoint_prefix(real.cluster)} only, "
                    f"trusted for {c.namespace}/{c.serviceAccount} through the cluster's OIDC provider",
                    "CheckpointIdentity",
                )
            )
        if not annotated:
            steps.append(
                Step(
                    "create", account, f"annotated {ROLE_ANNOTATION} so its pods assume the role", "CheckpointIdentity"
                )
            )
        wanted = percentage if percentage is not None else real.tiered_percentage
        wanted = wanted if wanted is not None else c.defaultMemoryPercentage
        current = real.tiered_percentage
        if not real.tiered_on:
            steps.append(
                Step(
                    "update",
                    "HyperPod TieredStorageConfig",
                    f"Mode is {real.tiered_mode or 'unset'}; the request turns it on with {wanted}% of memory",
                    "TieredStorage",
                )
            )
        elif percentage is not None and current != percentage:
            steps.append(
                Step(
                    "update",
                    "HyperPod TieredStorageConfig",
                    f"InstanceMemoryAllocationPercentage is {current}; the request asks for {percentage}",
                    "TieredStorage",
                )
            )
        return steps
    steps = []
    if real.tiered_on:
        steps.append(
            Step("update", "HyperPod TieredStorageConfig", "Mode is Enable; the request turns it off", "TieredStorage")
        )
    if ownership.owns_k8s(real.checkpoint_account):
        steps.append(Step("delete", account, "created by Launchpod for tiered checkpointing", "CheckpointIdentity"))
    if real.checkpoint_role is not None:
        steps.append(Step("delete", role, "created by Launchpod for tiered checkpointing", "CheckpointIdentity"))
    return steps


def plan(request: UpdateFeaturesInput, real: RealState) -> Plan:
    steps: list[Step] = []
    if request.trainingOperator is not None:
        steps += _operator_steps(real, request.trainingOperator.enabled)
    if request.tieredCheckpointing is not None:
        t = request.tieredCheckpointing
        steps += _checkpoint_steps(real, t.enabled, t.memoryPercentage)
    if request.taskGovernance is not None:
        steps += _governance_steps(real, request.taskGovernance.enabled)
    if request.inferenceOperator is not None:
        cert_planned = any(s.phase == "CertManager" for s in steps)
        steps += _inference_steps(real, request.inferenceOperator.enabled, not cert_planned)
    if request.observability is not None:
        steps += observability.steps(real.addons, real.cluster, real.prefix, request.observability.enabled)
    if request.hyperpodObservability is not None:
        wanted = request.hyperpodObservability
        steps += hyperpod_observability.steps(
            real.addons, real.cluster, real.prefix, wanted.enabled, wanted.grafana_sign_in, real.grafana
        )
    return Plan(request.name, tuple(steps))


def workflow(request: UpdateFeaturesInput, steps: Plan) -> WorkflowPlan:
    return WorkflowPlan(
        kind=KIND,
        target=request.name,
        request=request.model_dump(mode="json", exclude={"dryRun"}, exclude_none=True),
        phases=PHASES,
        role=role_for(KIND),
        steps=steps.views(),
    )
