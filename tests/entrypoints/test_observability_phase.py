"""The Observability phase: its pod identity role gets the AWS managed policies and no inline policy, then
the add-on with a pod identity association for amazon-cloudwatch/cloudwatch-agent; turned off, the add-on
Launchpod installed goes first and then the role, its managed policies detached."""

from __future__ import annotations

import pytest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import ownership
from launchpod.runtime import wiring
from launchpod.usecases.workflows import configure_features

from tests.entrypoints.fakes import phase_input
from tests.fakes.eks import Eks
from tests.fakes.iam import Iam

ADDON = "amazon-cloudwatch-observability"
TAGS = ownership.aws_tags("c1", "launchpod")
POLICIES = ["arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy", "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess"]


@pytest.fixture
def fakes(monkeypatch) -> tuple[Eks, Iam]:
    eks, iam = Eks({"c1": {"name": "c1", "status": "ACTIVE", "version": "1.34"}}, {"c1": {}}), Iam()
    monkeypatch.setattr(wiring, "eks", lambda: eks)
    monkeypatch.setattr(wiring, "iam", lambda: iam)
    monkeypatch.setattr(wiring, "sagemaker", lambda: pytest.fail("observability reads no HyperPod cluster"))
    return eks, iam


def _doc(enabled: bool) -> WorkflowInput:
    return phase_input("configure-features", {"name": "c1", "observability": {"enabled": enabled}})


def test_enabling_makes_the_role_with_managed_policies_then_the_add_on_with_its_pod_identity(fakes):
    eks, iam = fakes
    result = configure_features.observability(_doc(True))
    assert not result.ready
    assert iam.attached == {"launchpod-c1-observability": POLICIES} and iam.inline == {}
    assert [(c["name"], c["version"], c["identity"]) for c in eks.created] == [
        (ADDON, "v6.2.0-eksbuild.1", ("cloudwatch-agent", "arn:aws:iam::123456789012:role/launchpod-c1-observability"))
    ]
    eks.addon_map["c1"][ADDON] = {"status": "ACTIVE", "addonVersion": "v6.2.0-eksbuild.1"}
    assert configure_features.observability(_doc(True)).ready


def test_disabling_deletes_the_add_on_then_the_role_detaching_its_policies(fakes):
    eks, iam = fakes
    iam.ensure_role("launchpod-c1-observability", "pods.eks.amazonaws.com", POLICIES, TAGS, "observability")
    eks.addon_map["c1"][ADDON] = {"status": "ACTIVE", "tags": ownership.aws_tags("c1", "launchpod")}
    assert not configure_features.observability(_doc(False)).ready and eks.deleted == [ADDON] and iam.deleted == []
    eks.addon_map["c1"].clear()
    assert configure_features.observability(_doc(False)).ready
    assert iam.deleted == [("launchpod-c1-observability", True)]
