"""One cluster for the inference tests (REST, MCP and autoscaling): a GPU group (one ml.g5.12xlarge, four
GPUs), a CPU group and the shared bucket's claim. Made once per sandbox; the inference operator is turned on
by the first test that needs it, after checking that a managed endpoint is refused (409) until then."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.clusters import cluster_body
from tests.sandbox.http_support import next_step

NAME = "e2e-infer"
BODY = {
    **cluster_body(
        NAME,
        {"name": "gpu", "instanceType": "ml.g5.12xlarge", "instanceCount": 1},
        {"name": "cpu", "instanceType": "ml.m5.2xlarge", "instanceCount": 1},
    ),
    "storage": {"kind": "s3", "storageName": "shared", "namespace": "default"},
}
WORKER = {"image": "vllm/vllm-openai:v0.10.1", "gpus": 1, "args": ["--served-model-name", "qwen3"]}
MANAGED_BASE = {
    "kind": "managed",
    "instanceType": "ml.g5.12xlarge",
    "managed": {
        "storageName": "shared",
        "modelPath": "models/Qwen/Qwen3-0.6B",
        "worker": {**WORKER, "image": "lmcache/vllm-openai:v0.3.7"},
    },
}


def container_endpoint(endpoint: str, model: str = "q") -> dict:
    """A container endpoint of one vLLM replica on one of the GPU group's GPUs, serving ``model``."""
    return {
        "endpoint": endpoint,
        "kind": "container",
        "instanceType": "ml.g5.12xlarge",
        "replicas": 1,
        "container": {"worker": {**WORKER, "args": ["--served-model-name", model]}},
    }


def ready_cluster(sandbox) -> str:
    with sandbox.client("viewer") as c:
        if c.get(f"/api/clusters/{NAME}").status_code == 200:
            return NAME
    sandbox.provision(BODY, timeout=240)
    return NAME


def operator_enabled(sandbox) -> str:
    """The inference operator on the cluster: a managed endpoint is a 409 naming the feature until it is."""
    ready_cluster(sandbox)
    with sandbox.client("viewer") as c:
        items = c.get(f"/api/clusters/{NAME}/features").json()["items"]
    if next(f for f in items if f["name"] == "inferenceOperator")["status"] == "ACTIVE":
        return NAME
    refused = post(sandbox, "/endpoints", {**MANAGED_BASE, "endpoint": "too-early"})
    assert refused.status_code == 409, refused.text
    assert "Turn on the inference operator in the cluster's features" in refused.json()["message"]
    assert next_step(refused) == f'PATCH /api/clusters/{NAME}/features {{"inferenceOperator": {{"enabled": true}}}}'
    with sandbox.client() as c:
        response = c.patch(f"/api/clusters/{NAME}/features", json={"inferenceOperator": {"enabled": True}})
    assert response.status_code == 202, response.text
    done = sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    with sandbox.client("viewer") as c:
        items = c.get(f"/api/clusters/{NAME}/features").json()["items"]
    feature = next(f for f in items if f["name"] == "inferenceOperator")
    assert feature["enabled"] and feature["status"] == "ACTIVE", feature
    return NAME


def post(sandbox, path: str, body: dict, role: str = "operator"):
    with sandbox.client(role) as c:
        return c.post(f"/api/clusters/{NAME}{path}", json=body)


def settled(sandbox, seconds: float = 90) -> None:
    """Wait until every ReplicaSet's pod in the namespace belongs to a live Deployment. A deleted endpoint's operation
    ends when its objects are gone; Kubernetes' garbage collector removes their pods after that, and
    until it has, those pods still hold the GPU node's GPUs that the next endpoint asks for."""
    apps, core = k8s.AppsV1Api(sandbox.kube(NAME)), k8s.CoreV1Api(sandbox.kube(NAME))
    orphans: list[str] = []

    def none_left() -> bool:
        live = [d.metadata.name for d in apps.list_namespaced_deployment("default").items]
        owners = [
            (p.metadata.name, o.name)
            for p in core.list_namespaced_pod("default").items
            for o in p.metadata.owner_references or []
            if o.kind == "ReplicaSet"
        ]
        orphans[:] = [pod for pod, rs in owners if not any(rs.startswith(f"{d}-") for d in live)]
        return not orphans

    wait_until(none_left, seconds, reason=lambda: f"pods outlived their Deployments: {orphans}")


@contextlib.contextmanager
def cancelled_on_failure(sandbox, operation_id: str, endpoint: str | None = None) -> Iterator[None]:
    """A test that fails while its operation still runs cancels it (and deletes ``endpoint``, whose pods hold GPUs),
    so the shared cluster is not left busy (409) or full for every test after it in the group."""
    try:
        yield
    except BaseException:
        with sandbox.client("admin") as c:
            c.post(f"/api/operations/{operation_id}/cancel", json={"reason": "the test that started it failed"})
            if endpoint is not None:  # once the cancelled operation lets the cluster go; the test's failure is the news
                with contextlib.suppress(Exception, pytest.fail.Exception):
                    wait_until(
                        lambda: c.delete(f"/api/clusters/{NAME}/endpoints/{endpoint}").status_code in (202, 404),
                        reason=f"endpoint {endpoint} deleted after its test failed",
                    )
        raise


def deploy(sandbox, body: dict) -> dict:
    settled(sandbox)
    response = post(sandbox, "/endpoints", body)
    assert response.status_code == 202, response.text
    return sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)


def get(sandbox, endpoint: str) -> dict:
    """The endpoint's view; from a create's 202 on it is there (Deploying until its objects are applied)."""
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{NAME}/endpoints/{endpoint}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def view_until(sandbox, endpoint: str, check, seconds: float = 90) -> dict:
    """The endpoint's view once ``check(view)`` holds; the failure shows the view last seen."""
    last: dict = {}

    def there() -> dict | None:
        last.update(get(sandbox, endpoint))
        return dict(last) if check(last) else None

    return dict(wait_until(there, seconds, reason=lambda: f"endpoint {endpoint}: {last}"))


def gpu_nodes(sandbox) -> set[str]:
    nodes = k8s.CoreV1Api(sandbox.kube(NAME)).list_node().items
    return {
        n.metadata.name for n in nodes if n.metadata.labels.get("node.kubernetes.io/instance-type") == "ml.g5.12xlarge"
    }


def until(sandbox, endpoint: str, ready: int, desired: int, seconds: float = 90) -> dict:
    last: dict = {}

    def there() -> dict | None:
        last.update(get(sandbox, endpoint))
        return dict(last) if (last["readyReplicas"], last["desiredReplicas"]) == (ready, desired) else None

    return dict(wait_until(there, seconds, reason=lambda: f"{endpoint} not {ready}/{desired} ready: {last}"))


PROMETHEUS = ("prometheus", "prometheus-server")  # the prometheus-community/prometheus chart, release "prometheus"


def prometheus_installed(sandbox) -> None:
    """What installing Prometheus leaves for KEDA to query: its Service (prometheus-server:80 in namespace
    prometheus, the contract's default serverAddress). The query values themselves come from
    /api/sandbox/metrics."""
    namespace, name = PROMETHEUS
    core = k8s.CoreV1Api(sandbox.kube(NAME))
    if namespace not in [n.metadata.name for n in core.list_namespace().items]:
        core.create_namespace(k8s.V1Namespace(metadata=k8s.V1ObjectMeta(name=namespace)))
    if name not in [s.metadata.name for s in core.list_namespaced_service(namespace).items]:
        service = k8s.V1Service(
            metadata=k8s.V1ObjectMeta(name=name, namespace=namespace),
            spec=k8s.V1ServiceSpec(
                selector={"app.kubernetes.io/name": "prometheus"},
                ports=[k8s.V1ServicePort(name="http", port=80, target_port=9090)],
            ),
        )
        core.create_namespaced_service(namespace, service)


def prometheus_removed(sandbox) -> None:
    namespace, name = PROMETHEUS
    k8s.CoreV1Api(sandbox.kube(NAME)).delete_namespaced_service(name, namespace)
