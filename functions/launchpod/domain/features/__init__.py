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

from launchpod.domain.features.identities import (
    CHECKPOINT_LABEL,
    KEDA_SERVICE_ACCOUNT,
    ROLE_ANNOTATION,
    checkpoint_policy,
    checkpoint_prefix,
    checkpoint_role_name,
    checkpoint_trust,
    checkpointing,
    inference_configuration,
    inference_operator,
    inference_policy,
    inference_role_name,
    inference_trust,
    irsa_trust,
    operator_policy,
    operator_role_name,
    service_account,
    task_governance,
    training_operator,
)
from launchpod.domain.features.plans import (
    CERT_MANAGER,
    FSX_CSI,
    KIND,
    MAX_POLLS,
    PHASES,
    POLL_SECONDS,
    RealState,
    inference_enabled,
    plan,
    views,
    workflow,
)

__all__ = [
    "CERT_MANAGER",
    "CHECKPOINT_LABEL",
    "FSX_CSI",
    "KEDA_SERVICE_ACCOUNT",
    "KIND",
    "MAX_POLLS",
    "PHASES",
    "POLL_SECONDS",
    "ROLE_ANNOTATION",
    "RealState",
    "checkpoint_policy",
    "checkpoint_prefix",
    "checkpoint_role_name",
    "checkpoint_trust",
    "checkpointing",
    "inference_configuration",
    "inference_enabled",
    "inference_operator",
    "inference_policy",
    "inference_role_name",
    "inference_trust",
    "irsa_trust",
    "operator_policy",
    "operator_role_name",
    "plan",
    "service_account",
    "task_governance",
    "training_operator",
    "views",
    "workflow",
]
