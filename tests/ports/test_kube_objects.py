"""The Kubernetes objects' contract: the in-memory fake (tests/fakes/kube.py) and adapters.k8s.apply on the
sandbox's emulated EKS API server answer each case alike: a missing object, an apply and its repeat, a
namespace that does not exist, a delete and its repeat, label selectors and the lists a raw GET reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from launchpod.adapters.k8s import apply
from launchpod.domain.errors import PermanentError

from tests.fakes.kube import Kube
from tests.ports.kube_support import emulated_cluster

CLUSTER = "c1"


@pytest.fixture(params=["fake", "emulator"])
def kube(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    if request.param == "fake":
        yield Kube()
        return
    with emulated_cluster(request, monkeypatch, "c-"):
        yield apply


def _namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _config_map(name: str, namespace: str = "default", **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "data": {"owner": "launchpod"},
    }


def _volume(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": {"launchpod.io/managed": "true"}},
        "spec": {
            "capacity": {"storage": "1200Gi"},
            "accessModes": ["ReadWriteMany"],
            "csi": {"driver": "s3.csi.aws.com", "volumeHandle": f"s3-{name}"},
        },
    }


def test_an_object_nobody_applied_reads_as_none(kube: Any) -> None:
    assert kube.read(CLUSTER, _config_map("ghost")) is None
    assert kube.read(CLUSTER, _volume("ghost")) is None
    assert kube.get(CLUSTER, apply.path_of(_config_map("ghost"))) is None


def test_an_applied_object_reads_back_with_what_was_applied(kube: Any) -> None:
    kube.apply(CLUSTER, _config_map("settings", team="research"))
    found = kube.read(CLUSTER, _config_map("settings"))
    assert found is not None
    assert (found["kind"], found["metadata"]["name"], found["metadata"]["namespace"]) == (
        "ConfigMap",
        "settings",
        "default",
    )
    assert found["metadata"]["labels"] == {"team": "research"} and found["data"] == {"owner": "launchpod"}
    kube.apply(CLUSTER, _volume("shared"))
    volume = kube.read(CLUSTER, {**_volume("shared"), "metadata": {"name": "shared", "namespace": "any"}})
    assert volume is not None and volume["spec"]["csi"]["volumeHandle"] == "s3-shared"  # cluster-scoped


def test_a_namespaced_object_is_found_only_in_its_namespace(kube: Any) -> None:
    kube.apply(CLUSTER, _namespace("team"))
    kube.apply(CLUSTER, _config_map("settings", "team"))
    assert kube.read(CLUSTER, _config_map("settings", "team")) is not None
    assert kube.read(CLUSTER, _config_map("settings", "default")) is None


def test_an_apply_into_a_namespace_that_does_not_exist_is_refused(kube: Any) -> None:
    with pytest.raises(PermanentError, match=r'namespaces \\?"missing\\?" not found'):
        kube.apply(CLUSTER, _config_map("settings", "missing"))
    kube.apply(CLUSTER, _namespace("missing"))
    kube.apply(CLUSTER, _config_map("settings", "missing"))
    assert kube.read(CLUSTER, _config_map("settings", "missing")) is not None


def test_applying_again_changes_what_the_second_apply_says(kube: Any) -> None:
    kube.apply(CLUSTER, _config_map("settings", team="research"))
    kube.apply(CLUSTER, {**_config_map("settings", team="serving"), "data": {"owner": "launchpod", "v": "2"}})
    found = kube.read(CLUSTER, _config_map("settings"))
    assert found is not None
    assert found["metadata"]["labels"] == {"team": "serving"} and found["data"] == {"owner": "launchpod", "v": "2"}


def test_a_delete_says_whether_there_was_something_to_delete(kube: Any) -> None:
    kube.apply(CLUSTER, _volume("shared"))
    assert kube.delete(CLUSTER, _volume("shared")) is True
    assert kube.read(CLUSTER, _volume("shared")) is None
    assert kube.delete(CLUSTER, _volume("shared")) is False


def test_a_label_selector_picks_by_value_presence_and_absence_in_every_namespace(kube: Any) -> None:
    kube.apply(CLUSTER, _namespace("team"))
    kube.apply(CLUSTER, _config_map("a", "default", app="x", tier="web"))
    kube.apply(CLUSTER, _config_map("b", "team", app="x"))
    kube.apply(CLUSTER, _config_map("c", "team", app="y"))

    def names(selector: str) -> list[str]:
        found = kube.list_labelled(CLUSTER, "v1", "ConfigMap", selector)
        assert {o["kind"] for o in found} <= {"ConfigMap"}
        return sorted(o["metadata"]["name"] for o in found)

    assert names("app=x") == ["a", "b"]
    assert names("app=x,tier") == ["a"]
    assert names("app,!tier") == ["b", "c"]
    assert names("app!=x") == ["c"]
    assert {"a", "b", "c"} <= set(names(""))


def test_a_kinds_path_lists_its_objects_in_one_namespace_or_in_all(kube: Any) -> None:
    kube.apply(CLUSTER, _namespace("team"))
    kube.apply(CLUSTER, _config_map("a", "default"))
    kube.apply(CLUSTER, _config_map("b", "team"))
    kube.apply(CLUSTER, _volume("shared"))

    def listed(path: str) -> list[str]:
        return sorted(o["metadata"]["name"] for o in (kube.get(CLUSTER, path) or {}).get("items", []))

    assert listed("/api/v1/namespaces/team/configmaps") == ["b"]
    assert "a" in listed("/api/v1/configmaps") and "b" in listed("/api/v1/configmaps")
    assert listed("/api/v1/persistentvolumes") == ["shared"]
    assert listed("/apis/apps/v1/namespaces/team/deployments") == []
