"""A Pod whose Secret or ConfigMap volume names a missing object stays Pending in ContainerCreating with
the kubelet's FailedMount event, and starts once the object appears; an optional reference does not wait,
and a started Pod is not stopped by the object's deletion. Deployments' and training jobs' Pods alike."""

from __future__ import annotations

import pytest

from tests.sandbox.kube.support import IN_REGION, one_cluster, only_pod, put, ready_node
from tests.sandbox.workloads import deployment

CLUSTER = "mnt"
CONFIG = {"name": "config", "configMap": {"name": "hosts"}}
NODE = ready_node("hyperpod-i-1", IN_REGION, {"cpu": "8", "memory": "32Gi"})


def _deployment(volumes: list[dict]) -> dict:
    container = {"name": "web", "image": "quay.io/kuberay/operator:v1.7.0"}
    return deployment("web", {"containers": [container], "volumes": volumes})


@pytest.fixture
def fleet():
    with one_cluster(CLUSTER) as fleet:
        yield fleet


def _cert_pod_phase(fleet, secret_namespace: str) -> str:
    """The phase of a default-namespace pod mounting Secret tls, with a Secret tls in ``secret_namespace``."""
    put(fleet, CLUSTER, "v1/nodes", NODE)
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "tls", "namespace": secret_namespace}}
    put(fleet, CLUSTER, "v1/secrets", secret)
    put(fleet, CLUSTER, "apps/v1/deployments", _deployment([{"name": "cert", "secret": {"secretName": "tls"}}]))
    return str(only_pod(fleet, CLUSTER)["status"]["phase"])


def _ready(fleet) -> int:
    found = fleet.call(CLUSTER, lambda e: e.get_object("apps/v1/deployments", "default", "web"))
    return int(found["status"]["readyReplicas"])


@pytest.mark.parametrize(
    ("volume", "kind", "resource", "obj"),
    [
        ({"name": "cert", "secret": {"secretName": "tls"}}, "secret", "v1/secrets", {"type": "Opaque"}),
        ({"name": "cert", "configMap": {"name": "tls"}}, "configmap", "v1/configmaps", {"data": {"a": "b"}}),
        (
            {"name": "cert", "projected": {"sources": [{"secret": {"name": "tls"}}]}},
            "secret",
            "v1/secrets",
            {"type": "Opaque"},
        ),
    ],
)
def test_a_pod_waits_in_container_creating_until_its_volumes_object_exists(fleet, volume, kind, resource, obj):
    put(fleet, CLUSTER, "v1/nodes", NODE)
    put(fleet, CLUSTER, "apps/v1/deployments", _deployment([volume]))
    pod = only_pod(fleet, CLUSTER)
    assert pod["status"]["phase"] == "Pending" and pod["spec"]["nodeName"] == "hyperpod-i-1"
    assert pod["status"]["containerStatuses"][0]["state"] == {"waiting": {"reason": "ContainerCreating"}}
    assert _ready(fleet) == 0
    only_pod(fleet, CLUSTER)
    events = fleet.call(CLUSTER, lambda e: e.list_objects("v1/events", "default"))
    assert [(e["reason"], e["type"], e["source"]["component"], e["message"]) for e in events] == [
        ("FailedMount", "Warning", "kubelet", f'MountVolume.SetUp failed for volume "cert" : {kind} "tls" not found')
    ]
    put(
        fleet,
        CLUSTER,
        resource,
        {"apiVersion": "v1", "kind": kind.title(), "metadata": {"name": "tls", "namespace": "default"}, **obj},
    )
    pod = only_pod(fleet, CLUSTER)
    assert pod["status"]["phase"] == "Running" and pod["status"]["containerStatuses"][0]["ready"] is True
    assert _ready(fleet) == 1


def test_an_object_of_that_name_in_another_namespace_does_not_count(fleet):
    assert _cert_pod_phase(fleet, secret_namespace="kube-system") == "Pending"


def test_an_optional_reference_to_a_missing_object_starts(fleet):
    put(fleet, CLUSTER, "v1/nodes", NODE)
    volumes = [
        {"name": "a", "secret": {"secretName": "absent", "optional": True}},
        {"name": "b", "configMap": {"name": "absent", "optional": True}},
        {"name": "c", "emptyDir": {}},
    ]
    put(fleet, CLUSTER, "apps/v1/deployments", _deployment(volumes))
    assert only_pod(fleet, CLUSTER)["status"]["phase"] == "Running"
    assert _ready(fleet) == 1


def test_a_started_pod_keeps_running_when_its_secret_is_deleted(fleet):
    assert _cert_pod_phase(fleet, secret_namespace="default") == "Running"

    async def delete(emu):
        await emu.delete_object("v1/secrets", "default", "tls")

    fleet.call(CLUSTER, delete)
    assert only_pod(fleet, CLUSTER)["status"]["phase"] == "Running"
    assert _ready(fleet) == 1


def test_a_training_pod_bound_to_its_node_waits_for_its_config_map_then_runs(fleet):
    from sandbox.controllers import training

    put(fleet, CLUSTER, "v1/nodes", NODE)
    owner = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "job", "namespace": "default", "uid": "u1"}}
    template = {"spec": {"containers": [{"name": "train", "image": "trainer:1"}], "volumes": [CONFIG]}}
    pod = training._pod(owner, "job-worker-0", template, {})
    put(fleet, CLUSTER, "v1/pods", pod)

    def place(emu):
        return training._place(emu, emu.list_objects("v1/pods", "default"))

    assert fleet.call(CLUSTER, place) is False
    assert fleet.call(CLUSTER, place) is False
    found = fleet.call(CLUSTER, lambda e: e.get_object("v1/pods", "default", "job-worker-0"))
    assert found["status"]["phase"] == "Pending" and found["spec"]["nodeName"] == "hyperpod-i-1"
    events = fleet.call(CLUSTER, lambda e: e.list_objects("v1/events", "default"))
    assert [(e["reason"], e["source"]["component"]) for e in events] == [
        ("Scheduled", "hyperpod-training-operator"),
        ("FailedMount", "kubelet"),
    ]
    assert events[1]["message"] == 'MountVolume.SetUp failed for volume "config" : configmap "hosts" not found'
    put(
        fleet,
        CLUSTER,
        "v1/configmaps",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "hosts", "namespace": "default"}},
    )
    assert fleet.call(CLUSTER, place) is True
    found = fleet.call(CLUSTER, lambda e: e.get_object("v1/pods", "default", "job-worker-0"))
    assert found["status"]["phase"] == "Running"
