"""Managed features (operators, tiered checkpointing, task governance, observability) and MLflow."""

from __future__ import annotations

from launchpod.registry.specs import (
    CONFIGURED_OPERATOR_ADDON,
    INLINE_POLICY_ROLE,
    OPERATOR_ADDON,
    FunctionSpec,
    StateMachineSpec,
    phase_function,
)

FUNCTIONS: tuple[FunctionSpec, ...] = (
    # ---- configure-features: managed features
    phase_function(
        "cf-cert-manager",
        "CertManager",
        "configure_features.cert_manager",
        "configure-features: cert-manager, which the training and inference operators need, installed and ACTIVE",
        actions=(
            "eks:ListAddons",
            "eks:DescribeAddon",
            "eks:CreateAddon",
            "eks:TagResource",
            "eks:DescribeCluster",
            "eks:DescribeAddonVersions",
        ),
    ),
    phase_function(
        "cf-training-operator",
        "TrainingOperator",
        "configure_features.training_operator",
        "configure-features: the HyperPod training operator add-on with its pod identity role, or removed",
        actions=OPERATOR_ADDON,
    ),
    phase_function(
        "cf-checkpoint-identity",
        "CheckpointIdentity",
        "configure_features.checkpoint_identity",
        "configure-features: checkpoint service account, IRSA role and its policy on the checkpoint prefix, or removed",
        actions=(
            "eks:DescribeCluster",
            "iam:ListOpenIDConnectProviders",
            "iam:GetRole",
            "iam:CreateRole",
            "iam:TagRole",
            "iam:PutRolePolicy",
            "iam:ListRolePolicies",
            "iam:DeleteRolePolicy",
            "iam:DeleteRole",
        ),
        kubernetes=True,
    ),
    phase_function(
        "cf-tiered-storage",
        "TieredStorage",
        "configure_features.tiered_storage",
        "configure-features: UpdateCluster TieredStorageConfig, then InService",
        actions=("sagemaker:DescribeCluster", "sagemaker:UpdateCluster", "eks:DescribeCluster"),
    ),
    phase_function(
        "cf-task-governance",
        "TaskGovernance",
        "configure_features.task_governance",
        "configure-features: the HyperPod task governance add-on, installed or removed",
        actions=(
            "eks:ListAddons",
            "eks:DescribeAddon",
            "eks:CreateAddon",
            "eks:DeleteAddon",
            "eks:TagResource",
            "eks:DescribeCluster",
            "eks:DescribeAddonVersions",
        ),
    ),
    phase_function(
        "cf-inference-operator",
        "InferenceOperator",
        "configure_features.inference_operator",
        "configure-features: the HyperPod inference operator add-on with its configuration values and IRSA "
        "execution role, after the FSx CSI driver it needs (with its pod identity role), or removed",
        actions=(
            *CONFIGURED_OPERATOR_ADDON,
            "iam:ListOpenIDConnectProviders",  # the execution role trusts the cluster's OIDC provider (IRSA)
            "iam:DetachRolePolicy",  # a role left from an earlier install, trusting another issuer, is remade
        ),
    ),
    phase_function(
        "cf-observability",
        "Observability",
        "configure_features.observability",
        "configure-features: the CloudWatch Observability add-on (Container Insights) with its pod identity role"
        " and its AWS managed policies, or removed",
        actions=(
            *(a for a in OPERATOR_ADDON if a != "sagemaker:DescribeCluster"),
            "iam:AttachRolePolicy",
            "iam:DetachRolePolicy",
        ),
    ),
    phase_function(
        "cf-hyperpod-observability",
        "HyperPodObservability",
        "configure_features.hyperpod_observability",
        "configure-features: the HyperPod observability add-on writing to an Amazon Managed Prometheus workspace"
        " (made or reused), with its collector's pod identity role, or removed (the workspace kept)",
        actions=(
            *CONFIGURED_OPERATOR_ADDON,
            "aps:ListWorkspaces",  # the workspace Launchpod made before, by its alias
            "aps:DescribeWorkspace",
            "aps:CreateWorkspace",  # with tags: IAM checks aws:RequestTag on CreateWorkspace itself (no TagResource)
            # the Amazon Managed Grafana workspace Launchpod makes when asked (and its role, passed to Grafana),
            # found by name and tags, deleted when the feature is turned off
            "grafana:ListWorkspaces",
            "grafana:CreateWorkspace",
            "grafana:DeleteWorkspace",
        ),
    ),
    phase_function(
        "mlf-server-role",
        "ServerRole",
        "configure_mlflow.server_role",
        "configure-mlflow: the tracking server's role, reaching only mlflow/ in the shared bucket",
        actions=INLINE_POLICY_ROLE,
    ),
    phase_function(
        "mlf-tracking-server",
        "TrackingServer",
        "configure_mlflow.tracking_server",
        "configure-mlflow: CreateMlflowTrackingServer (or the existing server), recorded on the cluster",
        actions=(
            "sagemaker:CreateMlflowTrackingServer",
            "sagemaker:DescribeMlflowTrackingServer",
            "sagemaker:AddTags",  # tag-on-create of the tracking server
            "iam:PassRole",  # the server's role, passed to sagemaker.amazonaws.com
        ),
    ),
    phase_function(
        "mlf-wait-server",
        "WaitTrackingServer",
        "configure_mlflow.wait_tracking_server",
        "configure-mlflow: polls the tracking server until it is Created",
        actions=("sagemaker:DescribeMlflowTrackingServer",),
    ),
)

STATE_MACHINES: tuple[StateMachineSpec, ...] = (
    # ---- configure-features: managed features
    StateMachineSpec(
        "configure-features",
        "Managed features as planned: cert-manager, the training operator, the checkpoint identity chain,"
        " HyperPod's TieredStorageConfig, the task governance, inference operator and observability add-ons"
        " (Container Insights, HyperPod observability)",
        functions=(
            "cf-cert-manager",
            "cf-training-operator",
            "cf-checkpoint-identity",
            "cf-tiered-storage",
            "cf-task-governance",
            "cf-inference-operator",
            "cf-observability",
            "cf-hyperpod-observability",
        ),
    ),
    StateMachineSpec(
        "configure-mlflow",
        "A cluster's MLflow tracking server: its role and the server made (or an existing one picked), then Created",
        functions=("mlf-server-role", "mlf-tracking-server", "mlf-wait-server"),
    ),
)
