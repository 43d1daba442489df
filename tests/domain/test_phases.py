"""One provisioning phase run alone: the settings come from the newest operation that recorded them,
and a phase nothing was recorded for names the route that takes its settings."""

from __future__ import annotations

from datetime import timedelta

import pytest
from launchpod.contracts.clusters import CreateClusterRequest, ProvisionClusterRequest
from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.contracts.operations import OperationView
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.domain import dependencies, storage
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane, hyperpod, phases, provision
from launchpod.domain.errors import Conflict

from tests.domain.test_operations import ADMIN

GROUP = {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}
PROVISION = ProvisionClusterRequest.model_validate(
    {
        "name": "c1",
        "availabilityZones": ["us-east-1a", "us-east-1b"],
        "hyperpod": {"availabilityZone": "us-east-1a", "instanceGroups": [GROUP]},
        "includeOptionalDependencies": True,
    }
)


def _history(*plans: ops.WorkflowPlan) -> list[OperationView]:
    """Operations in the order given, each a minute after the one before."""
    first = ops.now()
    return [
        ops.new_operation(plan, ADMIN).model_copy(update={"createdAt": first + timedelta(minutes=i)})
        for i, plan in enumerate(plans)
    ]


def test_every_phase_runs_with_its_part_of_the_last_provision():
    history = _history(provision.plan(PROVISION))
    assert phases.recorded_input("control-plane", "c1", history) == CreateClusterRequest(
        name="c1", availabilityZones=["us-east-1a", "us-east-1b"]
    )
    assert phases.recorded_input("dependencies", "c1", history) == ReconcileDependenciesInput(
        name="c1", includeOptional=True
    )
    assert phases.recorded_input("hyperpod", "c1", history) == CreateHyperPodInput(
        name="c1", availabilityZone="us-east-1a", instanceGroups=[GROUP]
    )


def test_a_later_run_of_the_phase_alone_wins_over_an_older_provision():
    bigger = CreateHyperPodInput(
        name="c1", availabilityZone="us-east-1a", instanceGroups=[{**GROUP, "instanceCount": 4}]
    )
    history = list(
        reversed(_history(provision.plan(PROVISION), hyperpod.plan(bigger)))
    )  # the store's order is not relied on
    assert phases.recorded_input("hyperpod", "c1", history) == bigger
    assert phases.recorded_input("dependencies", "c1", history).includeOptional is True


def test_a_newer_provision_without_storage_leaves_the_older_storage_settings_in_force():
    volume = ConfigureStorageInput(name="c1", kind="s3", storageName="datasets", prefix="datasets/mnist")
    history = _history(storage.plan(volume), provision.plan(PROVISION), dependencies.plan("c1", False))
    assert phases.recorded_input("storage", "c1", history) == volume
    assert phases.recorded_input("dependencies", "c1", history).includeOptional is False


@pytest.mark.parametrize(
    ("phase", "route"),
    [
        ("hyperpod", "POST /api/clusters/c1/hyperpod"),
        ("storage", "POST /api/clusters/c1/storage"),
        ("dependencies", "POST /api/clusters/c1/dependencies"),
    ],
)
def test_a_phase_nothing_was_recorded_for_names_the_route_that_takes_its_settings(phase, route):
    history = _history(
        control_plane.plan(CreateClusterRequest(name="c1", availabilityZones=["us-east-1a", "us-east-1b"]))
    )
    with pytest.raises(Conflict) as caught:
        phases.recorded_input(phase, "c1", history)
    assert route in caught.value.message and phase in caught.value.message


def test_control_plane_with_nothing_recorded_names_the_create_route():
    with pytest.raises(Conflict, match=r'POST /api/clusters with \{"cluster": "c1"'):
        phases.recorded_input("control-plane", "c1", [])


def test_settings_recorded_under_older_rules_ask_for_new_settings():
    stale = ops.new_operation(dependencies.plan("c1", False), ADMIN)
    stale = stale.model_copy(update={"request": {"name": "c1", "includeOptional": False, "gone": 1}})
    with pytest.raises(Conflict, match=r"no longer valid.*POST /api/clusters/c1/dependencies"):
        phases.recorded_input("dependencies", "c1", [stale])


def test_the_phase_names_are_the_workflows_provision_runs_as_children():
    assert set(phases.NAMES) == set(phases.WORKFLOWS)
    assert {kind for kind, _ in phases.WORKFLOWS.values()} == set(provision.PARTS)
