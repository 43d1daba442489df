"""The schema check every generated manifest goes through refuses what the API server refuses."""

from __future__ import annotations

from tests import manifests


def test_an_unknown_field_in_a_custom_resource_is_refused():
    pool = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "p"},
        "spec": {
            "template": {"spec": {"nodeClassRef": {"group": "g", "kind": "K", "name": "n"}, "requirements": []}},
            "limitz": {},
        },
    }
    assert any("limitz" in e for e in manifests.errors(pool))


def test_a_version_the_crd_does_not_serve_is_refused():
    job = {"apiVersion": "ray.io/v9", "kind": "RayJob", "metadata": {"name": "j"}, "spec": {}}
    assert manifests.errors(job) == ["ray.io/RayJob serves ['v1', 'v1alpha1'], not 'v9'"]


def test_a_pytorch_job_without_replica_specs_is_refused_and_a_core_kind_is_checked_too():
    job = {
        "apiVersion": "sagemaker.amazonaws.com/v1",
        "kind": "HyperPodPyTorchJob",
        "metadata": {"name": "j"},
        "spec": {"nprocPerNode": 8},
    }
    assert manifests.errors(job)
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"replicas": "two", "selector": {}, "template": {}},
    }
    assert any("replicas" in e for e in manifests.errors(deployment))


def test_a_group_without_a_vendored_crd_is_named():
    thing = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    assert "no vendored CRD for example.com/Widget" in manifests.errors(thing)[0]
