"""TrainingOperator: the HyperPod training operator add-on with its pod identity (operator_addon)."""

from __future__ import annotations

from launchpod.domain import features
from launchpod.entrypoints.workflows.configure_features.operator_addon import OperatorAddon
from launchpod.entrypoints.workflows.phase import phase

PHASE = "TrainingOperator"
ADDON = OperatorAddon(
    phase=PHASE,
    title="training operator",
    field="trainingOperator",
    entry=features.training_operator,
    role_name=features.operator_role_name,
    policy_name="launchpod-training-operator",
    policy=features.operator_policy,
)
run = ADDON.run
handler = phase(PHASE)(run)
