"""The inference operator's emulated workload for a resource in a team's queue: a JumpStart model on a GPU
partition asks for that partition, and Kueue's queue and priority labels reach its Deployment and pods (so the
sandbox's Kueue queues the replicas)."""

from __future__ import annotations

from launchpod.contracts.inference import CreateEndpointInput
from launchpod.domain.inference import manifests

from sandbox.controllers import inference

BODY = {
    "endpoint": "ds",
    "kind": "jumpstart",
    "namespace": "hyperpod-ns-serving",
    "instanceType": "ml.p5.48xlarge",
    "queue": "hyperpod-ns-serving-localqueue",
    "priority": "inference-priority",
    "jumpstart": {"modelId": "deepseek-llm-r1-distill-qwen-1-5b", "acceleratorPartitionType": "mig-1g.10gb"},
}


def test_a_queued_jumpstart_model_on_a_partition_becomes_a_queued_deployment_asking_for_it():
    resource = manifests.jumpstart(CreateEndpointInput(name="c1", **BODY))
    resource["metadata"]["uid"] = "u-1"
    (deployment,), _service = inference._children("JumpStartModel", resource)
    template = deployment["spec"]["template"]
    for labels in (deployment["metadata"]["labels"], template["metadata"]["labels"]):
        assert labels["kueue.x-k8s.io/queue-name"] == "hyperpod-ns-serving-localqueue"
        assert labels["kueue.x-k8s.io/priority-class"] == "inference-priority"
    assert template["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/mig-1g.10gb": "1"}
