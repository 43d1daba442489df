"""SageMaker managed MLflow in the sandbox: a tracking server is Creating then Created, refuses a bad role,
a missing bucket, a taken name and an unknown one, signs a URL only once Created, and is deleted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from sandbox.aws import mlflow
from sandbox.aws import sagemaker as hyperpod
from sandbox.aws.iam import authz
from tests.sandbox.aws.support import wait_until

TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


@pytest.fixture(autouse=True)
def installed(aws: Any) -> Iterator[None]:
    hyperpod.install()
    mlflow.settings()["create_seconds"] = 60.0  # 0.6 s at the package's scale
    yield
    mlflow.settings()["create_seconds"] = 1500.0
    mlflow.reset()


@pytest.fixture
def setup(client: Any) -> dict[str, Any]:
    iam = client("iam")
    role = iam.create_role(RoleName="mlflow", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    other = {**TRUST, "Statement": [{**TRUST["Statement"][0], "Principal": {"Service": "eks.amazonaws.com"}}]}
    wrong = iam.create_role(RoleName="eks-only", AssumeRolePolicyDocument=json.dumps(other))["Role"]["Arn"]
    client("s3").create_bucket(Bucket="sagemaker-shared")
    return {"sm": client("sagemaker"), "role": role, "wrong": wrong}


def _create(sm: Any, role: str, name: str = "ts", uri: str = "s3://sagemaker-shared/mlflow/") -> str:
    return sm.create_mlflow_tracking_server(TrackingServerName=name, ArtifactStoreUri=uri, RoleArn=role)[
        "TrackingServerArn"
    ]


def _code(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    return exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]


def test_a_tracking_server_is_creating_then_created_with_a_url(setup):
    sm = setup["sm"]
    arn = _create(sm, setup["role"])
    assert arn.endswith(":mlflow-tracking-server/ts")
    described = sm.describe_mlflow_tracking_server(TrackingServerName="ts")
    assert (described["TrackingServerStatus"], described["TrackingServerSize"]) == ("Creating", "Small")
    with pytest.raises(ClientError) as early:
        sm.create_presigned_mlflow_tracking_server_url(TrackingServerName="ts")
    assert "wait until it is Created" in _code(early)[1]
    wait_until(lambda: sm.describe_mlflow_tracking_server(TrackingServerName="ts")["TrackingServerStatus"] == "Created")
    url = sm.create_presigned_mlflow_tracking_server_url(TrackingServerName="ts", ExpiresInSeconds=60)["AuthorizedUrl"]
    assert url.startswith(described["TrackingServerUrl"] + "/auth?authToken=")
    [summary] = sm.list_mlflow_tracking_servers()["TrackingServerSummaries"]
    assert summary["TrackingServerName"] == "ts"
    sm.delete_mlflow_tracking_server(TrackingServerName="ts")
    assert sm.describe_mlflow_tracking_server(TrackingServerName="ts")["TrackingServerStatus"] == "Deleting"


def test_tags_given_at_creation_are_listed_until_the_server_is_gone(setup):
    sm = setup["sm"]
    arn = sm.create_mlflow_tracking_server(
        TrackingServerName="tagged",
        ArtifactStoreUri="s3://sagemaker-shared/mlflow/",
        RoleArn=setup["role"],
        Tags=[{"Key": "launchpod:cluster", "Value": "c1"}],
    )["TrackingServerArn"]
    assert sm.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "launchpod:cluster", "Value": "c1"}]
    sm.delete_mlflow_tracking_server(TrackingServerName="tagged")
    assert sm.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "launchpod:cluster", "Value": "c1"}]  # while Deleting
    mlflow.reset()
    with pytest.raises(ClientError) as gone:
        sm.list_tags(ResourceArn=arn)
    assert _code(gone)[0] == "ValidationException"


def test_refusals_name_what_is_wrong(setup):
    sm = setup["sm"]
    with pytest.raises(ClientError) as untrusted:
        _create(sm, setup["wrong"])
    assert _code(untrusted) == (
        "ValidationException",
        f"The role {setup['wrong']} does not trust sagemaker.amazonaws.com; SageMaker cannot assume it.",
    )
    with pytest.raises(ClientError) as no_bucket:
        _create(sm, setup["role"], uri="s3://nope/mlflow/")
    assert "does not exist" in _code(no_bucket)[1]
    _create(sm, setup["role"])
    with pytest.raises(ClientError) as taken:
        _create(sm, setup["role"])
    assert _code(taken)[0] == "ValidationException" and "already exists" in _code(taken)[1]
    with pytest.raises(ClientError) as missing:
        sm.describe_mlflow_tracking_server(TrackingServerName="other")
    assert _code(missing)[0] == "ResourceNotFound"


def test_beyond_the_quota_is_resource_limit_exceeded(setup):
    mlflow.settings()["limit"] = 1
    try:
        _create(setup["sm"], setup["role"], "one")
        with pytest.raises(ClientError) as exc:
            _create(setup["sm"], setup["role"], "two")
        assert _code(exc)[0] == "ResourceLimitExceeded"
    finally:
        mlflow.settings()["limit"] = 10


def test_create_passes_the_role_to_sagemaker_and_names_the_server_arn():
    call = authz.Call(
        prefix="sagemaker",
        operation="CreateMlflowTrackingServer",
        params={
            "TrackingServerName": "ts",
            "RoleArn": "arn:aws:iam::123456789012:role/r",
            "ArtifactStoreUri": "s3://b/",
        },
        region="us-east-1",
        account="123456789012",
        partition="aws",
    )
    checks = authz.checks(call, authz.Lookup())
    assert checks[0].request.resource == "arn:aws:sagemaker:us-east-1:123456789012:mlflow-tracking-server/ts"
    assert any(c.request.action == "iam:PassRole" and c.request.resource.endswith("role/r") for c in checks)
