"""GrafanaWorkspaces' contract: the in-memory fake (tests/fakes/grafana_workspaces.py) and adapters.aws.grafana on
the sandbox's moto (sandbox.aws.grafana: moto has no Grafana) answer alike: a new workspace is CREATING with its
ARN and endpoint in AWS's formats, becomes ACTIVE, is found again by its name and Launchpod's tags (not without
them), and is gone after DeleteWorkspace. The sandbox alone: what AWS refuses (AWS_SSO without IAM Identity
Center, a role Grafana may not assume, no role) is refused in words that say what to do."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from launchpod.adapters.aws.grafana import GrafanaWorkspaces
from launchpod.domain.errors import PermanentError
from launchpod.domain.metrics.workspaces import GrafanaWorkspace
from launchpod.usecases.ports import GrafanaWorkspaces as GrafanaPort

from sandbox.aws import grafana as sandbox_grafana
from tests.fakes.grafana_workspaces import GrafanaWorkspaces as FakeWorkspaces
from tests.sandbox.aws.support import wait_until

TAGS = {"launchpod:cluster": "c1", "launchpod:managed-by": "launchpod"}
NAME = "launchpod-c1-grafana"


def _trust(service: str) -> str:
    statement = {"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


@pytest.fixture(params=["fake", "grafana"])
def side(request: pytest.FixtureRequest) -> Iterator[tuple[GrafanaPort, str]]:
    if request.param == "fake":
        yield FakeWorkspaces(), "arn:aws:iam::123456789012:role/launchpod-c1-grafana"
        return
    request.getfixturevalue("aws")
    iam = request.getfixturevalue("client")("iam")
    role = iam.create_role(RoleName="launchpod-c1-grafana", AssumeRolePolicyDocument=_trust("grafana.amazonaws.com"))
    sandbox_grafana.settings()["create_seconds"] = 0.05
    yield GrafanaWorkspaces(), role["Role"]["Arn"]


def test_a_new_workspace_becomes_active_and_is_found_again_by_its_name_and_tags(side: Any) -> None:
    port, role = side
    assert port.owned(NAME, TAGS) is None
    made = port.create(NAME, role, "SAML", TAGS)
    assert isinstance(made, GrafanaWorkspace) and made.status == "CREATING"
    assert re.fullmatch(r"g-[0-9a-f]{10}", made.id)
    assert re.fullmatch(rf"arn:aws:grafana:us-east-1:\d{{12}}:/workspaces/{made.id}", made.arn)
    assert (made.sign_in, made.saml_configuration_status) == (("SAML",), "NOT_CONFIGURED")
    wait_until(lambda: getattr(port.describe(made.id), "status", None) == "ACTIVE", reason="the workspace ACTIVE")
    found = port.owned(NAME, TAGS)
    assert found is not None and (found.id, found.arn, found.status) == (made.id, made.arn, "ACTIVE")
    assert port.owned(NAME, {**TAGS, "launchpod:cluster": "c2"}) is None  # another cluster's tags


def test_a_deleted_workspace_is_gone(side: Any) -> None:
    port, role = side
    made = port.create(NAME, role, "SAML", TAGS)
    port.delete(made.id)
    sandbox_grafana.settings()["delete_seconds"] = 0
    assert port.owned(NAME, TAGS) is None
    assert port.describe(made.id) is None
    port.delete(made.id)  # again: nothing to do


def test_the_sandbox_refuses_what_aws_refuses_in_words_that_say_what_to_do(aws: Any, client: Any) -> None:
    iam = client("iam")
    grafana_role = iam.create_role(RoleName="g", AssumeRolePolicyDocument=_trust("grafana.amazonaws.com"))["Role"]
    lambda_role = iam.create_role(RoleName="l", AssumeRolePolicyDocument=_trust("lambda.amazonaws.com"))["Role"]
    port = GrafanaWorkspaces()
    with pytest.raises(PermanentError, match=r"IAM Identity Center is not enabled.*use SAML"):
        port.create(NAME, grafana_role["Arn"], "AWS_SSO", TAGS)
    with pytest.raises(PermanentError, match=r"does not trust grafana\.amazonaws\.com"):
        port.create(NAME, lambda_role["Arn"], "SAML", TAGS)
    with pytest.raises(PermanentError, match="does not exist; create it first"):
        port.create(NAME, grafana_role["Arn"].replace("/g", "/missing"), "SAML", TAGS)
    raw = client("grafana")
    with pytest.raises(raw.exceptions.ValidationException, match="needs a workspaceRoleArn"):
        raw.create_workspace(
            accountAccessType="CURRENT_ACCOUNT", permissionType="CUSTOMER_MANAGED", authenticationProviders=["SAML"]
        )
    with pytest.raises(raw.exceptions.ResourceNotFoundException):
        raw.describe_workspace(workspaceId="g-0123456789")
    assert port.owned(NAME, TAGS) is None  # nothing was made
