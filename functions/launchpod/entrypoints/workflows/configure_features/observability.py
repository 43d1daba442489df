"""Observability: the Amazon CloudWatch Observability add-on (Container Insights) with its pod identity
(operator_addon): a role for the ``cloudwatch-agent`` service account carrying the AWS managed policies the
add-on's guide names. Turned off, the add-on and that role go; the application log group stays (the
user's data)."""

from __future__ import annotations

from launchpod.domain import observability
from launchpod.entrypoints.workflows.configure_features.operator_addon import OperatorAddon
from launchpod.entrypoints.workflows.phase import phase

PHASE = observability.PHASE
ADDON = OperatorAddon(
    phase=PHASE,
    title="CloudWatch Observability",
    field=observability.FIELD,
    entry=observability.entry,
    role_name=observability.role_name,
    policy_name=None,
    policy=None,
    managed_policies=observability.policy_arns,
)
run = ADDON.run
handler = phase(PHASE)(run)
