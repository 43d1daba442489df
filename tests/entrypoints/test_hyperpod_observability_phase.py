"""The HyperPodObservability phase: the workspace Launchpod made is reused (else one is created and awaited until
ACTIVE), then the collector's pod identity role with aps:RemoteWrite on that workspace, then the add-on with the
workspace in its configuration values, checked against the add-on's schema; asked to, an Amazon Managed Grafana
workspace reading it (its role, the workspace awaited until ACTIVE) goes into those values too; turned off, the
add-on and the role go, and the Grafana workspace Launchpod made with its role, while the Prometheus workspace
stays."""

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
from tests.fakes.grafana_workspaces import GrafanaWorkspaces
from tests.fakes.iam import Iam
from tests.fakes.sagemaker import SageMaker

ADDON = "amazon-sagemaker-hyperpod-observability"
ROLE = "launchpod-c1-hp-observability"
TAGS = ownership.aws_tags("c1", "launchpod")


GRAFANA = "launchpod-c1-grafana"


@pytest.fixture
def grafana(monkeypatch) -> GrafanaWorkspaces:
    found = GrafanaWorkspaces()
    monkeypatch.setattr(wiring, "grafana_workspaces", lambda: found)
    return found


@pytest.fixture
def fakes(monkeypatch, grafana) -> tuple[Eks, Iam, AmpWorkspaces]:
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


def _doc(enabled: bool, **grafana: object) -> WorkflowInput:
    body = {"enabled": enabled, **grafana}
    return phase_input("configure-features", {"name": "c1", "hyperpodObservability": body})


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


def test_asked_to_it_makes_a_grafana_workspace_reading_the_prometheus_one_and_gives_it_to_the_add_on(fakes, grafana):
    eks, iam, amp = fakes
    amp.create("launchpod-c1-metrics", TAGS)
    amp.activate()
    doc = _doc(True, createGrafanaWorkspace=True)
    waiting = configure_features.hyperpod_observability(doc)
    assert not waiting.ready and f"Amazon Managed Grafana workspace {GRAFANA} is CREATING" in (waiting.message or "")
    assert eks.created == []  # the add-on waits for the dashboards' workspace
    (prometheus,) = amp.workspaces.values()
    assert iam.roles[GRAFANA][1] == TAGS
    statements = {s["Sid"]: s for s in iam.inline[GRAFANA]["launchpod-grafana-prometheus"]["Statement"]}
    assert statements["QueryWorkspace"]["Resource"] == prometheus["arn"]
    assert grafana.created == [
        {"name": GRAFANA, "role_arn": f"arn:aws:iam::123456789012:role/{GRAFANA}", "authentication": "SAML"}
    ]
    grafana.activate()
    configure_features.hyperpod_observability(doc)
    (workspace,) = grafana.workspaces.values()
    (created,) = eks.created
    arn = f"arn:aws:grafana:us-east-1:123456789012:/workspaces/{workspace['id']}"
    assert created["configuration"]["amgWorkspace"] == {"workspaceName": workspace["id"], "arn": arn}
    assert len(grafana.created) == 1  # found again by its name and tags, not made twice


def test_disabling_deletes_the_grafana_workspace_launchpod_made_and_its_role(fakes, grafana):
    eks, iam, _ = fakes
    iam.ensure_role(ROLE, "pods.eks.amazonaws.com", [], TAGS, "collector")
    iam.ensure_role(GRAFANA, "grafana.amazonaws.com", [], TAGS, "dashboards")
    made = grafana.create(GRAFANA, "arn:aws:iam::123456789012:role/x", "SAML", TAGS)
    someone_elses = grafana.create("team-dashboards", "arn:aws:iam::123456789012:role/y", "SAML", {"team": "ml"})
    eks.addon_map["c1"][ADDON] = {"status": "ACTIVE", "tags": TAGS}
    configure_features.hyperpod_observability(_doc(False))
    assert grafana.workspaces[made.id]["status"] == "DELETING"
    assert grafana.workspaces[someone_elses.id]["status"] == "CREATING"
    assert GRAFANA in [name for name, _ in iam.deleted]
