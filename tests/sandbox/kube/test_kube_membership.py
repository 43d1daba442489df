"""kmock's reactions see the same requests when the emulator decides membership from the request alone as
when kmock walks every recorded request: for each recorded request and each reaction, the same answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kmock._internal import dsl
from kubernetes import client

from sandbox.kube import KubeFleet, configuration, membership, mint_token


@pytest.fixture
def fleet() -> Iterator[KubeFleet]:
    fleet = KubeFleet()
    yield fleet
    fleet.stop_all()


def test_every_reaction_sees_the_requests_kmocks_walk_sees(fleet: KubeFleet) -> None:
    url = fleet.start_for("members")
    with client.ApiClient(configuration(url, mint_token("members"))) as api:
        core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
        core.create_namespace({"metadata": {"name": "team"}})
        core.create_namespaced_config_map("team", {"metadata": {"name": "c", "labels": {"a": "1"}}, "data": {}})
        core.list_namespaced_config_map("team", label_selector="a=1")
        core.read_namespaced_config_map("c", "team")
        core.patch_namespaced_config_map("c", "team", {"data": {"k": "v"}})
        with pytest.raises(client.ApiException):
            core.read_namespaced_config_map("missing", "team")
        apps.list_deployment_for_all_namespaces()
        core.delete_namespaced_config_map("c", "team")
        client.VersionApi(api).get_code()

    walk = dsl.View.__contains__.__wrapped__  # type: ignore[attr-defined]

    def compare(emulator):  # on the emulator's loop
        requests = list(emulator._requests)
        decided = 0
        for payload in emulator._payloads:
            for request in requests:
                fast = membership.member(payload._source, request)
                if fast is not membership._UNKNOWN:
                    decided += 1
                    assert fast == walk(payload._source, request), (payload, request)
        return len(requests), decided

    recorded, decided = fleet.call("members", compare)
    assert recorded >= 8
    assert decided >= recorded  # the reactions' views are decided without the walk
