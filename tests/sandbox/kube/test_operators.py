"""Operators Launchpod installs start on the emulated cluster only as they would on a real one: KubeRay
crash-loops without a CRD it watches or a list/watch its informers need, and runs with what it ships."""

from __future__ import annotations

import json
import time

import pytest
from launchpod.domain.dependencies import objects

from tests.sandbox.aws.support import wait_until
from tests.sandbox.kube.support import one_cluster, only_pod, put, ready_node

# The ClusterRole Launchpod installed for KubeRay before it took the upstream rules.
OLD_RULES = [
    {
        "apiGroups": ["ray.io"],
        "resources": ["rayclusters", "rayjobs", "rayservices", "rayclusters/status", "rayjobs/status"],
        "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
    },
    {
        "apiGroups": [""],
        "resources": ["pods", "services", "serviceaccounts", "events", "endpoints"],
        "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
    },
    {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["create", "delete", "get", "list", "patch", "watch"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create", "get", "list", "update"]},
]
CLUSTER = "ray"
PLURALS = {
    "CustomResourceDefinition": "apiextensions.k8s.io/v1/customresourcedefinitions",
    "Namespace": "v1/namespaces",
    "ServiceAccount": "v1/serviceaccounts",
    "ClusterRole": "rbac.authorization.k8s.io/v1/clusterroles",
    "ClusterRoleBinding": "rbac.authorization.k8s.io/v1/clusterrolebindings",
    "Role": "rbac.authorization.k8s.io/v1/roles",
    "RoleBinding": "rbac.authorization.k8s.io/v1/rolebindings",
    "Deployment": "apps/v1/deployments",
}

NODE = ready_node(
    "hyperpod-i-0abc",
    {"sagemaker.amazonaws.com/compute-type": "hyperpod"},
    {"cpu": "7910m", "memory": "30Gi", "pods": "58"},
)


@pytest.fixture
def fleet():
    # the operator's 2-minute cache-sync wait lasts 0.12 s
    with one_cluster(CLUSTER, time_scale=0.001) as fleet:
        put(fleet, CLUSTER, "v1/nodes", NODE)
        yield fleet


def _install(fleet, built):
    async def install(emu):
        for obj in built:
            await emu.put_object(PLURALS[obj["kind"]], obj)

    fleet.call(CLUSTER, install)


def _kuberay(*, old: bool = False) -> list[dict]:
    built = objects.kuberay_operator("v1.7.0", "us-east-1")
    if not old:
        return built
    built = [o for o in built if o["metadata"]["name"] != "rayservices.ray.io" and o["kind"] != "Role"]
    for o in built:
        if o["kind"] == "ClusterRole":
            o["rules"] = OLD_RULES
    return built


def _pod(fleet) -> dict:
    return only_pod(fleet, CLUSTER, "kuberay-operator")


def _deployment(fleet) -> dict:
    return fleet.call(CLUSTER, lambda e: e.get_object("apps/v1/deployments", "kuberay-operator", "kuberay-operator"))


def _crash_looping(fleet, restarts: int) -> dict:
    last: dict = {}

    def looping() -> dict | None:
        last.update(_pod(fleet)["status"]["containerStatuses"][0])
        return dict(last) if "waiting" in last["state"] and last["restartCount"] >= restarts else None

    # every 10 ms: the emulator's clock runs fast here, and a restart is a moment
    return dict(
        wait_until(
            looping, 10, interval=0.01, reason=lambda: f"never CrashLoopBackOff with {restarts} restarts: {last}"
        )
    )


def test_yesterdays_kuberay_install_crash_loops_with_the_operators_own_errors(fleet):
    _install(fleet, _kuberay(old=True))
    status = _crash_looping(fleet, restarts=2)
    assert status["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert status["state"]["waiting"]["message"].startswith("back-off ")
    assert "restarting failed container=kuberay-operator" in status["state"]["waiting"]["message"]
    assert status["lastState"]["terminated"]["exitCode"] == 1
    assert _deployment(fleet)["status"]["readyReplicas"] == 0
    pod = _pod(fleet)["metadata"]["name"]
    log = fleet.call(CLUSTER, lambda emu: emu.pod_logs[("kuberay-operator", pod, "kuberay-operator")])
    lines = [json.loads(line) for line in log.splitlines()]
    assert {
        "kind": "RayService.ray.io",
        "error": 'no matches for kind "RayService" in version "ray.io/v1"',
    }.items() <= lines[0].items()
    forbidden = [line["error"] for line in lines if line["msg"] == "Failed to watch"]
    assert any(
        'secrets is forbidden: User "system:serviceaccount:kuberay-operator:kuberay-operator" cannot list resource '
        '"secrets" in API group "" at the cluster scope' in e
        for e in forbidden
    )
    assert any('"persistentvolumeclaims" in API group ""' in e for e in forbidden)
    assert lines[-1]["msg"] == "problem running manager"
    assert "failed to wait for rayservice caches to sync" in lines[-1]["error"]


def test_the_kuberay_install_with_its_crds_and_upstream_role_runs_without_restarts(fleet):
    _install(fleet, _kuberay())
    time.sleep(0.4)  # 400 simulated seconds: past two cache-sync timeouts
    status = _pod(fleet)["status"]["containerStatuses"][0]
    assert "running" in status["state"] and status["ready"] is True and status["restartCount"] == 0
    assert _deployment(fleet)["status"]["readyReplicas"] == 1


def test_a_crash_looping_kuberay_recovers_once_the_missing_crd_and_rules_are_applied(fleet):
    _install(fleet, _kuberay(old=True))
    _crash_looping(fleet, restarts=1)
    _install(fleet, _kuberay())
    restarts = _pod(fleet)["status"]["containerStatuses"][0]["restartCount"]  # the next tick sees the fix
    time.sleep(0.6)  # past the longest back-off that can be pending (5 minutes simulated is 0.3 s)
    status = _pod(fleet)["status"]["containerStatuses"][0]
    assert "running" in status["state"] and status["restartCount"] in (restarts, restarts + 1)
    time.sleep(0.3)
    assert _pod(fleet)["status"]["containerStatuses"][0]["restartCount"] == status["restartCount"]
    assert _deployment(fleet)["status"]["readyReplicas"] == 1
