"""The inference operator's emulated translation of autoScalingSpec: a KEDA ScaledObject on its Deployment that
validates against KEDA's CRD, with the aws-cloudwatch trigger's metadata as KEDA's scaler reads it; and KEDA's
replica arithmetic."""

from __future__ import annotations

from launchpod.contracts.inference import CreateEndpointInput
from launchpod.domain.inference import manifests

from sandbox.controllers import keda
from tests import manifests as schemas
from tests.inference_bodies import managed_qwen

BODY = managed_qwen(
    {"image": "vllm/vllm-openai:v0.10.1", "gpus": 1},
    autoscaling={
        "minReplicas": 1,
        "maxReplicas": 3,
        "cloudWatch": {
            "namespace": "AWS/SageMaker",
            "metricName": "Invocations",
            "dimensions": [{"name": "EndpointName", "value": "qwen"}, {"name": "VariantName", "value": "All"}],
            "targetValue": 10.5,
            "period": 60,
        },
    },
)


def _resource() -> dict:
    made = manifests.managed(CreateEndpointInput(name="c1", **BODY), "bucket", "us-east-1", None)
    made["metadata"]["uid"] = "u-1"
    return made


def test_the_operator_s_scaled_object_targets_its_deployment_and_validates_against_keda_s_crd():
    scaled = keda.operator_scaled_object(_resource(), "InferenceEndpointConfig", manifests.GROUP_VERSION, "us-east-1")
    assert scaled is not None and schemas.errors(scaled) == []
    assert scaled["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "qwen"}
    assert (scaled["spec"]["minReplicaCount"], scaled["spec"]["maxReplicaCount"]) == (1, 3)
    assert scaled["metadata"]["ownerReferences"][0]["uid"] == "u-1"
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "aws-cloudwatch" and trigger["metricType"] == "AverageValue"
    assert trigger["metadata"] == {
        "namespace": "AWS/SageMaker",
        "metricName": "Invocations",
        "dimensionName": "EndpointName;VariantName",
        "dimensionValue": "qwen;All",
        "targetMetricValue": "10.5",
        "minMetricValue": "0",
        "activationTargetMetricValue": "0",
        "metricStat": "Average",
        "metricStatPeriod": "60",
        "metricCollectionTime": "300",
        "awsRegion": "us-east-1",
        "identityOwner": "operator",
    }


def test_no_trigger_no_scaled_object():
    resource = _resource()
    resource["spec"].pop("autoScalingSpec")
    assert keda.operator_scaled_object(resource, "InferenceEndpointConfig", manifests.GROUP_VERSION, "r") is None


def test_keda_gives_ceil_of_value_over_target_within_the_range():
    assert keda.desired_replicas(250, 100, 1, 3) == 3
    assert keda.desired_replicas(1000, 100, 1, 3) == 3
    assert keda.desired_replicas(20, 100, 1, 3) == 1
    assert keda.desired_replicas(0, 100, 0, 3) == 0


class _Cluster:
    """The emulated API server's Services, by (namespace, name)."""

    def __init__(self, services: set[tuple[str, str]]) -> None:
        self.services = services

    def get_object(self, resource: str, namespace: str, name: str) -> dict | None:
        assert resource == "v1/services"
        return {"metadata": {"name": name}} if (namespace, name) in self.services else None


def test_a_prometheus_address_with_no_service_behind_it_fails_as_keda_s_query_does():
    meta = {"serverAddress": "http://prometheus-server.prometheus.svc.cluster.local:80", "query": "sum(up)"}
    keda.keda_state().metrics[("c-prom", "sum(up)")] = 7
    try:
        try:
            keda.prometheus_value(_Cluster(set()), "c-prom", meta)
        except keda.ScalerError as exc:
            words = str(exc)
        else:
            raise AssertionError("a name with no Service resolved")
        assert words.startswith('error executing prometheus query: Get "http://prometheus-server.prometheus')
        assert words.endswith(
            "dial tcp: lookup prometheus-server.prometheus.svc.cluster.local on 10.100.0.10:53: no such host"
        )
        assert keda.prometheus_value(_Cluster({("prometheus", "prometheus-server")}), "c-prom", meta) == 7
        # an AMP workspace the inference operator queries is outside the cluster: not resolved here
        amp = {"serverAddress": "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-1", "query": "sum(up)"}
        assert keda.prometheus_value(_Cluster(set()), "c-prom", amp) == 7
    finally:
        keda.keda_state().metrics.pop(("c-prom", "sum(up)"))
