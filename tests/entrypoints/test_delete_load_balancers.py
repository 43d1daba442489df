"""delete-cluster's DeleteLoadBalancers: the LoadBalancer Services and ALB Ingresses of a cluster Launchpod
created are deleted and waited for; another cluster's are left alone; a cluster whose API refuses Launchpod
does not stop the rest of the delete."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.adapters.k8s import apply as k8s
from launchpod.adapters.k8s import listing
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import ownership
from launchpod.domain.clusters import teardown
from launchpod.domain.errors import PermanentError
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.delete_cluster import DELETE_LOAD_BALANCERS, delete_load_balancers

from tests.entrypoints.fakes import phase_input
from tests.fakes.eks import Eks

CHAT = {"metadata": {"name": "chat", "namespace": "default"}, "spec": {"type": "LoadBalancer"}}
DNS = {"metadata": {"name": "kube-dns", "namespace": "kube-system"}, "spec": {"type": "ClusterIP"}}


@pytest.fixture
def world(monkeypatch):
    state: dict[str, Any] = {
        "eks": {"arn": "arn:aws:eks:us-east-1:123456789012:cluster/c1", "status": "ACTIVE"},
        "Service": [CHAT, DNS],
        "Ingress": [],
        "IngressClass": [],
        "deleted": [],
        "refuse": None,
    }
    state["eks"]["tags"] = ownership.aws_tags("c1", settings().resource_prefix)
    monkeypatch.setattr(wiring, "eks", lambda: Eks({"c1": state["eks"]}))

    def items(cluster: str, kind: str) -> list[dict[str, Any]]:
        if state["refuse"]:
            raise PermanentError(state["refuse"])
        return list(state[kind])

    def delete(cluster: str, obj: dict[str, Any]) -> bool:
        state["deleted"].append(obj["metadata"]["name"])
        obj["metadata"]["deletionTimestamp"] = "now"  # the controller's finalizer holds it
        return True

    monkeypatch.setattr(listing, "items", items)
    monkeypatch.setattr(k8s, "delete", delete)
    return state


def _doc(polls: int = 0) -> WorkflowInput:
    return phase_input("delete-cluster", {}, {DELETE_LOAD_BALANCERS: polls})


def test_load_balancer_services_are_deleted_once_and_waited_for_until_gone(world):
    first = delete_load_balancers(_doc())
    assert first.ready is False and "Service default/chat" in first.message
    assert delete_load_balancers(_doc(1)).ready is False and world["deleted"] == [
        "chat"
    ]  # terminating: not deleted again
    world["Service"] = [DNS]  # the controller removed the NLB and its finalizer
    done = delete_load_balancers(_doc(2))
    assert (done.ready, done.message) == (True, "The load balancers are gone.")


def test_a_load_balancer_the_controller_never_removes_fails_the_phase_saying_what_to_check(world):
    with pytest.raises(PermanentError, match="kube-system/aws-load-balancer-controller"):
        delete_load_balancers(_doc(teardown.MAX_LB_POLLS))


def test_another_clusters_services_are_left_alone(world):
    world["eks"]["tags"] = {}
    assert delete_load_balancers(_doc()).skipped and world["deleted"] == []


def test_an_api_that_refuses_launchpod_does_not_stop_the_delete(world):
    world["refuse"] = "GET /api/v1/services on c1 was rejected: 403 Forbidden"
    result = delete_load_balancers(_doc())
    assert result.skipped and "403 Forbidden" in result.message and world["deleted"] == []
