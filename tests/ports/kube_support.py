"""The emulated Kubernetes side of the Kubernetes ports' contract tests: an API server of the module's fleet
(the ``fleet`` fixture in conftest.py) for one test, and how a core object comes to exist on it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kubernetes import client as k8s

from sandbox.kube import KubeFleet, configuration, mint_token

Seed = Callable[[str, dict[str, Any]], None]


@contextlib.contextmanager
def emulated_cluster(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, prefix: str
) -> Iterator[k8s.ApiClient]:
    """An emulated EKS API server of the module's fleet for this test alone (named after it), which the
    adapters reach through ``k8s_client_for``; stopped when the test ends."""
    fleet: KubeFleet = request.getfixturevalue("fleet")
    name = cluster_name(request, prefix)
    api = k8s.ApiClient(configuration(fleet.start_for(name), mint_token(name)))
    monkeypatch.setattr("launchpod.adapters.k8s.client.k8s_client_for", lambda cluster: api)
    try:
        yield api
    finally:
        api.close()
        fleet.stop(name)


def cluster_name(request: pytest.FixtureRequest, prefix: str) -> str:
    """The name of the test's emulated cluster: the prefix and the test's name, as an RFC 1123 label."""
    return prefix + request.node.name.replace("_", "-").replace("[", "-").replace("]", "")[-40:].strip("-")


def core_seeder(api: k8s.ApiClient) -> Seed:
    """How a core object (a Node, or a namespaced Pod or Event) comes to exist on the cluster, as a node
    joining or a controller would create it."""
    core = k8s.CoreV1Api(api)

    def seed(kind: str, obj: dict[str, Any]) -> None:
        body = {"apiVersion": "v1", "kind": kind, **obj}
        if kind == "Node":
            core.create_node(body)
        else:
            getattr(core, f"create_namespaced_{kind.lower()}")(obj["metadata"].get("namespace"), body)

    return seed
