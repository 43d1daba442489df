"""IAM's contract for the roles Launchpod owns: the in-memory fake (tests/fakes/iam.py) and adapters.aws.iam on the
sandbox's IAM answer each case alike: a role nobody created, a role carrying Launchpod's tags, and a role of the
same name that does not carry them (someone else's)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from launchpod.adapters.aws.iam import Iam as Adapter
from launchpod.usecases.ports import OwnedRoles

from tests.fakes.iam import Iam

OURS = {"launchpod:cluster": "train", "launchpod:managed-by": "launchpod"}
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
# The port, and how a role of a name comes to exist with tags.
Side = tuple[OwnedRoles, Callable[[str, dict[str, str]], None]]


@pytest.fixture(params=["fake", "iam"])
def side(request: pytest.FixtureRequest) -> Side:
    if request.param == "fake":
        fake = Iam()

        def add(name: str, tags: dict[str, str]) -> None:
            fake.roles[name] = (f"arn:aws:iam::123456789012:role/{name}", tags)

        return fake, add
    iam = request.getfixturevalue("client")("iam")

    def create(name: str, tags: dict[str, str]) -> None:
        iam.create_role(
            RoleName=name,
            AssumeRolePolicyDocument=json.dumps(TRUST),
            Tags=[{"Key": k, "Value": v} for k, v in tags.items()],
        )

    return Adapter(), create


def test_a_role_nobody_created_is_none(side: Side) -> None:
    assert side[0].owned_role("launchpod-train-checkpoints", OURS) is None


def test_a_role_carrying_launchpods_tags_answers_its_arn(side: Side) -> None:
    roles, create = side
    create("launchpod-train-checkpoints", {**OURS, "team": "research"})
    assert roles.owned_role("launchpod-train-checkpoints", OURS) == (
        "arn:aws:iam::123456789012:role/launchpod-train-checkpoints"
    )


def test_a_role_of_the_name_without_launchpods_tags_is_not_launchpods(side: Side) -> None:
    roles, create = side
    create("launchpod-train-checkpoints", {"launchpod:cluster": "other"})
    assert roles.owned_role("launchpod-train-checkpoints", OURS) is None
