"""What the simulated controllers read from the store: each resource's live objects, including one added or
deleted since the last read, in one namespace or all, and copies a controller may change without changing the
store (the store finds a resource's objects without walking the others, and copies by a pickle round trip)."""

from __future__ import annotations

from typing import Any

from tests.sandbox.kube.support import one_cluster, put

CLUSTER = "store-lists"


def _cm(name: str, namespace: str, value: str = "v") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace}, "data": {"k": value, "nested": {"list": [1, 2]}}}


def _names(fleet: Any, resource: str, namespace: str | None = None) -> list[str]:
    return fleet.call(CLUSTER, lambda emu: [o["metadata"]["name"] for o in emu.list_objects(resource, namespace)])


def test_a_list_sees_what_came_and_went_since_the_last_one() -> None:
    with one_cluster(CLUSTER) as fleet:
        put(fleet, CLUSTER, "v1/namespaces", {"metadata": {"name": "team-a"}})
        put(fleet, CLUSTER, "v1/configmaps", _cm("one", "default"))
        assert _names(fleet, "v1/configmaps") == ["one"]
        put(fleet, CLUSTER, "v1/configmaps", _cm("two", "team-a"))
        put(fleet, CLUSTER, "v1/secrets", {"metadata": {"name": "s", "namespace": "default"}, "data": {}})
        assert _names(fleet, "v1/configmaps") == ["one", "two"]
        assert _names(fleet, "v1/configmaps", "team-a") == ["two"]
        assert _names(fleet, "v1/secrets") == ["s"]

        async def delete(emu: Any) -> None:
            await emu.delete_object("v1/configmaps", "default", "one")

        fleet.call(CLUSTER, delete)
        assert _names(fleet, "v1/configmaps") == ["two"]
        put(fleet, CLUSTER, "v1/configmaps", _cm("one", "default", "again"))
        assert _names(fleet, "v1/configmaps") == ["one", "two"]  # the name's key keeps its place
        again = fleet.call(CLUSTER, lambda emu: emu.get_object("v1/configmaps", "default", "one"))
        assert again["data"]["k"] == "again"


def test_a_listed_copy_changed_by_a_controller_leaves_the_store_as_it_was() -> None:
    with one_cluster(CLUSTER) as fleet:
        put(fleet, CLUSTER, "v1/configmaps", _cm("one", "default"))

        def change(emu: Any) -> None:
            (listed,) = emu.list_objects("v1/configmaps")
            listed["data"]["nested"]["list"].append(3)
            emu.get_object("v1/configmaps", "default", "one")["data"]["k"] = "changed"

        fleet.call(CLUSTER, change)
        stored = fleet.call(CLUSTER, lambda emu: emu.get_object("v1/configmaps", "default", "one"))
        assert stored["data"] == {"k": "v", "nested": {"list": [1, 2]}}
