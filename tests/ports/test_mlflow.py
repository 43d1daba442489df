"""SageMaker managed MLflow's contract: the in-memory fake (tests/fakes/mlflow.py Servers) and adapters.aws.mlflow on
the sandbox's SageMaker answer each case alike: a server nobody created, a server's description, a presigned URL
to its UI once it is Created (and not before), a URL for a server that does not exist, a delete (Deleting until
gone; a server already gone is no error), and a server's tags as SageMaker's ListTags answers them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from launchpod.adapters.aws.mlflow import Mlflow
from launchpod.adapters.aws.sagemaker import SageMaker as SageMakerAdapter
from launchpod.domain.errors import PermanentError
from launchpod.domain.mlflow import TrackingServer

from sandbox.aws import mlflow as sandbox_mlflow
from sandbox.aws import sagemaker as hyperpod
from tests.fakes.mlflow import Servers
from tests.fakes.sagemaker import SageMaker
from tests.sandbox.aws.support import wait_until

TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
# The port; how a server is created (its name); how it comes to be Created (its name).
Side = tuple[Any, Callable[[str], None], Callable[[str], None]]


@pytest.fixture(params=["fake", "sagemaker"])
def side(request: pytest.FixtureRequest) -> Any:
    if request.param == "fake":
        fake = Servers({})

        def create_fake(name: str) -> None:
            fake.add(name, "Creating")

        def created_fake(name: str) -> None:
            fake.servers[name]["TrackingServerStatus"] = "Created"

        yield fake, create_fake, created_fake
        return
    client = request.getfixturevalue("client")
    hyperpod.install()  # the sandbox's SageMaker, managed MLflow included
    sandbox_mlflow.settings()["create_seconds"] = 60.0  # 0.6 s at the tests' time scale
    role = client("iam").create_role(RoleName="mlflow", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    client("s3").create_bucket(Bucket="sagemaker-shared")
    sm = client("sagemaker")

    def create(name: str) -> None:
        sm.create_mlflow_tracking_server(
            TrackingServerName=name, ArtifactStoreUri="s3://sagemaker-shared/mlflow/", RoleArn=role
        )

    def created(name: str) -> None:
        wait_until(
            lambda: sm.describe_mlflow_tracking_server(TrackingServerName=name)["TrackingServerStatus"] == "Created",
            reason=f"{name} was not Created",
        )

    yield Mlflow(), create, created
    sandbox_mlflow.settings()["create_seconds"] = 1500.0
    sandbox_mlflow.reset()


def test_a_server_nobody_created_describes_as_none(side: Side) -> None:
    assert side[0].describe("lp-ghost") is None


def test_a_server_describes_with_its_name_arn_status_url_store_and_size(side: Side) -> None:
    servers, create, _ = side
    create("lp-train")
    found = servers.describe("lp-train")
    assert isinstance(found, TrackingServer)
    assert (found.name, found.status) == ("lp-train", "Creating")
    assert found.arn.startswith("arn:aws:sagemaker:") and found.arn.endswith(":mlflow-tracking-server/lp-train")
    assert str(found.url).startswith("https://")
    assert (found.artifact_store_uri, found.size) == ("s3://sagemaker-shared/mlflow/", "Small")


def test_a_ui_url_is_made_once_the_server_is_created_and_each_is_new(side: Side) -> None:
    servers, create, created = side
    create("lp-train")
    with pytest.raises(PermanentError, match="wait until it is Created"):
        servers.presigned_url("lp-train")
    created("lp-train")
    described = servers.describe("lp-train")
    assert described is not None
    base = str(described.url)
    first, second = servers.presigned_url("lp-train", 60), servers.presigned_url("lp-train", 60)
    assert first.startswith(base + "/auth?authToken=") and second.startswith(base + "/auth?authToken=")
    assert first != second


def test_a_ui_url_for_a_server_that_does_not_exist_is_refused_naming_it(side: Side) -> None:
    with pytest.raises(PermanentError, match="ResourceNotFound: Tracking server lp-ghost does not exist"):
        side[0].presigned_url("lp-ghost")


def test_a_delete_leaves_the_server_deleting_and_a_second_delete_of_a_gone_one_is_no_error(side: Side) -> None:
    servers, create, created = side
    create("lp-train")
    created("lp-train")
    servers.delete("lp-train")
    deleting = servers.describe("lp-train")
    assert deleting is not None and deleting.status == "Deleting"
    servers.delete("lp-ghost")


@pytest.fixture(params=["fake", "sagemaker"])
def tagged(request: pytest.FixtureRequest) -> Any:
    """SageMaker's ListTags, and how a tracking server is created with tags (name, tags; answers its ARN)."""
    if request.param == "fake":
        fake, servers = SageMaker({}), Servers()

        def create_fake(name: str, tags: dict[str, str]) -> str:
            arn = str(servers.add(name)["TrackingServerArn"])
            fake.tagged[arn] = dict(tags)
            return arn

        return fake, create_fake
    client = request.getfixturevalue("client")
    hyperpod.install()
    role = client("iam").create_role(RoleName="mlflow", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    client("s3").create_bucket(Bucket="sagemaker-shared")
    sm = client("sagemaker")

    def create(name: str, tags: dict[str, str]) -> str:
        return str(
            sm.create_mlflow_tracking_server(
                TrackingServerName=name,
                ArtifactStoreUri="s3://sagemaker-shared/mlflow/",
                RoleArn=role,
                Tags=[{"Key": k, "Value": v} for k, v in tags.items()],
            )["TrackingServerArn"]
        )

    return SageMakerAdapter(), create


def test_a_servers_tags_read_back_as_a_mapping(tagged: Any) -> None:
    port, create = tagged
    arn = create("lp-train", {"launchpod:cluster": "c1", "owner": "launchpod"})
    assert port.tags(arn) == {"launchpod:cluster": "c1", "owner": "launchpod"}
    assert port.tags(create("team-server", {})) == {}
