"""IAM's contract for the roles Launchpod owns: the in-memory fake (tests/fakes/iam.py) and adapters.aws.iam on the
sandbox's IAM answer each case alike: a role nobody created, a role carrying Launchpod's tags, and a role of the
same name that does not carry them (someone else's)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from launchpod.adapters.aws.iam import Iam as Adapter
from launchpod.domain.errors import PermanentError

from tests.fakes.iam import Iam

OURS = {"launchpod:cluster": "train", "launchpod:managed-by": "launchpod"}
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
# Managed policies a role is given (customer managed here: moto loads no AWS managed policy by default).
POLICY = "arn:aws:iam::123456789012:policy/launchpod-cloudwatch"
XRAY = "arn:aws:iam::123456789012:policy/launchpod-xray"
# The port, how a role of a name comes to exist with tags, and a role's managed policies (its name).
Side = tuple[Any, Callable[[str, dict[str, str]], None], Callable[[str], list[str]]]


@pytest.fixture(params=["fake", "iam"])
def side(request: pytest.FixtureRequest) -> Side:
    if request.param == "fake":
        fake = Iam()

        def add(name: str, tags: dict[str, str]) -> None:
            fake.roles[name] = (f"arn:aws:iam::123456789012:role/{name}", tags)

        return fake, add, lambda name: sorted(fake.attached.get(name, []))
    iam = request.getfixturevalue("client")("iam")

    def create(name: str, tags: dict[str, str]) -> None:
        iam.create_role(
            RoleName=name,
            AssumeRolePolicyDocument=json.dumps(TRUST),
            Tags=[{"Key": k, "Value": v} for k, v in tags.items()],
        )

    for arn in (POLICY, XRAY):
        statement = [{"Effect": "Allow", "Action": "logs:PutLogEvents", "Resource": "*"}]
        document = json.dumps({"Version": "2012-10-17", "Statement": statement})
        iam.create_policy(PolicyName=arn.rsplit("/", 1)[1], PolicyDocument=document)

    def attached(name: str) -> list[str]:
        return sorted(p["PolicyArn"] for p in iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"])

    return Adapter(), create, attached


def test_a_role_nobody_created_is_none(side: Side) -> None:
    assert side[0].owned_role("launchpod-train-checkpoints", OURS) is None


def test_a_role_carrying_launchpods_tags_answers_its_arn(side: Side) -> None:
    roles, create, _ = side
    create("launchpod-train-checkpoints", {**OURS, "team": "research"})
    assert roles.owned_role("launchpod-train-checkpoints", OURS) == (
        "arn:aws:iam::123456789012:role/launchpod-train-checkpoints"
    )


def test_a_role_of_the_name_without_launchpods_tags_is_not_launchpods(side: Side) -> None:
    roles, create, _ = side
    create("launchpod-train-checkpoints", {"launchpod:cluster": "other"})
    assert roles.owned_role("launchpod-train-checkpoints", OURS) is None


def test_a_role_ensured_twice_is_one_role_with_every_policy_attached_once(side: Side) -> None:
    roles, _, attached = side
    arn = roles.ensure_role("launchpod-c1-cw", "pods.eks.amazonaws.com", [POLICY], OURS, "CloudWatch agent")
    assert arn == "arn:aws:iam::123456789012:role/launchpod-c1-cw"
    again = roles.ensure_role("launchpod-c1-cw", "pods.eks.amazonaws.com", [POLICY, XRAY], OURS, "CloudWatch agent")
    assert again == arn and attached("launchpod-c1-cw") == sorted([POLICY, XRAY])
    assert roles.owned_role("launchpod-c1-cw", OURS) == arn


def test_an_owned_role_is_deleted_with_its_policies_and_anyone_elses_is_left(side: Side) -> None:
    roles, create, _ = side
    roles.ensure_role("launchpod-c1-cw", "pods.eks.amazonaws.com", [POLICY], OURS, "CloudWatch agent")
    roles.put_inline_policy(
        "launchpod-c1-cw",
        "logs",
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "logs:PutLogEvents", "Resource": "*"}]},
    )
    assert roles.delete_owned_role("launchpod-c1-cw", OURS, detach=True) is True
    assert roles.owned_role("launchpod-c1-cw", OURS) is None
    create("team-role", {"owner": "ml-team"})
    assert roles.delete_owned_role("team-role", OURS, detach=True) is False
    assert roles.owned_role("team-role", {"owner": "ml-team"}) is not None
    assert roles.delete_owned_role("launchpod-ghost", OURS) is False


def test_a_role_keeping_managed_policies_is_refused_deletion_without_detach(side: Side) -> None:
    roles, *_ = side
    roles.ensure_role("launchpod-c1-cw", "pods.eks.amazonaws.com", [POLICY], OURS, "CloudWatch agent")
    with pytest.raises(PermanentError, match="DeleteConflict: Cannot delete entity, must detach all policies first"):
        roles.delete_owned_role("launchpod-c1-cw", OURS)
    assert roles.owned_role("launchpod-c1-cw", OURS) is not None


ISSUER = "https://oidc.eks.us-east-1.amazonaws.com/id/ABC"
WEB_TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {
                "Federated": "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/ABC"
            },
            "Action": "sts:AssumeRoleWithWebIdentity",
        }
    ],
}


def test_a_role_trusting_a_policy_is_made_once_and_someone_elses_of_the_name_is_refused(side: Side) -> None:
    roles, create, _ = side
    arn = roles.ensure_role_trusting("launchpod-c1-inference", WEB_TRUST, OURS, "inference operator")
    assert arn == "arn:aws:iam::123456789012:role/launchpod-c1-inference"
    assert roles.ensure_role_trusting("launchpod-c1-inference", WEB_TRUST, OURS, "inference operator") == arn
    assert roles.owned_role("launchpod-c1-inference", OURS) == arn
    create("team-role", {"owner": "ml-team"})
    with pytest.raises(PermanentError, match="IAM role team-role exists, is not Launchpod's"):
        roles.ensure_role_trusting("team-role", WEB_TRUST, OURS, "inference operator")


@pytest.fixture(params=["fake", "iam"])
def providers(request: pytest.FixtureRequest) -> tuple[Any, Callable[[str], None]]:
    """The port, and how an OIDC identity provider for an issuer comes to exist."""
    if request.param == "fake":
        fake = Iam()

        def add(issuer: str) -> None:
            host_path = issuer.removeprefix("https://")
            fake.oidc_providers[host_path] = f"arn:aws:iam::123456789012:oidc-provider/{host_path}"

        return fake, add
    iam = request.getfixturevalue("client")("iam")
    return Adapter(), lambda issuer: iam.create_open_id_connect_provider(
        Url=issuer, ClientIDList=["sts.amazonaws.com"], ThumbprintList=["9e99a48a9960b14926bb7f3b02e22da2b0ab7280"]
    )


def test_a_clusters_oidc_provider_is_found_by_its_issuer(providers: tuple[Any, Callable[[str], None]]) -> None:
    roles, add = providers
    assert roles.oidc_provider_arn(ISSUER) is None
    add(ISSUER)
    assert roles.oidc_provider_arn(ISSUER) == WEB_TRUST["Statement"][0]["Principal"]["Federated"]  # type: ignore[index]
