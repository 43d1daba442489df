"""InferenceOperator: the HyperPod inference operator add-on with its pod identity (operator_addon); its role
reads the cluster's nodes, the models in the shared bucket and the serving images."""

from __future__ import annotations

from launchpod.domain import features
from launchpod.entrypoints.workflows.configure_features.operator_addon import OperatorAddon
from launchpod.entrypoints.workflows.phase import phase
from launchpod.runtime.settings import settings

PHASE = "InferenceOperator"
ADDON = OperatorAddon(
    phase=PHASE,
    title="inference operator",
    field="inferenceOperator",
    entry=features.inference_operator,
    role_name=features.inference_role_name,
    policy_name="launchpod-inference-operator",
    policy=lambda cluster_arn: features.inference_policy(cluster_arn, settings().bucket),
)
run = ADDON.run
handler = phase(PHASE)(run)
