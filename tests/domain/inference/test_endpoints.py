"""Endpoint plans and views from the real objects: NOOP when the replicas match, an explicit diff when
not; Ready only with every replica and (for an NLB) its hostname; the scheduler's words when a pod waits."""

from __future__ import annotations

from launchpod.contracts.inference import ScaleEndpointInput
from launchpod.domain.inference import endpoints
from launchpod.domain.inference.endpoints import RealEndpoint


def _container(ready: int, replicas: int = 1, lb: bool = False, hostname: str | None = None, pods=()) -> RealEndpoint:
    primary = {
        "metadata": {"name": "vllm", "namespace": "default"},
        "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"image": "vllm/vllm-openai:v1"}]}}},
        "status": {"readyReplicas": ready},
    }
    service = {
        "metadata": {"name": "vllm"},
        "spec": {"type": "LoadBalancer" if lb else "ClusterIP", "ports": [{"port": 8000}]},
        "status": {"loadBalancer": {"ingress": [{"hostname": hostname}]}} if hostname else {},
    }
    return RealEndpoint(kind="container", primary=primary, service=service, pods=list(pods))


def test_scaling_to_the_same_replicas_is_noop_and_otherwise_one_explicit_step():
    real = _container(1, 2)
    assert endpoints.scale_plan(ScaleEndpointInput(name="c1", endpoint="vllm", replicas=2), real).empty
    (step,) = endpoints.scale_plan(ScaleEndpointInput(name="c1", endpoint="vllm", replicas=3), real).steps
    assert step.reason == "replicas is 2; the request asks for 3"


def test_a_load_balanced_endpoint_is_ready_only_with_its_hostname():
    assert endpoints.status_of(_container(1, lb=True)) == ("Deploying", "waiting for the load balancer's hostname")
    ready = _container(1, lb=True, hostname="k8s-x.elb.us-east-1.amazonaws.com")
    assert endpoints.status_of(ready) == ("Ready", None)
    assert endpoints.url_of(ready) == "http://k8s-x.elb.us-east-1.amazonaws.com:8000"
    assert endpoints.url_of(_container(1)) == "http://vllm.default.svc.cluster.local:8000"


def test_a_waiting_pod_says_why():
    pod = {
        "metadata": {"name": "vllm-0"},
        "status": {
            "phase": "Pending",
            "conditions": [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "message": "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
                }
            ],
        },
    }
    status, message = endpoints.status_of(_container(0, pods=[pod]))
    assert status == "Deploying" and "Insufficient nvidia.com/gpu" in message
    view = endpoints.view("c1", _container(0, pods=[pod]))
    assert view.pods[0].phase == "Pending" and not view.pods[0].ready and view.model == "vllm/vllm-openai:v1"
