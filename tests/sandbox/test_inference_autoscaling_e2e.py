"""A managed endpoint that autoscales on a CloudWatch metric, through the sandbox: the inference operator makes
a KEDA ScaledObject on its Deployment, KEDA reads the metric with cloudwatch:GetMetricData as the operator's role
(the metric is what the test put in CloudWatch) and the replicas follow it, 1 -> 3 -> 1. Without the grant the
scaler fails, nothing scales, and GET /endpoints/{endpoint} says why in KEDA's and IAM's words."""

from __future__ import annotations

import datetime
import json

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.inference_support import (
    MANAGED_BASE,
    NAME,
    deploy,
    get,
    gpu_nodes,
    operator_enabled,
    post,
    until,
)

pytestmark = pytest.mark.e2e

METRIC_NAMESPACE, METRIC = "LaunchpodTest/Inference", "QueueDepth"
POLICY = "launchpod-inference-operator"


def _body(endpoint: str) -> dict:
    trigger = {
        "namespace": METRIC_NAMESPACE,
        "metricName": METRIC,
        "dimensions": [{"name": "Endpoint", "value": endpoint}],
        "targetValue": 100,
        "period": 60,
    }
    managed = {**MANAGED_BASE["managed"], "autoscaling": {"minReplicas": 1, "maxReplicas": 3, "cloudWatch": trigger}}
    return {**MANAGED_BASE, "endpoint": endpoint, "managed": managed}


def _put_metric(sandbox, endpoint: str, value: float, seconds_ago: int = 0) -> None:
    """One datapoint, stamped ``seconds_ago``: KEDA takes the newest 60 s period's average, so a burst two
    minutes ago and a lull now fall in different periods."""
    at = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=seconds_ago)
    sandbox.aws("cloudwatch").put_metric_data(
        Namespace=METRIC_NAMESPACE,
        MetricData=[
            {
                "MetricName": METRIC,
                "Dimensions": [{"Name": "Endpoint", "Value": endpoint}],
                "Value": value,
                "Timestamp": at,
            }
        ],
    )


def _scaled_objects(sandbox) -> list[dict]:
    found = k8s.CustomObjectsApi(sandbox.kube(NAME)).list_namespaced_custom_object(
        "keda.sh", "v1alpha1", "default", "scaledobjects"
    )
    return list(found["items"])


def _delete(sandbox, endpoint: str) -> None:
    with sandbox.client("operator") as c:
        deleted = c.delete(f"/api/clusters/{NAME}/endpoints/{endpoint}")
    if deleted.status_code == 202:
        assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"


@pytest.fixture(scope="module")
def operator_on(sandbox):
    return operator_enabled(sandbox)


def test_a_managed_endpoint_scales_one_to_three_to_one_on_a_cloudwatch_metric(sandbox, operator_on):
    done = deploy(sandbox, _body("qwen-cw"))
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    view = get(sandbox, "qwen-cw")
    assert (view["status"], view["readyReplicas"], view["desiredReplicas"]) == ("Ready", 1, 1), view
    assert "CloudWatch LaunchpodTest/Inference QueueDepth (Endpoint=qwen-cw)" in view["scaling"], view
    (scaled,) = [s for s in _scaled_objects(sandbox) if s["spec"]["scaleTargetRef"]["name"] == "qwen-cw"]
    trigger = scaled["spec"]["triggers"][0]
    assert trigger["type"] == "aws-cloudwatch" and trigger["metadata"]["identityOwner"] == "operator", trigger
    assert (trigger["metadata"]["dimensionName"], trigger["metadata"]["dimensionValue"]) == ("Endpoint", "qwen-cw")

    _put_metric(sandbox, "qwen-cw", 250, seconds_ago=120)  # ceil(250 / 100) = 3 replicas
    view = until(sandbox, "qwen-cw", 3, 3)
    assert (view["readyReplicas"], view["desiredReplicas"], view["scalingError"]) == (3, 3, None), view
    assert {p["kubernetesNode"] for p in view["pods"]} <= gpu_nodes(sandbox)
    _put_metric(sandbox, "qwen-cw", 20)  # the newest period: ceil(20 / 100) = 1
    view = until(sandbox, "qwen-cw", 1, 1)
    assert (view["readyReplicas"], view["desiredReplicas"]) == (1, 1), view

    with sandbox.client("operator") as c:
        by_hand = c.patch(f"/api/clusters/{NAME}/endpoints/qwen-cw", json={"replicas": 2})
    assert by_hand.status_code == 409 and "KEDA" in by_hand.json()["message"], by_hand.text
    _delete(sandbox, "qwen-cw")
    wait_until(
        lambda: not any(s["spec"]["scaleTargetRef"]["name"] == "qwen-cw" for s in _scaled_objects(sandbox)),
        90,
        reason="the operator's ScaledObject outlived its InferenceEndpointConfig",
    )


def test_without_get_metric_data_the_scaler_fails_nothing_scales_and_the_endpoint_says_why(sandbox, operator_on):
    iam = sandbox.aws("iam")
    role = next(r for r in sandbox.role_names() if r.endswith(f"{NAME}-inference-operator"))
    policy = iam.get_role_policy(RoleName=role, PolicyName=POLICY)["PolicyDocument"]
    kept = [s for s in policy["Statement"] if "cloudwatch:GetMetricData" not in s["Action"]]
    assert len(kept) == len(policy["Statement"]) - 1, policy
    iam.put_role_policy(RoleName=role, PolicyName=POLICY, PolicyDocument=json.dumps({**policy, "Statement": kept}))
    try:
        done = deploy(sandbox, _body("qwen-cw-denied"))
        assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
        _put_metric(sandbox, "qwen-cw-denied", 250)
        view = wait_until(
            lambda: (v := get(sandbox, "qwen-cw-denied")).get("scalingError") and v,
            90,
            reason="qwen-cw-denied never told its scaling error",
        )
        error = view.get("scalingError") or ""
        assert error.startswith("TriggerError: Triggers defined in ScaledObject are not working correctly"), view
        assert "not authorized to perform: cloudwatch:GetMetricData" in error and role in error, view
        assert (view["readyReplicas"], view["desiredReplicas"]) == (1, 1), view
        deployment = k8s.AppsV1Api(sandbox.kube(NAME)).read_namespaced_deployment("qwen-cw-denied", "default")
        assert deployment.spec.replicas == 1
    finally:
        iam.put_role_policy(RoleName=role, PolicyName=POLICY, PolicyDocument=json.dumps(policy))
        _delete(sandbox, "qwen-cw-denied")


def test_a_container_endpoint_refuses_a_cloudwatch_trigger_with_what_to_send(sandbox, operator_on):
    body = {
        "endpoint": "vllm-cw",
        "kind": "container",
        "instanceType": "ml.g5.12xlarge",
        "container": {
            "worker": MANAGED_BASE["managed"]["worker"],
            "autoscaling": _body("x")["managed"]["autoscaling"],
        },
    }
    refused = post(sandbox, "/endpoints", body)
    assert refused.status_code == 422, refused.text
    assert "a CloudWatch trigger is for kind managed" in refused.json()["message"], refused.text


def test_a_managed_prometheus_trigger_without_a_workspace_is_planned_and_a_server_address_is_refused(
    sandbox, operator_on
):
    """The REST body's serverAddress default (for container endpoints) is not one the caller sent: a managed
    endpoint on a Prometheus query with no AMP workspace plans (the operator's default workspace); one that does
    send an in-cluster serverAddress is told to send ampWorkspaceUrl."""
    prometheus = {"query": "sum(rate(vllm:request_success_total[1m]))", "targetValue": 5}
    managed = {**MANAGED_BASE["managed"], "autoscaling": {"minReplicas": 1, "maxReplicas": 2, "prometheus": prometheus}}
    body = {**MANAGED_BASE, "endpoint": "qwen-prom", "managed": managed}
    planned = post(sandbox, "/endpoints?dryRun=true", body)
    assert planned.status_code == 200, planned.text
    steps = [(s["action"], s["target"]) for s in planned.json()["steps"]]
    assert steps == [("create", "InferenceEndpointConfig default/qwen-prom")], planned.text

    sent = {**prometheus, "serverAddress": "http://prometheus-server.prometheus.svc.cluster.local:80"}
    body["managed"] = {**managed, "autoscaling": {**managed["autoscaling"], "prometheus": sent}}
    refused = post(sandbox, "/endpoints?dryRun=true", body)
    assert refused.status_code == 422, refused.text
    assert "send autoscaling.prometheus.ampWorkspaceUrl" in refused.json()["message"], refused.text
