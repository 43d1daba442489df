"""MLflow for training jobs: the tracking server's names, artifact store and role policy; its create
request; the env a job's pods get (the recipe's experiment wins, the user's env wins over both), in
manifests that still validate; and the environment read back from a submitted job."""

from __future__ import annotations

import pytest
from launchpod.contracts.jobs import SubmitJobInput
from launchpod.contracts.mlflow import ConfigureMlflowRequest
from launchpod.domain import mlflow
from launchpod.domain.errors import Conflict
from launchpod.domain.jobs import manifests, recipes
from pydantic import ValidationError

from tests import manifests as schemas
from tests.instance_facts import facts

TS_ARN = "arn:aws:sagemaker:us-east-1:123456789012:mlflow-tracking-server/ts"
ARN = "arn:aws:sagemaker:us-east-1:123456789012:mlflow-tracking-server/launchpod-c1-mlflow"


def _request(**fields) -> SubmitJobInput:
    base = {"name": "c1", "jobName": "j1", "instanceGroup": "gpu", "storageClaim": "shared"}
    return SubmitJobInput(**{**base, **fields})


def _env(obj: dict) -> dict[str, str]:
    return mlflow.env_of(obj)


def test_names_store_and_role_policy_stay_on_the_mlflow_prefix():
    assert mlflow.default_name("launchpod", "c1") == "launchpod-c1-mlflow"
    assert len(mlflow.role_name("launchpod", "c" * 60)) <= 64  # IAM's limit
    assert mlflow.artifact_store("sagemaker-launchpod") == "s3://sagemaker-launchpod/mlflow/"
    objects, listing = mlflow.role_policy("sagemaker-launchpod")["Statement"]
    assert objects["Resource"] == ["arn:aws:s3:::sagemaker-launchpod/mlflow/*"]
    assert listing["Condition"] == {"StringLike": {"s3:prefix": ["mlflow/*"]}}


def test_create_params_tag_the_server_as_launchpods():
    params = mlflow.create_params("ts", "b", "arn:aws:iam::123456789012:role/r", "Medium", "c1", "launchpod")
    assert params["ArtifactStoreUri"] == "s3://b/mlflow/" and params["TrackingServerSize"] == "Medium"
    assert {"Key": "launchpod:cluster", "Value": "c1"} in params["Tags"]


@pytest.mark.parametrize("name", ["-x", "a_b", "a b", "x" * 257])
def test_a_tracking_server_name_outside_awss_pattern_is_refused(name):
    with pytest.raises(ValidationError):
        ConfigureMlflowRequest(trackingServerName=name)


def test_a_recipe_job_gets_the_tracking_uri_and_keeps_its_experiment():
    recipe = recipes.recipe("llama-factory")
    obj = manifests.build(_request(recipe="llama-factory"), facts("ml.p5.48xlarge"), recipe, mlflow.pod_env(ARN, "j1"))
    assert schemas.errors(obj) == []
    env = _env(obj)
    assert env[mlflow.TRACKING_URI] == ARN and env[mlflow.EXPERIMENT] == "j1"


def test_a_custom_ray_job_gets_both_and_the_users_env_wins():
    request = _request(kind="ray", image="img", command=["python", "t.py"], env={"MLFLOW_EXPERIMENT_NAME": "mine"})
    obj = manifests.build(request, facts("ml.p5.48xlarge"), None, mlflow.pod_env(ARN, "j1"))
    assert schemas.errors(obj) == []
    env = _env(obj)
    assert env[mlflow.TRACKING_URI] == ARN and env[mlflow.EXPERIMENT] == "mine"
    head = obj["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": mlflow.TRACKING_URI, "value": ARN} in head


def test_without_a_server_no_tracking_uri_is_set():
    obj = manifests.build(_request(image="img", command=["python", "t.py"]), facts("ml.p5.48xlarge"), None)
    assert mlflow.TRACKING_URI not in _env(obj)


def test_the_plan_creates_a_missing_server_with_its_role_picks_an_existing_one_and_is_empty_when_in_use():
    created = mlflow.plan("c1", "ts", None, None)
    assert [(s.action, s.phase) for s in created.steps] == [("create", "ServerRole"), ("create", "TrackingServer")]
    existing = mlflow.TrackingServer("ts", TS_ARN, "Created")
    assert [(s.action, s.phase) for s in mlflow.plan("c1", "ts", "other", existing).steps] == [
        ("pick", "TrackingServer")
    ]
    assert mlflow.plan("c1", "ts", "ts", existing).empty  # the cluster already logs to it: NOOP


def test_a_server_that_cannot_take_runs_is_refused_naming_the_field():
    for status in ("Deleting", "CreateFailed", "Stopped"):
        with pytest.raises(Conflict) as refused:
            mlflow.plan("c1", "ts", "ts", mlflow.TrackingServer("ts", TS_ARN, status))
        assert refused.value.details[0]["field"] == "body.trackingServerName"
        assert f"is {status}" in refused.value.message


def test_a_sent_size_that_is_not_the_existing_servers_is_refused_naming_it_never_a_silent_noop():
    existing = mlflow.TrackingServer("ts", TS_ARN, "Created", size="Small")
    assert mlflow.plan("c1", "ts", "ts", existing, "Small").empty
    assert mlflow.plan("c1", "ts", "ts", existing).empty  # size left out: nothing to compare
    with pytest.raises(Conflict) as refused:
        mlflow.plan("c1", "ts", "ts", existing, "Large")
    assert refused.value.details[0]["field"] == "body.size" and "is Small, not Large" in refused.value.message
