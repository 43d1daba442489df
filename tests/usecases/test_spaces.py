"""Spaces through their use case with the shared fakes: the refusals a user meets (no add-on, an unknown
instance group, a taken name, a missing claim, a wrong confirm), the dry run, stop/start and NOOP."""

from __future__ import annotations

import pytest
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.spaces import CreateSpaceInput, UpdateSpaceInput
from launchpod.domain import spaces as domain
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.usecases import spaces

from tests.fakes.eks import Eks
from tests.fakes.kube import Kube
from tests.fakes.sagemaker import SageMaker

NAME = "c1"
CLAIM = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "shared", "namespace": "default"}}


def _ports(addon: bool = True) -> spaces.SpacePorts:
    objects = [CLAIM, *([spaces.CRD] if addon else [])]
    return spaces.SpacePorts(
        eks=Eks({NAME: {"status": "ACTIVE"}}),
        sagemaker=SageMaker({hyperpod.hyperpod_name(NAME): {"InstanceGroups": [{"InstanceGroupName": "gpu"}]}}),
        kube=Kube(objects),
    )


def _create(ports, dry_run=False, **extra):
    body = {"name": NAME, "spaceName": "alice-nb", "storageClaim": "shared", **extra}
    return spaces.create(CreateSpaceInput(**body), "alice", dry_run, ports=ports)


def test_without_the_spaces_add_on_creating_is_409_naming_how_to_install_it():
    with pytest.raises(Conflict, match="install the cluster's dependencies with the optional ones") as refused:
        _create(_ports(addon=False))
    assert refused.value.details == [
        {"field": None, "rule": "next_step", "message": 'POST /api/clusters/c1/dependencies {"includeOptional": true}'}
    ]


def test_an_unknown_instance_group_or_claim_is_422_naming_the_field():
    with pytest.raises(InvalidInput, match="its groups: gpu") as bad:
        _create(_ports(), instanceGroup="cpu")
    assert bad.value.details[0]["field"] == "body.instanceGroup"
    with pytest.raises(InvalidInput, match="No PersistentVolumeClaim other") as bad:
        _create(_ports(), storageClaim="other")
    assert bad.value.details[0]["field"] == "body.storageClaim"


def test_a_dry_run_answers_the_plan_and_creates_nothing_then_a_create_lists_it_and_a_second_is_409():
    ports = _ports()
    plan = _create(ports, dry_run=True, gpus=1, instanceGroup="gpu")
    assert isinstance(plan, PlanView) and "1-GPU jupyterlab Space for alice" in plan.steps[0].reason
    assert spaces.list_spaces(NAME, None, ports=ports).items == []
    made = _create(ports)
    assert (made.spaceName, made.owner, made.dataPath) == ("alice-nb", "alice", "/data")
    assert [s.spaceName for s in spaces.list_spaces(NAME, None, ports=ports).items] == ["alice-nb"]
    with pytest.raises(Conflict, match="already exists"):
        _create(ports)


def test_stopping_changes_the_desired_status_and_stopping_again_is_noop():
    ports = _ports()
    _create(ports)
    stop = UpdateSpaceInput(name=NAME, spaceName="alice-nb", desiredStatus="Stopped")
    assert spaces.update(stop, ports=ports).desiredStatus == "Stopped"
    found = ports.kube.read(NAME, domain.ref("alice-nb", "default"))
    assert found["spec"]["desiredStatus"] == "Stopped" and found["spec"]["volumes"][0]["mountPath"] == "/data"
    assert isinstance(spaces.update(stop, ports=ports), NoopView)


def test_delete_needs_the_name_as_confirm_and_an_unknown_space_is_404():
    ports = _ports()
    _create(ports)
    with pytest.raises(InvalidInput, match="Type the Space's name"):
        spaces.delete(NAME, "alice-nb", "default", "yes", ports=ports)
    with pytest.raises(NotFound):
        spaces.delete(NAME, "bob-nb", "default", "bob-nb", ports=ports)
    assert isinstance(spaces.delete(NAME, "alice-nb", "default", "alice-nb", True, ports=ports), PlanView)
    assert spaces.delete(NAME, "alice-nb", "default", "alice-nb", ports=ports).deleted
    assert spaces.list_spaces(NAME, None, ports=ports).items == []
