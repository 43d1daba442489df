"""A cluster's managed features as a caller reads and toggles them: read from EKS's add-ons, SageMaker, IAM
and Kubernetes; a request equal to the real state is NOOP, and features need an ACTIVE control plane."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.common import Role
from launchpod.contracts.features import UpdateFeaturesRequest
from launchpod.domain import operations as ops
from launchpod.domain.errors import Conflict
from launchpod.usecases import features

from tests.fakes.eks import Eks
from tests.fakes.iam import Iam
from tests.fakes.kube import Kube
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker

ADMIN = ops.Principal("alice", Role.ADMIN)


def _ports(status: str = "ACTIVE", addons: dict[str, dict[str, Any]] | None = None) -> features.FeaturePorts:
    return features.FeaturePorts(
        prefix="launchpod",
        bucket="shared-bucket",
        operations=Operations(),
        workflows=Workflows(),
        eks=Eks({"train": {"name": "train", "status": status}}, {"train": addons or {}}),
        sagemaker=SageMaker({}),
        iam=Iam({}),
        read=Kube(),
    )


def test_features_on_a_control_plane_still_creating_are_refused() -> None:
    with pytest.raises(Conflict) as refused:
        features.list_features("train", ports=_ports("CREATING"))
    assert str(refused.value) == "The EKS control plane of train is CREATING; managed features need an ACTIVE cluster."


def test_with_no_add_ons_every_feature_reads_off_and_launchpods_checkpoint_role_is_looked_up() -> None:
    ports = _ports()
    listed = features.list_features("train", ports=ports)
    assert listed.items and not any(f.enabled for f in listed.items)
    assert ports.iam.asked and ports.iam.asked[0].startswith("launchpod")  # type: ignore[attr-defined]


def test_turning_off_what_is_off_is_a_noop_in_its_words() -> None:
    body = UpdateFeaturesRequest.model_validate({"observability": {"enabled": False}})
    proposal = features.update_features("train", body, ADMIN, ports=_ports())
    assert proposal.plan.empty
    assert proposal.noop == "The features of train already match the request; no changes."


def test_turning_on_a_feature_plans_it_and_starts_one_operation() -> None:
    ports = _ports()
    body = UpdateFeaturesRequest.model_validate({"observability": {"enabled": True}})
    proposal = features.update_features("train", body, ADMIN, ports=ports)
    assert not proposal.plan.empty
    operation = proposal.start()
    assert operation.target == "train" and operation.request["observability"] == {"enabled": True}
    assert len(ports.workflows.started) == 1  # type: ignore[attr-defined]
