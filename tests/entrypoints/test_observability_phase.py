"""The Observability phase: its pod identity role gets the AWS managed policies and no inline policy, then
the add-on with a pod identity association for amazon-cloudwatch/cloudwatch-agent; turned off, the add-on
Launchpod installed goes first and then the role, its managed policies detached."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import ownership
from launchpod.runtime import wiring
from launchpod.usecases.workflows import configure_features

from tests.entrypoints.fakes import phase_input
from tests.fakes.eks import _offered

ADDON = "amazon-cloudwatch-observability"
POLICIES = ["arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy", "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess"]


class FakeEks:
    def __init__(self) -> None:
        self.found: dict[str, dict[str, Any]] = {}
        self.created: list[tuple[str, str, Any]] = []
        self.deleted: list[str] = []

    def addons(self, cluster: str) -> dict[str, dict[str, Any]]:
        return dict(self.found)

    def cluster(self, name: str) -> dict[str, Any]:
        return {"name": name, "status": "ACTIVE", "version": "1.34"}

    def addon_versions(self, name: str, kubernetes_version: str) -> tuple[list[str], str | None]:
        return _offered({}, name, kubernetes_version)

    def create_addon(
        self, cluster: str, name: str, tags: dict[str, str], version: str, identity: Any = None, values: Any = None
    ) -> None:
        self.created.append((name, version, identity))

    def delete_addon(self, cluster: str, name: str) -> None:
        self.deleted.append(name)


class FakeIam:
    def __init__(self) -> None:
        self.roles: dict[str, list[str]] = {}
        self.inline: list[str] = []
        self.deleted: list[tuple[str, bool]] = []

    def ensure_role(self, name: str, service: str, policies: list[str], tags: dict[str, str], description: str) -> str:
        assert service == "pods.eks.amazonaws.com"
        self.roles[name] = list(policies)
        return f"arn:aws:iam::123456789012:role/{name}"

    def put_inline_policy(self, role: str, name: str, document: dict[str, object]) -> None:
        self.inline.append(name)

    def delete_owned_role(self, name: str, tags: dict[str, str], detach: bool = False) -> bool:
        self.deleted.append((name, detach))
        return True


@pytest.fixture
def fakes(monkeypatch) -> tuple[FakeEks, FakeIam]:
    eks, iam = FakeEks(), FakeIam()
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
    assert iam.roles == {"launchpod-c1-observability": POLICIES} and iam.inline == []
    assert eks.created == [
        (ADDON, "v6.2.0-eksbuild.1", ("cloudwatch-agent", "arn:aws:iam::123456789012:role/launchpod-c1-observability"))
    ]
    eks.found[ADDON] = {"status": "ACTIVE", "addonVersion": "v6.2.0-eksbuild.1"}
    assert configure_features.observability(_doc(True)).ready


def test_disabling_deletes_the_add_on_then_the_role_detaching_its_policies(fakes):
    eks, iam = fakes
    eks.found[ADDON] = {"status": "ACTIVE", "tags": ownership.aws_tags("c1", "launchpod")}
    assert not configure_features.observability(_doc(False)).ready and eks.deleted == [ADDON] and iam.deleted == []
    eks.found.clear()
    assert configure_features.observability(_doc(False)).ready
    assert iam.deleted == [("launchpod-c1-observability", True)]
