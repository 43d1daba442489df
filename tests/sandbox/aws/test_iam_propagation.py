"""IAM is eventually consistent: a role handed to EKS or SageMaker right after CreateRole is refused
with the service's own words until it has propagated (~10 simulated seconds), and Launchpod retries
that instead of failing the operation."""

from __future__ import annotations

import json

import boto3
from botocore.exceptions import ClientError
from launchpod.adapters.aws.errors import translate
from launchpod.domain.errors import RetryableError

from sandbox.aws.iam import authz, propagation

TRUST = json.dumps({"Version": "2012-10-17", "Statement": []})


def _eks_create(role_arn: str) -> authz.Call:
    params = {"name": "c1", "roleArn": role_arn, "resourcesVpcConfig": {}}
    return authz.Call(
        prefix="eks", operation="CreateCluster", params=params, region="us-east-1", account="123456789012"
    )


def test_a_new_role_is_refused_by_eks_then_accepted_once_propagated(time_scale):
    arn = boto3.client("iam").create_role(RoleName="launchpod-c1-eks", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    time_scale(30.0)  # thirty real seconds per simulated second: under 10 s old for 300 real seconds, however busy
    code, message, _ = propagation.refusal(_eks_create(arn))
    assert code == "InvalidParameterException"
    assert (
        message
        == f"Role with arn: {arn}, could not be assumed because it does not exist or the trusted entity is not correct"
    )
    time_scale(0.000001)  # the same real age is now at least 10 simulated seconds (10 µs real)
    assert propagation.refusal(_eks_create(arn)) is None


def test_a_new_execution_role_is_refused_by_sagemaker_in_its_words(time_scale):
    arn = boto3.client("iam").create_role(RoleName="launchpod-c1-hp", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    time_scale(30.0)  # the role stays under 10 simulated seconds old for 300 real seconds
    call = authz.Call(
        prefix="sagemaker",
        operation="CreateCluster",
        region="us-east-1",
        account="123456789012",
        params={"ClusterName": "c1", "InstanceGroups": [{"ExecutionRole": arn}]},
    )
    code, message, _ = propagation.refusal(call)
    assert code == "ValidationException" and message.startswith(f"Could not assume role {arn}.")


def test_launchpod_retries_a_role_that_has_not_propagated_and_says_so():
    arn = "arn:aws:iam::123456789012:role/launchpod-c1-eks"
    error = ClientError(
        {
            "Error": {
                "Code": "InvalidParameterException",
                "Message": f"Role with arn: {arn}, could not be assumed "
                "because it does not exist or the trusted entity is not correct",
            }
        },
        "CreateCluster",
    )
    translated = translate(error, "eks:CreateCluster")
    assert isinstance(translated, RetryableError)
    assert f"the IAM role {arn} cannot be assumed yet" in translated.message
    other = ClientError({"Error": {"Code": "InvalidParameterException", "Message": "bad subnet"}}, "CreateCluster")
    assert not isinstance(translate(other, "eks:CreateCluster"), RetryableError)
