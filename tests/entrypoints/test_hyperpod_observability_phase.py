"""The HyperPodObservability phase: the workspace Launchpod made is reused (else one is created and awaited until
ACTIVE), then the collector's pod identity role with aps:RemoteWrite on that workspace, then the add-on with the
workspace in its configuration values, checked against the add-on's schema; turned off, the add-on and the role
go and the workspace stays."""

from __future__ import annotations

import pytest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import ownership
from launchpod.runtime import wiring
from launchpod.usecases.workflows import configure_features

from sandbox.aws.eks.catalog import OBSERVABILITY_SCHEMA
from tests.entrypoints.fakes import phase_input
from tests.fakes.amp_workspaces import AmpWorkspaces
from tests.fakes.eks import Eks
from tests.fakes.iam import Iam
from tests.fakes.sagemaker import SageMaker

ADDON = "amazon-sagemaker-hyperpod-observability"
ROLE = "launchpod-c1-hp-observability"
TAGS = ownership.aws_tags("c1", "launchpod")


@pytest.fixture
def fakes(monkeypatch) -> tuple[Eks, Iam, AmpWorkspaces]:
    eks, iam, amp = (
        Eks({"c1": {"name": "c1", "status": "ACTIVE", "version": "1.34"}}, {"c1": {}}),
        Iam(),
        AmpWorkspaces(),
    )
    eks.schemas[ADDON] = OBSERVABILITY_SCHEMA
    monkeypatch.setattr(wiring, "eks", lambda: eks)
    monkeypatch.setattr(wiring, "iam", lambda: iam)
    monkeypatch.setattr(wiring, "amp_workspaces", lambda: amp)
    monkeypatch.setattr(wiring, "sagemaker", lambda: SageMaker({}))
    return eks, iam, amp


def _doc(enabled: bool) -> WorkflowInput:
    return phase_input("configure-features", {"name": "c1", "hyperpodObservability": {"enabled": enabled}})


def test_enabling_waits_for_a_new_workspace_then_installs_the_add_on_writing_to_it(fakes):
    eks, iam, amp = fakes
    first = configure_features.hyperpod_observability(_doc(True))
    assert not first.ready and "launchpod-c1-metrics is CREATING" in (first.message or "") and eks.created == []
    amp.activate()
    assert not configure_features.hyperpod_observability(_doc(True)).ready
    (workspace,) = amp.workspaces.values()
    assert workspace["tags"] == TAGS
    assert iam.inline[ROLE]["launchpod-hyperpod-observability"]["Statement"][0]["Resource"] == workspace["arn"]
    (created,) = eks.created
    assert created["identity"] == (
        "hyperpod-observability-operator-otel-collector",
        f"arn:aws:iam::123456789012:role/{ROLE}",
    )
    assert created["configuration"]["ampWorkspace"] == {
        "prometheusEndpoint": workspace["prometheusEndpoint"].rstrip("/"),
        "arn": workspace["arn"],
    }
    eks.addon_map["c1"][ADDON]["status"] = "ACTIVE"
    assert configure_features.hyperpod_observability(_doc(True)).ready and len(amp.workspaces) == 1


def test_a_workspace_launchpod_made_before_is_reused(fakes):
    eks, _, amp = fakes
    amp.create("launchpod-c1-metrics", TAGS)
    amp.activate()
    configure_features.hyperpod_observability(_doc(True))
    assert len(amp.workspaces) == 1 and [c["name"] for c in eks.created] == [ADDON]


def test_disabling_deletes_the_add_on_then_the_role_and_keeps_the_workspace(fakes):
    eks, iam, amp = fakes
    amp.create("launchpod-c1-metrics", TAGS)
    iam.ensure_role(ROLE, "pods.eks.amazonaws.com", [], TAGS, "collector")
    eks.addon_map["c1"][ADDON] = {"status": "ACTIVE", "tags": TAGS}
    assert not configure_features.hyperpod_observability(_doc(False)).ready and eks.deleted == [ADDON]
    assert configure_features.hyperpod_observability(_doc(False)).ready
    assert [name for name, _ in iam.deleted] == [ROLE] and len(amp.workspaces) == 1
