"""Endpoint plans and views from the real objects: NOOP when the replicas match, an explicit diff when
not; Ready only with every replica and (for an NLB) its hostname; the scheduler's words when a pod waits,
the kubelet's and the server's last words when its container crash-loops."""

from __future__ import annotations

import pytest
from launchpod.contracts.inference import ScaleEndpointInput
from launchpod.domain.errors import Conflict
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


def _managed_on_cloudwatch(deployment_replicas: int, scaler_status: dict | None = None, event: str | None = None):
    auto = {
        "minReplicaCount": 1,
        "maxReplicaCount": 3,
        "cloudWatchTrigger": {
            "namespace": "LaunchpodTest",
            "metricName": "QueueDepth",
            "dimensions": [{"name": "Endpoint", "value": "qwen"}],
            "targetValue": 100,
            "metricStat": "Average",
        },
    }
    primary = {
        "metadata": {"name": "qwen", "namespace": "default"},
        "spec": {"replicas": 1, "modelSourceConfig": {"modelLocation": "m"}, "autoScalingSpec": auto},
        "status": {
            "replicas": deployment_replicas,
            "deploymentStatus": {"status": {"readyReplicas": deployment_replicas}},
        },
    }
    scaler = {"metadata": {"name": "qwen-scaled-object"}, "status": scaler_status or {}}
    return RealEndpoint(kind="managed", primary=primary, operator_scaler=scaler, scaler_event=event)


def test_a_cloudwatch_scaled_managed_endpoint_shows_keda_s_replicas_and_its_metric():
    view = endpoints.view("c1", _managed_on_cloudwatch(3, {"conditions": [{"type": "Ready", "status": "True"}]}))
    assert (view.readyReplicas, view.desiredReplicas, view.status) == (3, 3, "Ready")
    assert view.scaling == (
        "inference operator autoscaling 1-3 replicas on CloudWatch LaunchpodTest QueueDepth (Endpoint=qwen) Average"
        " (target 100 per replica)"
    )
    assert view.scalingError is None


VLLM_ERROR = "ValueError: Invalid repository ID or local directory specified: '/s3/models/qwen'."


def _crash_looping(state: dict, restarts: int) -> dict:
    """A model server's pod whose container exited with vLLM's error and is now in ``state``."""
    container = {
        "name": "server",
        "ready": False,
        "restartCount": restarts,
        "state": state,
        "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "message": VLLM_ERROR + "\n"}},
    }
    return {
        "metadata": {"name": "vllm-0", "labels": {"launchpod.io/role": "worker"}},
        "status": {
            "phase": "Running",
            "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}],
            "containerStatuses": [container],
        },
    }


def test_a_crash_looping_server_says_so_with_its_last_words():
    pod = _crash_looping({"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s restarting"}}, 3)
    status, message = endpoints.status_of(_container(0, pods=[pod]))
    assert status == "Deploying"
    assert message == f"container server in CrashLoopBackOff (restarted 3 times, last exit code 1): {VLLM_ERROR}"
    assert endpoints.view("c1", _container(0, pods=[pod])).pods[0].message == message


def test_a_crash_looping_server_running_again_for_a_moment_still_says_its_last_words():
    """Between two back-offs the container runs again, not ready: its last exit is what the user needs."""
    pod = _crash_looping({"running": {"startedAt": "2026-12-05T15:00:00Z"}}, 4)
    status, message = endpoints.status_of(_container(0, pods=[pod]))
    assert status == "Deploying"
    assert message == (
        f"container server restarted 4 times (last exit code 1), running again but not ready: {VLLM_ERROR}"
    )


def test_a_scaler_that_cannot_read_its_metric_is_reported_in_keda_s_words():
    failed = {"conditions": [{"type": "Ready", "status": "False", "reason": "TriggerError", "message": "not working"}]}
    event = "KEDAScalerFailed: api error AccessDenied: not authorized to perform: cloudwatch:GetMetricData"
    view = endpoints.view("c1", _managed_on_cloudwatch(1, failed, event))
    assert view.scalingError == f"TriggerError: not working; {event}"
    assert (view.readyReplicas, view.desiredReplicas) == (1, 1)


def test_an_autoscaled_managed_endpoint_refuses_replicas_by_hand():
    with pytest.raises(Conflict, match="scaled by KEDA"):
        endpoints.scale_plan(ScaleEndpointInput(name="c1", endpoint="qwen", replicas=2), _managed_on_cloudwatch(1))


def test_the_same_create_again_is_noop_and_a_changed_image_or_replicas_is_refused_naming_it():
    from launchpod.contracts.inference import CreateEndpointInput
    from launchpod.domain.inference import manifests

    body = {
        "name": "c1",
        "endpoint": "vllm",
        "kind": "container",
        "instanceType": "ml.g5.12xlarge",
        "container": {"worker": {"image": "vllm/vllm-openai:v1", "gpus": 1}},
    }
    made = CreateEndpointInput.model_validate(body)
    (primary, *_) = [o for o in manifests.objects(made, "b", "r", None) if o["kind"] == "Deployment"]
    real = RealEndpoint(kind="container", primary=primary)

    assert endpoints.create_plan(CreateEndpointInput.model_validate(body), real).empty
    other = {**body, "container": {"worker": {"image": "vllm/vllm-openai:v2", "gpus": 1}}}
    with pytest.raises(Conflict) as image:
        endpoints.create_plan(CreateEndpointInput.model_validate(other), real)
    assert [d["field"] for d in image.value.details] == ["body.container"] and "v2" in image.value.message
    with pytest.raises(Conflict) as replicas:
        endpoints.create_plan(CreateEndpointInput.model_validate({**body, "replicas": 3}), real)
    assert [d["field"] for d in replicas.value.details] == ["body.replicas"] and "PATCH" in replicas.value.message


def test_a_managed_endpoint_shows_its_metrics_collection_and_a_container_shows_none():
    primary = {
        "metadata": {"name": "qwen", "namespace": "default"},
        "spec": {"replicas": 1, "metrics": {"enabled": True, "modelMetrics": {"port": 8000}}},
        "status": {"deploymentStatus": {"status": {"readyReplicas": 1}}},
    }
    view = endpoints.view("c1", RealEndpoint(kind="managed", primary=primary))
    assert view.metrics is not None
    assert (view.metrics.enabled, view.metrics.scrapeIntervalSeconds, view.metrics.path, view.metrics.port) == (
        True,
        15,
        "/metrics",
        8000,
    )
    assert endpoints.view("c1", _container(1)).metrics is None


def test_an_in_cluster_prometheus_address_names_its_service_namespace_and_port():
    assert endpoints.prometheus_service("http://prometheus-server.prometheus.svc.cluster.local:80") == (
        "prometheus-server",
        "prometheus",
        80,
    )
    assert endpoints.prometheus_service("http://prom.monitoring.svc:9090") == ("prom", "monitoring", 9090)


def _pod(name: str, role: str, ready: bool) -> dict:
    condition = {"type": "Ready", "status": "True" if ready else "False"}
    return {
        "metadata": {"name": name, "labels": {"launchpod.io/role": role}},
        "status": {"phase": "Running" if ready else "Pending", "conditions": [condition]},
    }


def test_a_routed_endpoint_is_ready_only_once_its_router_is():
    real = _container(2, 2, pods=[_pod("sg-1", "worker", True), _pod("sg-2", "worker", True)])
    assert real.service is not None
    real.service["spec"]["selector"] = {"launchpod.io/endpoint": "sg", "launchpod.io/role": "router"}
    status, message = endpoints.status_of(real)
    assert status == "Deploying" and message is not None and "SGLang router" in message
    real.pods.append(_pod("sg-router-1", "router", True))
    assert endpoints.status_of(real) == ("Ready", None)


def test_a_pd_endpoint_is_ready_only_with_a_prefill_worker_and_shows_each_pod_s_side():
    def side(pod: dict, pd: str) -> dict:
        pod["metadata"]["labels"]["launchpod.io/pd-role"] = pd
        return pod

    decode = side(_pod("sg-1", "worker", True), "decode")
    real = _container(1, 1, pods=[decode, _pod("sg-router-1", "router", True)])
    real.primary["spec"]["template"]["metadata"] = {"labels": {"launchpod.io/pd-role": "decode"}}
    status, message = endpoints.status_of(real)
    assert status == "Deploying" and message is not None and "prefill worker" in message
    real.pods.append(side(_pod("sg-prefill-1", "worker", True), "prefill"))
    assert endpoints.status_of(real) == ("Ready", None)
    assert [p.role for p in endpoints.view("c1", real).pods] == ["decode", "router", "prefill"]
    assert "Deployment default/vllm-prefill" in [s.target for s in endpoints.delete_plan("c1", real).steps]
