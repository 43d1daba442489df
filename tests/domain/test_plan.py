"""The one planner: only sent fields are compared, equal values plan nothing, a changed immutable field
is refused naming it, and a changed mutable field becomes one step with its reason."""

from __future__ import annotations

import pytest
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.domain import plan
from launchpod.domain.errors import Conflict

FIELDS = (plan.Field("kubernetesVersion"), plan.Field("logging", mutable=True))


def _diff(desired: dict, real: dict | None) -> plan.Plan:
    return plan.diff(
        "c1",
        desired,
        real,
        FIELDS,
        resource="EKS cluster c1",
        create=lambda: [plan.Step("create", "EKS cluster c1", "it does not exist")],
    )


def test_only_the_fields_the_caller_sent_are_desired():
    request = CreateClusterRequest.model_validate({"cluster": "c1", "availabilityZones": ["us-east-1a", "us-east-1b"]})
    assert set(plan.sent(request)) == {"cluster", "availabilityZones"}  # kubernetesVersion's default is not "sent"


def test_a_missing_resource_plans_its_creation():
    assert [s.action for s in _diff({"kubernetesVersion": "1.34"}, None).steps] == ["create"]


def test_the_same_request_again_plans_nothing():
    real = {"kubernetesVersion": "1.34", "logging": ["api", "audit"]}
    assert _diff({"kubernetesVersion": "1.34", "logging": ["audit", "api"]}, real).empty


def test_a_changed_immutable_field_is_refused_naming_it():
    with pytest.raises(Conflict) as refused:
        _diff({"kubernetesVersion": "1.33"}, {"kubernetesVersion": "1.34"})
    assert "kubernetesVersion is '1.34', not '1.33'" in refused.value.message
    assert refused.value.details == [
        {
            "field": "body.kubernetesVersion",
            "rule": "immutable",
            "message": "kubernetesVersion is '1.34' on the existing EKS cluster c1; it cannot change to '1.33'",
        }
    ]


def test_a_changed_mutable_field_is_one_step_with_its_reason():
    steps = _diff({"logging": ["api"]}, {"logging": ["api", "audit"]}).steps
    assert [(s.action, s.target) for s in steps] == [("update", "EKS cluster c1 logging")]
    assert "['api', 'audit']" in steps[0].reason and "['api']" in steps[0].reason


def test_a_field_the_real_state_does_not_report_is_not_a_change():
    assert _diff({"tags": {"team": "a"}}, {"kubernetesVersion": "1.34"}).empty
