"""The emulated EKS API server answers the official kubernetes client as a real cluster would."""

from __future__ import annotations

import json
import ssl
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from kubernetes import client, watch
from kubernetes.dynamic import DynamicClient

from sandbox.kube import KubeFleet, configuration, mint_token
from sandbox.tls import ca_file


@pytest.fixture(scope="module")
def fleet() -> Iterator[KubeFleet]:
    fleet = KubeFleet()
    yield fleet
    fleet.stop_all()


@pytest.fixture
def cluster(fleet: KubeFleet, request: pytest.FixtureRequest) -> Iterator[tuple[str, client.ApiClient]]:
    # One cluster per test: start-up costs a few milliseconds and keeps tests independent.
    name = "c-" + request.node.name.replace("_", "-")[:40].strip("-")
    url = fleet.start_for(name)
    cfg = configuration(url, mint_token(name))
    api = client.ApiClient(cfg)
    yield name, api
    api.close()
    fleet.stop(name)


def _deployment(name: str, labels: dict[str, str] | None = None) -> dict:
    return {
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {"name": "main", "image": "nginx:1", "env": [{"name": "A", "value": "1"}]},
                        {"name": "sidecar", "image": "busybox"},
                    ]
                },
            },
        },
    }


def test_requests_without_an_eks_token_get_401(cluster: tuple[str, client.ApiClient]) -> None:
    url = cluster[1].configuration.host
    for headers in (
        {},
        {"Authorization": "Bearer not-an-eks-token"},
        {"Authorization": "Bearer k8s-aws-v1.!!"},
    ):
        req = urllib.request.Request(url + "/api/v1/namespaces", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, context=ssl.create_default_context(cafile=ca_file()))
        assert err.value.code == 401
        body = json.loads(err.value.read())
        assert body["kind"] == "Status" and body["reason"] == "Unauthorized" and body["code"] == 401


def test_new_cluster_has_the_default_namespaces_and_eks_version(fleet: KubeFleet) -> None:
    url = fleet.start_for("versioned", version="1.31")
    api = client.ApiClient(configuration(url, mint_token("v")))
    try:
        names = [ns.metadata.name for ns in client.CoreV1Api(api).list_namespace().items]
        assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]
        assert client.VersionApi(api).get_code().git_version == "v1.31.0-eks-sandbox"
        assert fleet.start_for("versioned", version="1.32") == url  # an upgrade keeps the server
        assert client.VersionApi(api).get_code().minor == "32"
    finally:
        api.close()
        fleet.stop("versioned")


def test_namespaces_and_service_accounts_round_trip(cluster: tuple[str, client.ApiClient]) -> None:
    core = client.CoreV1Api(cluster[1])
    created = core.create_namespace({"metadata": {"name": "hyperpod", "labels": {"team": "ml"}}})
    assert created.status.phase == "Active" and created.metadata.uid
    core.patch_namespace("hyperpod", {"metadata": {"labels": {"env": "dev"}}})
    assert core.read_namespace("hyperpod").metadata.labels == {"team": "ml", "env": "dev"}

    sa = core.create_namespaced_service_account(
        "hyperpod", {"metadata": {"name": "training", "annotations": {"eks.amazonaws.com/role-arn": "arn:x"}}}
    )
    assert sa.metadata.namespace == "hyperpod" and sa.metadata.resource_version
    with pytest.raises(client.ApiException) as dup:
        core.create_namespaced_service_account("hyperpod", {"metadata": {"name": "training"}})
    assert dup.value.status == 409
    with pytest.raises(client.ApiException) as missing:
        core.create_namespaced_service_account("nowhere", {"metadata": {"name": "training"}})
    assert missing.value.status == 404

    core.delete_namespace("hyperpod")
    with pytest.raises(client.ApiException) as gone:
        core.read_namespaced_service_account("training", "hyperpod")
    assert gone.value.status == 404


def test_nodes_and_pods_with_logs(cluster: tuple[str, client.ApiClient], fleet: KubeFleet) -> None:
    core = client.CoreV1Api(cluster[1])
    core.create_node(
        {
            "metadata": {
                "name": "hyperpod-i-0abc",
                "labels": {"sagemaker.amazonaws.com/node-health-status": "Schedulable"},
            }
        }
    )
    nodes = core.list_node(label_selector="sagemaker.amazonaws.com/node-health-status=Schedulable").items
    assert [n.metadata.name for n in nodes] == ["hyperpod-i-0abc"]
    assert nodes[0].metadata.namespace is None

    core.create_namespaced_pod(
        "default", {"metadata": {"name": "p1"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    )
    fleet.call(cluster[0], lambda emu: emu.append_log("default", "p1", "one\ntwo\nthree\n", "c"))
    assert core.read_namespaced_pod_log("p1", "default") == "one\ntwo\nthree\n"
    assert core.read_namespaced_pod_log("p1", "default", container="c", tail_lines=2) == "two\nthree\n"
    core.patch_namespaced_pod_status("p1", "default", {"status": {"phase": "Running"}})
    assert core.read_namespaced_pod("p1", "default").status.phase == "Running"


def test_a_log_read_of_a_pod_with_several_containers_must_name_one(
    cluster: tuple[str, client.ApiClient], fleet: KubeFleet
) -> None:
    core = client.CoreV1Api(cluster[1])
    containers = [{"name": "log-shipper", "image": "x"}, {"name": "trainer", "image": "y"}]
    core.create_namespaced_pod("default", {"metadata": {"name": "p2"}, "spec": {"containers": containers}})
    fleet.call(cluster[0], lambda emu: emu.append_log("default", "p2", "step 1\n", "trainer"))
    with pytest.raises(client.ApiException) as refused:
        core.read_namespaced_pod_log("p2", "default")
    assert refused.value.status == 400
    assert "a container name must be specified for pod p2, choose one of: [log-shipper trainer]" in refused.value.body
    assert core.read_namespaced_pod_log("p2", "default", container="trainer") == "step 1\n"


def test_deployments_patch_by_container_name_and_replace(cluster: tuple[str, client.ApiClient]) -> None:
    apps = client.AppsV1Api(cluster[1])
    apps.create_namespaced_deployment("default", _deployment("web", {"tier": "fe"}))
    apps.create_namespaced_deployment("default", _deployment("api", {"tier": "be"}))
    assert [d.metadata.name for d in apps.list_namespaced_deployment("default", label_selector="tier=be").items] == [
        "api"
    ]

    patched = apps.patch_namespaced_deployment(
        "web",
        "default",
        {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:2"}]}}}},
    )
    containers = patched.spec.template.spec.containers
    assert [(c.name, c.image) for c in containers] == [("main", "nginx:2"), ("sidecar", "busybox")]
    assert containers[0].env[0].name == "A" and patched.metadata.generation == 2

    assert apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 4}}).spec.replicas == 4
    current = apps.read_namespaced_deployment("web", "default")
    current.spec.replicas = 2
    assert apps.replace_namespaced_deployment("web", "default", current).spec.replicas == 2
    current.spec.replicas = 9  # stale resourceVersion now
    with pytest.raises(client.ApiException) as stale:
        apps.replace_namespaced_deployment("web", "default", current)
    assert stale.value.status == 409

    apps.delete_collection_namespaced_deployment("default", label_selector="tier=fe")
    assert [d.metadata.name for d in apps.list_namespaced_deployment("default").items] == ["api"]


def test_custom_objects_create_returns_the_object(cluster: tuple[str, client.ApiClient]) -> None:
    co = client.CustomObjectsApi(cluster[1])
    job = {
        "apiVersion": "sagemaker.amazonaws.com/v1",
        "kind": "HyperPodPyTorchJob",
        "metadata": {"name": "train-1", "labels": {"owner": "me"}},
        "spec": {"nprocPerNode": "8", "replicaSpecs": [{"name": "pods", "replicas": 2}]},
    }
    created = co.create_namespaced_custom_object("sagemaker.amazonaws.com", "v1", "default", "hyperpodpytorchjobs", job)
    assert created["metadata"]["namespace"] == "default" and created["metadata"]["uid"]
    co.patch_namespaced_custom_object_status(
        "sagemaker.amazonaws.com",
        "v1",
        "default",
        "hyperpodpytorchjobs",
        "train-1",
        {"status": {"conditions": [{"type": "Running", "status": "True"}]}},
    )
    got = co.get_namespaced_custom_object("sagemaker.amazonaws.com", "v1", "default", "hyperpodpytorchjobs", "train-1")
    assert got["status"]["conditions"][0]["type"] == "Running"
    listed = co.list_namespaced_custom_object(
        "sagemaker.amazonaws.com", "v1", "default", "hyperpodpytorchjobs", label_selector="owner=someone-else"
    )
    assert listed["items"] == [] and listed["kind"] == "HyperPodPyTorchJobList"


def test_dynamic_client_server_side_apply_creates_then_updates(cluster: tuple[str, client.ApiClient]) -> None:
    dyn = DynamicClient(cluster[1])
    configmaps = dyn.resources.get(api_version="v1", kind="ConfigMap")
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "default"},
        "data": {"a": "1"},
    }
    created = dyn.server_side_apply(configmaps, body=body, field_manager="launchpod", namespace="default")
    assert created.metadata.name == "settings" and created.to_dict()["data"] == {"a": "1"}
    body["data"] = {"a": "2"}
    updated = dyn.server_side_apply(configmaps, body=body, field_manager="launchpod", namespace="default")
    assert updated.to_dict()["data"] == {"a": "2"}
    assert [c.metadata.name for c in configmaps.get(namespace="default").items] == ["settings"]


def test_crd_creation_makes_the_kind_discoverable(cluster: tuple[str, client.ApiClient]) -> None:
    ext = client.ApiextensionsV1Api(cluster[1])
    ext.create_custom_resource_definition(
        {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [
                    {
                        "name": "v1",
                        "served": True,
                        "storage": True,
                        "schema": {"openAPIV3Schema": {"type": "object"}},
                    }
                ],
            },
        }
    )
    widgets = DynamicClient(cluster[1]).resources.get(api_version="example.com/v1", kind="Widget")
    widgets.create(
        body={"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}},
        namespace="default",
    )
    assert [w.metadata.name for w in widgets.get(namespace="default").items] == ["w1"]


def test_watch_with_label_selector_sees_live_events(cluster: tuple[str, client.ApiClient]) -> None:
    core = client.CoreV1Api(cluster[1])

    def pod(name: str, app: str) -> dict:
        return {
            "metadata": {"name": name, "labels": {"app": app}},
            "spec": {"containers": [{"name": "c", "image": "x"}]},
        }

    core.create_namespaced_pod("default", pod("p1", "x"))

    def later() -> None:
        time.sleep(0.2)
        core.create_namespaced_pod("default", pod("p2", "x"))
        core.create_namespaced_pod("default", pod("p3", "other"))
        core.delete_namespaced_pod("p2", "default")

    writer = threading.Thread(target=later)
    writer.start()
    events = [
        (e["type"], e["object"].metadata.name)
        for e in watch.Watch().stream(core.list_namespaced_pod, "default", label_selector="app=x", timeout_seconds=1)
    ]
    writer.join()
    assert events == [("ADDED", "p1"), ("ADDED", "p2"), ("DELETED", "p2")]


def test_watch_from_a_resource_version_skips_older_objects(cluster: tuple[str, client.ApiClient]) -> None:
    core = client.CoreV1Api(cluster[1])
    core.create_namespaced_config_map("default", {"metadata": {"name": "old"}})
    rv = core.list_namespaced_config_map("default").metadata.resource_version
    core.create_namespaced_config_map("default", {"metadata": {"name": "new"}})
    events = [
        e["object"].metadata.name
        for e in watch.Watch().stream(
            core.list_namespaced_config_map, "default", resource_version=rv, timeout_seconds=1
        )
    ]
    assert events == ["new"]


def test_deleting_an_owner_deletes_its_dependents(cluster: tuple[str, client.ApiClient]) -> None:
    co, core = client.CustomObjectsApi(cluster[1]), client.CoreV1Api(cluster[1])
    job = co.create_namespaced_custom_object(
        "sagemaker.amazonaws.com",
        "v1",
        "default",
        "hyperpodpytorchjobs",
        {"apiVersion": "sagemaker.amazonaws.com/v1", "kind": "HyperPodPyTorchJob", "metadata": {"name": "j"}},
    )
    owner = {
        "apiVersion": "sagemaker.amazonaws.com/v1",
        "kind": "HyperPodPyTorchJob",
        "name": "j",
        "uid": job["metadata"]["uid"],
    }
    for name in ("j-worker-0", "j-worker-1"):
        core.create_namespaced_pod(
            "default",
            {
                "metadata": {"name": name, "ownerReferences": [owner]},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
        )
    core.create_namespaced_pod(
        "default", {"metadata": {"name": "unrelated"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    )
    co.delete_namespaced_custom_object("sagemaker.amazonaws.com", "v1", "default", "hyperpodpytorchjobs", "j")
    assert [p.metadata.name for p in core.list_namespaced_pod("default").items] == ["unrelated"]


def test_finalizers_hold_deletion_until_removed(cluster: tuple[str, client.ApiClient]) -> None:
    core = client.CoreV1Api(cluster[1])
    core.create_namespaced_config_map("default", {"metadata": {"name": "held", "finalizers": ["x/y"]}})
    core.delete_namespaced_config_map("held", "default")
    assert core.read_namespaced_config_map("held", "default").metadata.deletion_timestamp is not None
    core.patch_namespaced_config_map("held", "default", {"metadata": {"finalizers": None}})
    with pytest.raises(client.ApiException) as gone:
        core.read_namespaced_config_map("held", "default")
    assert gone.value.status == 404
