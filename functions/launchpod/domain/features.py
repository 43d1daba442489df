"""Managed features as reconciled state: what each feature is on the real cluster, and the plan that
brings it to what a PATCH asks (launchpod.domain.plan), in the configure-features workflow's phases.

- Training operator: the EKS add-on with its pod identity (an IAM role for its service account); it
  needs cert-manager, which the plan installs first when it is missing.
- Observability (domain.observability): the CloudWatch Observability add-on with its pod identity role.
- Managed tiered checkpointing: UpdateCluster TieredStorageConfig plus the identity chain training pods
  use: a service account annotated with an IAM role whose trust is the cluster's OIDC provider for that
  service account only, and whose policy reaches only this cluster's checkpoint prefix.
Disabling removes only what Launchpod created (its tags, its managed-by label).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from launchpod.contracts.features import FeatureObjectView, FeatureView, UpdateFeaturesInput
from launchpod.domain import addons as addon_health
from launchpod.domain import observability, ownership
from launchpod.domain.clusters.control_plane import resource_name
from launchpod.domain.dependencies import manifest
from launchpod.domain.errors import Conflict
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
)
MAX_POLLS = 80
POLL_SECONDS = 15
ROLE_ANNOTATION = "eks.amazonaws.com/role-arn"  # IRSA: the role the pod's web identity token assumes
CERT_MANAGER = "cert-manager"
FSX_CSI = "aws-fsx-csi-driver"  # optional for reconcile-dependencies; the inference operator needs it


def training_operator() -> Any:
    return manifest().features.trainingOperator


def inference_operator() -> Any:
    return manifest().features.inferenceOperator


def inference_role_name(prefix: str, cluster: str) -> str:
    return resource_name(prefix, cluster, "inference-operator")


def checkpointing() -> Any:
    return manifest().features.tieredCheckpointing


def task_governance() -> Any:
    return manifest().features.taskGovernance


def operator_role_name(prefix: str, cluster: str) -> str:
    return resource_name(prefix, cluster, "training-operator")


def checkpoint_role_name(prefix: str, cluster: str) -> str:
    return resource_name(prefix, cluster, "checkpoints")


def checkpoint_prefix(cluster: str) -> str:
    return f"{checkpointing().prefix}/{cluster}/"


CHECKPOINT_LABEL = "launchpod.io/feature=tiered-checkpointing"


def service_account(cluster: str, role_arn: str | None, namespace: str | None = None) -> dict[str, Any]:
    """The checkpoint service account (in the feature's namespace, or a job's); with ``role_arn`` annotated
    for IRSA. A job's pods run as it in their own namespace: a pod can only use a service account of its
    namespace (https://kubernetes.io/docs/concepts/security/service-accounts/)."""
    c = checkpointing()
    meta: dict[str, Any] = {
        "name": c.serviceAccount,
        "namespace": namespace or c.namespace,
        "labels": {**ownership.K8S_LABELS, "launchpod.io/feature": "tiered-checkpointing"},
    }
    if role_arn:
        meta["annotations"] = {ROLE_ANNOTATION: role_arn}
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta}


def checkpoint_policy(bucket: str, cluster: str) -> dict[str, Any]:
    """S3 access to this cluster's checkpoint prefix of the shared bucket, and nothing else."""
    prefix = checkpoint_prefix(cluster)
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["s3:ListBucket"],
                "Resource": f"arn:aws:s3:::{bucket}",
                "Condition": {"StringLike": {"s3:prefix": [f"{prefix}*"]}},
            },
            {
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
                "Resource": f"arn:aws:s3:::{bucket}/{prefix}*",
            },
            {
                # "CloudWatch and S3 write permissions for the training pod to read/write checkpoints and
                # push metrics" (https://docs.aws.amazon.com/sagemaker/latest/dg/managed-tier-checkpointing-setup.html);
                # PutMetricData takes no resource (Service Authorization Reference, CloudWatch).
                "Effect": "Allow",
                "Action": ["cloudwatch:PutMetricData"],
                "Resource": "*",
            },
        ],
    }


def irsa_trust(provider_arn: str, condition: dict[str, Any]) -> dict[str, Any]:
    """A role assumed through IRSA: web identity tokens of the cluster's OIDC provider that meet ``condition``
    (https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html)."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Federated": provider_arn},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": condition,
            }
        ],
    }


def checkpoint_trust(provider_arn: str, issuer_host: str) -> dict[str, Any]:
    """IRSA trust: only the checkpoint service accounts' web identity tokens from this cluster's issuer.
    The checkpoint service account in any namespace: jobs run in theirs, and each gets its own copy of the
    account (a pod can use only its namespace's). Making a service account of that name already takes the
    right to create service accounts in the namespace, and the role reaches only this cluster's checkpoint
    prefix."""
    c = checkpointing()
    return irsa_trust(
        provider_arn,
        {
            "StringLike": {f"{issuer_host}:sub": f"system:serviceaccount:*:{c.serviceAccount}"},
            "StringEquals": {f"{issuer_host}:aud": "sts.amazonaws.com"},
        },
    )


def operator_policy(cluster_arn: str | None) -> dict[str, Any]:
    """What AmazonSageMakerHyperPodTrainingOperatorAccess grants the operator: reading its cluster's nodes."""
    return {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["sagemaker:DescribeClusterNode"], "Resource": cluster_arn or "*"}],
    }


def inference_policy(cluster_arn: str | None, bucket: str) -> dict[str, Any]:
    """The inference operator's execution role, narrowed to this cluster and the shared bucket, as AWS's
    pages list it: S3 reads and writes on the TLS certificate bucket (tlsCertificateS3Bucket is the shared
    bucket, which also holds the models an s3 modelSourceType reads) with PutObjectTagging ("SageMaker
    HyperPod Inference release notes" v3.0, sagemaker-hyperpod-inference-release-notes.html), ECR pulls
    with GetAuthorizationToken ("Inference operator fails to start",
    https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-ts-startup.html),
    sagemaker:UpdateClusterInference, the call its watcher makes at start ("IAM trust relationship issue",
    https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-ts-trust.html) with
    DescribeClusterInference, and its nodes. Its KEDA reads the CloudWatch metrics a managed endpoint's
    cloudWatchTrigger names (cloudwatch:GetMetricData has no resource-level permissions: Resource "*").
    The full list in "Setting up your HyperPod clusters for model deployment" also covers SageMaker
    endpoints, ACM and load balancers, which Launchpod's endpoints do not use."""
    cluster = cluster_arn or "*"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": [
                    "sagemaker:DescribeClusterNode",
                    "sagemaker:DescribeClusterInference",
                    "sagemaker:UpdateClusterInference",
                ],
                "Resource": cluster,
            },
            {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": f"arn:aws:s3:::{bucket}"},
            {
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:PutObjectTagging"],
                "Resource": f"arn:aws:s3:::{bucket}/*",
            },
            {"Effect": "Allow", "Action": ["ecr:GetAuthorizationToken"], "Resource": "*"},
            {
                "Effect": "Allow",
                "Action": ["ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:BatchCheckLayerAvailability"],
                "Resource": "*",
            },
            {"Effect": "Allow", "Action": ["cloudwatch:GetMetricData"], "Resource": "*"},
        ],
    }


#: The service account of the KEDA operator the inference add-on installs (KEDA's chart names it keda-operator,
#: kedacore/charts keda/values.yaml serviceAccount.operator.name); in the add-on's namespace (inferred: AWS
#: does not document where the add-on runs KEDA).
KEDA_SERVICE_ACCOUNT = "keda-operator"


def inference_trust(provider_arn: str, issuer_host: str) -> dict[str, Any]:
    """IRSA trust of the inference operator's execution role: only the web identity tokens of its controller's
    service account and of its KEDA operator's (which reads the CloudWatch metrics a managed endpoint scales
    on), from this cluster's issuer. AWS's pages have the operator assume the role through the cluster's OIDC
    provider (sts:AssumeRoleWithWebIdentity, "IAM trust relationship issue",
    sagemaker-hyperpod-model-deployment-ts-trust.html); the page's StringLike is narrowed to StringEquals."""
    op = inference_operator()
    return irsa_trust(
        provider_arn,
        {
            "StringEquals": {
                f"{issuer_host}:sub": [
                    f"system:serviceaccount:{op.namespace}:{op.serviceAccount}",
                    f"system:serviceaccount:{op.namespace}:{KEDA_SERVICE_ACCOUNT}",
                ],
                f"{issuer_host}:aud": "sts.amazonaws.com",
            }
        },
    )


def inference_configuration(role_arn: str, bucket: str, cluster_arn: str | None) -> dict[str, Any]:
    """The add-on's configuration values: the two AWS requires (executionRoleArn, tlsCertificateS3Bucket) and
    the HyperPod cluster's ARN, which the operator otherwise reads from the labels of the node it runs on
    ("Inference operator installation failures through AWS CLI", sagemaker-hyperpod-model-deployment-ts-cli.html)."""
    values: dict[str, Any] = {
        "executionRoleArn": role_arn,
        "tlsCertificateS3Bucket": bucket,
        # KEDA's own IRSA role, as the add-on's examples pass it (keda.auth.aws.irsa): without one its
        # CloudWatch scaler has no credentials and a managed endpoint's cloudWatchTrigger scales nothing.
        # The execution role already reads CloudWatch metrics and trusts KEDA's service account.
        "keda": {"auth": {"aws": {"irsa": {"enabled": True, "roleArn": role_arn}}}},
    }
    if cluster_arn:
        values["hyperpodClusterArn"] = cluster_arn
    return values


def inference_enabled(addons: dict[str, dict[str, Any]]) -> bool:
    """The inference operator add-on is installed and not being removed."""
    found = addons.get(inference_operator().addon)
    return found is not None and found.get("status") not in ("DELETING", "CREATE_FAILED")


@dataclass
class RealState:
    """What the API read from AWS and Kubernetes for one cluster."""

    cluster: str
    addons: dict[str, dict[str, Any]]
    hyperpod: dict[str, Any] | None
    checkpoint_account: dict[str, Any] | None  # the ServiceAccount, if any
    checkpoint_role: str | None  # the role's ARN when Launchpod's role exists
    prefix: str = "launchpod"
    bucket: str = "the shared bucket"

    @property
    def tiered(self) -> dict[str, Any]:
        return dict((self.hyperpod or {}).get("TieredStorageConfig") or {})

    @property
    def tiered_on(self) -> bool:
        return self.tiered.get("Mode") == "Enable"

    @property
    def chain_parts(self) -> bool:
        """Any part of the identity chain Launchpod made is there."""
        return self.checkpoint_role is not None or ownership.owns_k8s(self.checkpoint_account)


def _addon_state(addon: dict[str, Any] | None) -> str:
    return str(addon.get("status")) if addon else "NOT_INSTALLED"


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
        enabled=addon is not None and addon.get("status") != "DELETING",
        status="DISABLED" if addon is None else _addon_state(addon),
        version=(addon or {}).get("addonVersion"),
        objects=objects,
        dependsOn=list(op.requires),
        note=note,
    )
    c = checkpointing()
    hp_status = (real.hyperpod or {}).get("ClusterStatus")
    tiered_blocked = [] if real.hyperpod else ["no HyperPod cluster: tiered checkpointing is a HyperPod setting"]
    annotation = ((real.checkpoint_account or {}).get("metadata", {}).get("annotations") or {}).get(ROLE_ANNOTATION)
    settings: dict[str, int | str] = {"checkpointPrefix": checkpoint_prefix(real.cluster)}
    if real.tiered.get("InstanceMemoryAllocationPercentage") is not None:
        settings["memoryPercentage"] = int(real.tiered["InstanceMemoryAllocationPercentage"])
    tiered = FeatureView(
        name="tieredCheckpointing",
        title="Managed tiered checkpointing",
        enabled=real.tiered_on,
        status=("ENABLED" if real.tiered_on else "DISABLED") if hp_status in (None, "InService") else str(hp_status),
        settings=settings,
        objects=[
            FeatureObjectView(kind="HyperPod TieredStorageConfig", name="Mode", state=real.tiered.get("Mode")),
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
        enabled=addon is not None and addon.get("status") != "DELETING",
        status="DISABLED" if addon is None else _addon_state(addon),
        version=(addon or {}).get("addonVersion"),
        objects=objects,
        dependsOn=list(op.requires),
        blockedBy=_inference_blocked(real) if addon is None else [],
        note=note or "Managed (InferenceEndpointConfig) and JumpStart endpoints need it.",
    )


def _inference_blocked(real: RealState) -> list[str]:
    """Dependencies the plan does not install itself: reconcile-dependencies does."""
    op = inference_operator()
    return [
        f"the add-on {n} is not installed (POST /api/clusters/{real.cluster}/dependencies installs it)"
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
            f"fix it (POST /api/clusters/{real.cluster}/dependencies) and send the request again."
        )
    return []


def _inference_steps(real: RealState, enabled: bool, with_cert_manager: bool) -> list[Step]:
    op = inference_operator()
    addon = real.addons.get(op.addon)
    role = inference_role_name(real.prefix, real.cluster)
    if enabled:
        if addon is not None and addon.get("status") != "DELETING":
            return []
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
    return _operator_removal(real, op, addon, "inferenceOperator", "InferenceOperator", role)


def _autoscaling_view(real: RealState) -> FeatureView:
    """HyperPod-managed Karpenter, read back from DescribeCluster AutoScaling {Mode, AutoScalerType,
    Status, FailureMessage}; the instance-groups routes turn it on or off."""
    auto = dict((real.hyperpod or {}).get("AutoScaling") or {})
    on = auto.get("Mode") == "Enable"
    status = str(auto.get("Status") or ("ENABLED" if on else "DISABLED"))
    return FeatureView(
        name="autoscaling",
        title="HyperPod autoscaling (Karpenter)",
        enabled=on,
        status="Failed" if auto.get("FailureMessage") else status,
        settings={"autoScalerType": str(auto["AutoScalerType"])} if auto.get("AutoScalerType") else {},
        objects=[FeatureObjectView(kind="HyperPod AutoScaling", name="Mode", state=auto.get("Mode"))],
        dependsOn=["HyperPod cluster", "a cluster role that may BatchAddClusterNodes and BatchDeleteClusterNodes"],
        blockedBy=[] if real.hyperpod else ["no HyperPod cluster"],
        note=auto.get("FailureMessage"),
        changedWith="the instance-groups routes (UpdateCluster AutoScaling)",
    )


def _governance_view(real: RealState) -> FeatureView:
    tg = task_governance()
    addon = real.addons.get(tg.addon)
    note = addon_health.health_note(tg.addon, addon)
    return FeatureView(
        name="taskGovernance",
        title="HyperPod task governance",
        enabled=addon is not None and addon.get("status") != "DELETING",
        status="DISABLED" if addon is None else _addon_state(addon),
        version=(addon or {}).get("addonVersion"),
        objects=[FeatureObjectView(kind="EKS add-on", name=tg.addon, state=_addon_state(addon))],
        dependsOn=["HyperPod cluster"],
        blockedBy=[] if real.hyperpod else ["no HyperPod cluster: task governance schedules HyperPod's compute"],
        note=note
        or f"Policy and teams: GET /api/clusters/{real.cluster}/task-governance/policy and /api/clusters/"
        f"{real.cluster}/teams.",
    )


def _governance_steps(real: RealState, enabled: bool) -> list[Step]:
    tg = task_governance()
    addon = real.addons.get(tg.addon)
    if enabled:
        if addon is not None and addon.get("status") != "DELETING":
            return []
        if real.hyperpod is None:
            raise Conflict(
                f"{real.cluster} has no HyperPod cluster; task governance schedules HyperPod's compute. Create it "
                f"(POST /api/clusters/{real.cluster}/hyperpod) first.",
                details=[{"field": "body.taskGovernance", "rule": "needs_hyperpod", "message": "no HyperPod cluster"}],
            )
        reason = "taskGovernance.enabled is true and the add-on is not installed"
        return [Step("create", f"EKS add-on {tg.addon} {tg.version}", reason, "TaskGovernance")]
    if addon is None:
        return []
    if not ownership.owns_aws(addon.get("tags") or {}, real.cluster, real.prefix):
        raise Conflict(
            f"The add-on {tg.addon} on {real.cluster} was not installed by Launchpod; remove it where it was"
            " installed (Launchpod removes only what it created).",
            details=[{"field": "body.taskGovernance.enabled", "rule": "owned_by_launchpod", "message": tg.addon}],
        )
    return [
        Step(
            "delete", f"EKS add-on {tg.addon}", "taskGovernance.enabled is false and it is installed", "TaskGovernance"
        )
    ]


def _operator_steps(real: RealState, enabled: bool) -> list[Step]:
    op = training_operator()
    addon = real.addons.get(op.addon)
    role = operator_role_name(real.prefix, real.cluster)
    if enabled:
        if addon is not None and addon.get("status") != "DELETING":
            return []
        steps = _cert_manager_step(real, "training operator")
        return [
            *steps,
            *_operator_install(op, "trainingOperator", "TrainingOperator", role, "it reads its cluster's nodes"),
        ]
    return _operator_removal(real, op, addon, "trainingOperator", "TrainingOperator", role)


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


def _operator_removal(
    real: RealState, op: Any, addon: dict[str, Any] | None, field: str, phase: str, role: str
) -> list[Step]:
    """An operator add-on's removal, only when Launchpod installed it: the add-on, then its role."""
    if addon is None:
        return []
    if not ownership.owns_aws(addon.get("tags") or {}, real.cluster, real.prefix):
        raise Conflict(
            f"The add-on {op.addon} on {real.cluster} was not installed by Launchpod; remove it where it was"
            " installed (Launchpod removes only what it created).",
            details=[{"field": f"body.{field}.enabled", "rule": "owned_by_launchpod", "message": op.addon}],
        )
    return [
        Step("delete", f"EKS add-on {op.addon}", f"{field}.enabled is false and it is installed", phase),
        Step("delete", f"IAM role {role}", "the operator's pod identity role, created by Launchpod", phase),
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
                f"{real.cluster} has no HyperPod cluster; create it (POST /api/clusters/{real.cluster}/hyperpod) before"
                " turning on tiered checkpointing.",
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
        wanted = percentage if percentage is not None else real.tiered.get("InstanceMemoryAllocationPercentage")
        wanted = wanted if wanted is not None else c.defaultMemoryPercentage
        current = real.tiered.get("InstanceMemoryAllocationPercentage")
        if not real.tiered_on:
            steps.append(
                Step(
                    "update",
                    "HyperPod TieredStorageConfig",
                    f"Mode is {real.tiered.get('Mode') or 'unset'}; the request turns it on with {wanted}% of memory",
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
