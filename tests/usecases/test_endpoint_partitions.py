"""Endpoints on GPU partitions (MIG) with in-memory ports: a replica asks for nvidia.com/mig-<profile> in its
worker's resources (a JumpStart model for spec.server.acceleratorPartitionType), a profile the type's GPU lacks
is refused naming those it offers, and the dry run says how many replicas the nodes' free partitions hold."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from launchpod.contracts.inference import CreateEndpointInput
from launchpod.domain.errors import InvalidInput
from launchpod.domain.inference import manifests
from pydantic import ValidationError

from tests.fakes.sagemaker import SageMaker
from tests.usecases import test_inference as base

cases, WHO = base.cases, base.WHO
GROUPS = {"InstanceGroups": [{"InstanceGroupName": "mig", "InstanceType": "ml.p5.48xlarge"}]}
PART = "nvidia.com/mig-1g.10gb"


def _node(name: str, free: int) -> dict[str, Any]:
    labels = {manifests.INSTANCE_TYPE_LABEL: "ml.p5.48xlarge"}
    allocatable = {"nvidia.com/gpu": "0", PART: str(free)}
    return {"metadata": {"name": name, "labels": labels}, "status": {"allocatable": allocatable}}


def _held(node: str, count: int) -> dict[str, Any]:
    container = {"name": "c", "resources": {"limits": {PART: str(count)}}}
    return {"metadata": {"name": f"p-{node}"}, "spec": {"nodeName": node, "containers": [container]}}


def _ports(lists: dict[str, list[dict[str, Any]]]) -> Any:
    return replace(base._ports(lists=lists), hyperpods=SageMaker({"c1": GROUPS}))


def _body(replicas: int, partition: dict[str, Any]) -> dict[str, Any]:
    return {
        "endpoint": "small",
        "kind": "container",
        "instanceType": "ml.p5.48xlarge",
        "replicas": replicas,
        "container": {"worker": {"image": "vllm/vllm-openai:v0.10.1", "gpus": 0, "acceleratorPartition": partition}},
    }


def test_replicas_on_partitions_ask_for_them_and_the_dry_run_says_how_many_fit() -> None:
    """One node with 7 of its 1g.10gb partitions free (49 held): replicas of 2 fit 3; four asked, one waits."""
    ports = _ports({"Node": [_node("n1", 56)], "Pod": [_held("n1", 49)]})
    request = CreateEndpointInput(name="c1", **_body(4, {"type": "mig-1g.10gb", "count": 2}))
    (warning,) = cases.create(request, who=WHO, ports=ports).plan.warnings
    assert warning.startswith("3 of 4 replicas of small fit now: each asks for 2 mig-1g.10gb partition(s)")
    assert "7 of 56 mig-1g.10gb partitions free" in warning
    (deployment, _service) = manifests.container(request)
    (server,) = deployment["spec"]["template"]["spec"]["containers"]
    assert server["resources"]["limits"] == {"memory": "16Gi", PART: "2"}
    assert cases.create(request.model_copy(update={"replicas": 3}), who=WHO, ports=ports).plan.warnings == ()


def test_a_profile_the_types_gpu_lacks_or_more_than_a_node_holds_is_refused_naming_the_field() -> None:
    ports = _ports({"Node": [_node("n1", 56)]})
    with pytest.raises(InvalidInput) as lacks:
        cases.create(CreateEndpointInput(name="c1", **_body(1, {"type": "mig-1g.5gb"})), who=WHO, ports=ports)
    assert str(lacks.value).startswith("ml.p5.48xlarge does not offer GPU partition mig-1g.5gb; its MIG profiles:")
    assert lacks.value.details[0]["field"] == "body.container.worker.acceleratorPartition.type"
    with pytest.raises(InvalidInput) as many:
        cases.create(
            CreateEndpointInput(name="c1", **_body(1, {"type": "mig-7g.80gb", "count": 9})), who=WHO, ports=ports
        )
    assert str(many.value) == "A ml.p5.48xlarge node holds at most 8 mig-7g.80gb partitions; 9 asked."


def test_a_jumpstart_model_takes_its_partition_type_and_a_worker_gpus_or_partitions_not_both() -> None:
    request = CreateEndpointInput(
        name="c1",
        endpoint="js",
        kind="jumpstart",
        instanceType="ml.p5.48xlarge",
        jumpstart={"modelId": "deepseek-llm-r1-distill-qwen-1-5b", "acceleratorPartitionType": "mig-3g.40gb"},
    )
    assert manifests.jumpstart(request)["spec"]["server"] == {
        "instanceType": "ml.p5.48xlarge",
        "acceleratorPartitionType": "mig-3g.40gb",
    }
    with pytest.raises(ValidationError, match="gpus or acceleratorPartition"):
        body = _body(1, {"type": "mig-1g.10gb"})
        body["container"]["worker"]["gpus"] = 1
        CreateEndpointInput(name="c1", **body)


def test_an_endpoint_in_a_teams_queue_carries_kueues_labels_and_a_queue_not_there_is_refused() -> None:
    """The replicas wait in the team's queue at the priority given: both labels on the Deployment and its pods;
    a LocalQueue the namespace lacks (Kueue would never admit the replicas) is a 422 naming the form."""
    queue = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue"}
    queue["metadata"] = {"name": "hyperpod-ns-serving-localqueue", "namespace": "hyperpod-ns-serving"}
    klass = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass"}
    klass["metadata"] = {"name": "inference-priority"}
    ports = replace(_ports({"Node": [_node("n1", 56)]}), read=base.Kube([queue, klass]))
    body = {**_body(1, {"type": "mig-1g.10gb"}), "namespace": "hyperpod-ns-serving"}
    body |= {"queue": "hyperpod-ns-serving-localqueue", "priority": "inference-priority"}
    request = CreateEndpointInput(name="c1", **body)
    assert cases.create(request, who=WHO, ports=ports).plan.warnings == ()
    (deployment, _service) = manifests.container(request)
    for labels in (deployment["metadata"]["labels"], deployment["spec"]["template"]["metadata"]["labels"]):
        assert labels["kueue.x-k8s.io/queue-name"] == "hyperpod-ns-serving-localqueue"
        assert labels["kueue.x-k8s.io/priority-class"] == "inference-priority"
    with pytest.raises(InvalidInput) as refused:
        cases.create(request.model_copy(update={"namespace": "default"}), who=WHO, ports=ports)
    assert str(refused.value).startswith(
        "No LocalQueue hyperpod-ns-serving-localqueue in namespace default on c1. The teams' queues: "
        "hyperpod-ns-serving-localqueue (namespace hyperpod-ns-serving)."
    )
    assert refused.value.details[0]["field"] == "body.queue"
    with pytest.raises(InvalidInput, match="No WorkloadPriorityClass urgent on c1"):
        cases.create(request.model_copy(update={"priority": "urgent"}), who=WHO, ports=ports)


def test_a_job_on_partitions_the_groups_nodes_lack_free_is_said_to_wait_in_the_dry_run() -> None:
    """One node of the group with 3 of its 56 mig-1g.10gb free (a running pod holds 53): a pod of 4 waits, 3 fit."""
    from launchpod.domain.jobs.manifests import GROUP_LABEL
    from launchpod.usecases import jobs

    from tests.fakes.kube_listing import KubeLists
    from tests.usecases import test_jobs

    node = _node("n1", 56)
    node["metadata"]["labels"][GROUP_LABEL] = "gpu"
    ports = replace(test_jobs._ports(), listed=KubeLists({"Node": [node], "Pod": [_held("n1", 53)]}))
    asked = {"acceleratorPartition": {"type": "mig-1g.10gb", "count": 4}}
    planned = jobs.submit(test_jobs._request(**asked), True, ports=ports)
    (warning,) = planned.warnings  # type: ignore[union-attr]
    assert warning.startswith("0 of 1 replicas of j1 fit now: each asks for 4 mig-1g.10gb partition(s) on one node")
    assert "have 3 of 56 mig-1g.10gb partitions free" in warning
    fits = {"acceleratorPartition": {"type": "mig-1g.10gb", "count": 3}}
    assert jobs.submit(test_jobs._request(jobName="fits", **fits), True, ports=ports).warnings == []  # type: ignore[union-attr]
