"""CallerIdentity's and FileSystems' contracts: the in-memory fakes (tests/fakes/sts.py, tests/fakes/fsx.py) and
adapters.aws.sts and adapters.aws.fsx on moto answer alike: an assumed-role session named by its role (as an EKS
access entry names it), a Lustre file system described by its id, and an id with none refused saying how to find
one."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from launchpod.adapters.aws import clients, fsx, sts
from launchpod.domain.errors import NotFound
from launchpod.runtime.wiring import CallerIdentity as IdentityPort
from launchpod.runtime.wiring import FileSystems as FsxPort

from tests.fakes.fsx import FileSystems
from tests.fakes.sts import CallerIdentity

ROLE = "arn:aws:iam::123456789012:role/launchpod-api"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"}, "Action": "sts:AssumeRole"}
    ],
}


@pytest.fixture(params=["fake", "moto"])
def identity(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[IdentityPort]:
    """Launchpod running as a session of the role launchpod-api (a Lambda's execution role)."""
    if request.param == "fake":
        yield CallerIdentity("arn:aws:sts::123456789012:assumed-role/launchpod-api/launchpod-api-fn")
        return
    client = request.getfixturevalue("client")
    client("iam").create_role(RoleName="launchpod-api", AssumeRolePolicyDocument=json.dumps(TRUST))
    session = client("sts").assume_role(RoleArn=ROLE, RoleSessionName="launchpod-api-fn")["Credentials"]
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", session["AccessKeyId"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", session["SecretAccessKey"])
    monkeypatch.setenv("AWS_SESSION_TOKEN", session["SessionToken"])
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)  # its credentials were read before the session's
    # Both caches: a client made before (the Grafana adapter's STS client) holds the earlier credentials.
    clients.client.cache_clear()
    clients._client.cache_clear()
    yield sts
    clients.client.cache_clear()
    clients._client.cache_clear()


# The port; how a Lustre file system is created (answers its id).
FsxSide = tuple[FsxPort, Callable[[], str]]


@pytest.fixture(params=["fake", "moto"])
def file_systems(request: pytest.FixtureRequest) -> Iterator[FsxSide]:
    if request.param == "fake":
        fake = FileSystems()

        def create_fake() -> str:
            fake.systems["fs-0123456789abcdef0"] = {"FileSystemType": "LUSTRE", "StorageCapacity": 1200}
            return "fs-0123456789abcdef0"

        yield fake, create_fake
        return
    client = request.getfixturevalue("client")

    def create() -> str:
        made = client("fsx").create_file_system(
            FileSystemType="LUSTRE", StorageCapacity=1200, SubnetIds=["subnet-0123456789abcdef0"]
        )
        return str(made["FileSystem"]["FileSystemId"])

    clients.client.cache_clear()
    yield fsx, create


def test_an_assumed_role_session_is_named_by_its_role(identity: IdentityPort) -> None:
    assert identity.caller_principal_arn() == ROLE


def test_a_file_system_is_described_by_its_id(file_systems: FsxSide) -> None:
    port, create = file_systems
    made = create()
    found: dict[str, Any] = port.file_system(made)
    assert (found["FileSystemId"], found["FileSystemType"], found["StorageCapacity"]) == (made, "LUSTRE", 1200)


def test_an_id_with_no_file_system_is_not_found_saying_how_to_find_one(file_systems: FsxSide) -> None:
    with pytest.raises(NotFound, match=r"FSx has no file system fs-0000000000000000a .*describe-file-systems"):
        file_systems[0].file_system("fs-0000000000000000a")
