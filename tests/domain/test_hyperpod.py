"""create-hyperpod rules: what CreateCluster receives is valid for the real SageMaker model, zones
and instance types are checked, and failures come with a hint."""

from __future__ import annotations

import botocore.session
import pytest
from botocore.validate import ParamValidator
from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import InvalidInput

REQUEST = CreateHyperPodInput(
    name="c1",
    availabilityZone="us-east-1a",
    instanceGroups=[
        {
            "name": "gpu",
            "instanceType": "ml.p5en.48xlarge",
            "instanceCount": 4,
            "deepHealthChecks": ["InstanceStress", "InstanceConnectivity"],
        },
        {"name": "cpu", "instanceType": "ml.m5.2xlarge", "instanceCount": 1, "threadsPerCore": 2},
    ],
)


def test_create_cluster_parameters_validate_against_the_sagemaker_service_model():
    model = botocore.session.get_session().get_service_model("sagemaker").operation_model("CreateCluster")
    params = {
        "ClusterName": "c1",
        "InstanceGroups": hyperpod.instance_groups(REQUEST, "arn:aws:iam::123456789012:role/x", "s3://sagemaker-b/p/"),
        "VpcConfig": {"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-1"]},
        "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-east-1:123456789012:cluster/c1"}},
        "NodeRecovery": "Automatic",
    }
    report = ParamValidator().validate(params, model.input_shape)
    assert not report.has_errors(), report.generate_report()
    gpu = params["InstanceGroups"][0]
    assert gpu["OnStartDeepHealthChecks"] == ["InstanceStress", "InstanceConnectivity"]
    assert gpu["ThreadsPerCore"] == 1 and gpu["LifeCycleConfig"]["OnCreate"] == "on_create.sh"
    assert "OnStartDeepHealthChecks" not in params["InstanceGroups"][1]


def test_an_instance_type_not_offered_in_the_zone_names_the_field_and_where_it_is():
    with pytest.raises(InvalidInput) as caught:
        hyperpod.check_instance_types(REQUEST, {"ml.p5en.48xlarge": ["us-east-1b"], "ml.m5.2xlarge": ["us-east-1a"]})
    assert caught.value.details[0]["field"] == "body.instanceGroups.0.instanceType"
    assert "offered in us-east-1b" in caught.value.message


@pytest.mark.parametrize(
    ("message", "hint"),
    [
        ("We currently do not have sufficient capacity for ml.p5.48xlarge", "capacity"),
        ("Lifecycle script did not run successfully", "lifecycle script"),
        ("Account-level service limit exceeded", "service quota"),
    ],
)
def test_failure_messages_are_kept_verbatim_with_a_hint(message, hint):
    text = hyperpod.failure_hint(message)
    assert text.startswith(message) and hint in text
