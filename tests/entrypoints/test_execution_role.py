"""The HyperPod execution role as IAM evaluates it under Launchpod's permissions boundary: what a node
may do, SSM sessions included."""

from __future__ import annotations

import pytest
from launchpod import policies, registry
from launchpod.domain.clusters import hyperpod

from sandbox.aws.iam.policy import AuthzRequest, statement_applies

DEPLOYMENT = policies.Deployment(
    partition="aws",
    region="us-east-1",
    account="123456789012",
    prefix="launchpod",
    bucket="launchpod-shared",
    table_arns={t.key: f"arn:aws:dynamodb:us-east-1:123456789012:table/{t.key}" for t in registry.TABLES},
    table_stream_arns={},
    kube_role_arn="arn:aws:iam::123456789012:role/launchpod-kube",
    websocket_stage_arn="arn:aws:execute-api:us-east-1:123456789012:ws/prod",
)


def _allows(document: dict, action: str) -> bool:
    request = AuthzRequest(action, "*")
    applies = [s for s in document["Statement"] if statement_applies(s, request)]
    return any(s["Effect"] == "Allow" for s in applies) and not any(s["Effect"] == "Deny" for s in applies)


@pytest.mark.parametrize("action", hyperpod.SSM_SESSION_ACTIONS)
def test_a_node_may_open_the_session_manager_channels_an_ssm_session_needs(action):
    # The role's own policy and the boundary it carries must both allow it (IAM's evaluation logic).
    assert _allows(hyperpod.execution_role_policy("launchpod-shared", "c1"), action)
    assert _allows(policies.boundary_document(DEPLOYMENT), action)
