"""The inference use cases with in-memory ports: what is refused before anything starts (and the words), what
the inference workflow is asked to do, a pool pod's reassignment by its label, the dry runs of invoke and
assign, and what a delete sent again and a read answer while the endpoint's operation runs."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from launchpod.contracts.chat import ChatCompletionRequest
from launchpod.contracts.common import Role
from launchpod.contracts.inference import AssignPodRequest, CreateEndpointInput, InvokeEndpointRequest
from launchpod.contracts.operations import NoopView, OperationStatus
from launchpod.contracts.plans import PlanView
from launchpod.domain import features, ownership, storage
from launchpod.domain import operations as ops
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.domain.inference import manifests
from launchpod.domain.inference.endpoints import RealEndpoint
from launchpod.usecases import endpoint_chat
from launchpod.usecases import inference as cases

from tests.fakes.eks import Eks
from tests.fakes.endpoints import Endpoints
from tests.fakes.instance_facts import Instances
from tests.fakes.kube import Kube
from tests.fakes.kube_listing import KubeLists
from tests.fakes.operations import Operations, Workflows
from tests.fakes.sagemaker import SageMaker
from tests.inference_bodies import container_g5, managed_qwen

WHO = ops.Principal("olga", Role.OPERATOR)
SERVES = manifests.SERVES_LABEL
GROUPS = {"InstanceGroups": [{"InstanceGroupName": "gpu", "InstanceType": "ml.g5.12xlarge"}]}
INFERENCE_ADDON = {features.inference_operator().addon: {"status": "ACTIVE"}}
PROMETHEUS = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "prometheus-server", "namespace": "prometheus"},
    "spec": {"ports": [{"name": "http", "port": 80}]},
}
SHARED = {
    "apiVersion": "v1",
    "kind": "PersistentVolume",
    "metadata": {"name": "shared", "labels": dict(ownership.K8S_LABELS)},
    "spec": {
        "csi": {"driver": storage.S3_DRIVER, "volumeAttributes": {"bucketName": "lp-bucket"}},
        "mountOptions": ["prefix team/"],
        "claimRef": {"namespace": "default", "name": "shared"},
    },
}
KEDA = container_g5(
    "vllm-keda",
    {"image": "vllm/vllm-openai:v0.10.1", "gpus": 1},
    autoscaling={"minReplicas": 1, "maxReplicas": 3, "prometheus": {"query": "sum(up)", "targetValue": 10}},
)


def _node(name: str, gpus: int, instance_type: str = "ml.g5.12xlarge") -> dict[str, Any]:
    labels = {manifests.INSTANCE_TYPE_LABEL: instance_type}
    return {"metadata": {"name": name, "labels": labels}, "status": {"allocatable": {"nvidia.com/gpu": str(gpus)}}}


def _pod(node: str, gpus: int, phase: str = "Running") -> dict[str, Any]:
    container = {"name": "c", "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}
    return {
        "metadata": {"name": f"p-{node}"},
        "spec": {"nodeName": node, "containers": [container]},
        "status": {"phase": phase},
    }


def _ports(
    objects: list[dict[str, Any]] = (),
    found: list[RealEndpoint] = (),
    addons=INFERENCE_ADDON,
    answer=None,
    lists: dict[str, list[dict[str, Any]]] | None = None,
):
    return cases.InferencePorts(
        eks=Eks({"c1": {"status": "ACTIVE"}}),
        addons=Eks(addons={"c1": dict(addons)}),
        hyperpods=SageMaker({"c1": GROUPS}),
        read=Kube(objects),
        endpoints=Endpoints(list(found), answer),
        operations=Operations(),
        workflows=Workflows(),
        region="us-east-1",
        instances=Instances(),
        listed=KubeLists(lists if lists is not None else {"Node": [_node("n1", 4)]}),
    )


def _create(body: dict[str, Any]) -> CreateEndpointInput:
    return CreateEndpointInput(name="c1", **body)


def test_container_autoscaling_is_refused_until_the_prometheus_keda_queries_exists_and_nothing_starts():
    ports = _ports()
    with pytest.raises(Conflict) as refused:
        cases.create(_create(KEDA), who=WHO, ports=ports)
    words = refused.value.message
    assert "http://prometheus-server.prometheus.svc.cluster.local:80" in words
    assert "no Service prometheus-server in namespace prometheus" in words
    assert "prometheus-community/prometheus" in words and "serverAddress" in words
    assert refused.value.details[0]["field"] == "body.container.autoscaling.prometheus.serverAddress"
    assert ports.workflows.started == []


def test_a_prometheus_service_without_the_port_is_refused_naming_the_ports_it_has():
    other = {**PROMETHEUS, "spec": {"ports": [{"port": 9090}]}}
    with pytest.raises(Conflict, match="does not expose port 80 \\(it has 9090\\)"):
        cases.create(_create(KEDA), who=WHO, ports=_ports([other]))


def test_with_prometheus_installed_the_deploy_plans_the_scaled_object_and_starts_the_inference_workflow():
    ports = _ports([PROMETHEUS])
    proposal = cases.create(_create(KEDA), who=WHO, ports=ports)
    assert [s.target for s in proposal.plan.steps] == [
        "Deployment default/vllm-keda",
        "Service default/vllm-keda",
        "ScaledObject default/vllm-keda",
    ]
    assert ports.workflows.started == []  # nothing until the route starts it
    operation = proposal.start()
    ((kind, _, document),) = ports.workflows.started
    assert kind == "inference" and operation.kind == "inference"
    assert document["request"]["action"] == "deploy" and document["request"]["endpoint"] == "vllm-keda"


def test_a_managed_endpoint_carries_its_metrics_to_the_workflow_and_needs_the_operator():
    body = managed_qwen(
        {"image": "vllm/vllm-openai:v0.10.1", "gpus": 1}, metrics={"scrapeIntervalSeconds": 30, "port": 8000}
    )
    with pytest.raises(Conflict, match="Turn on the inference operator in the cluster's features") as refused:
        cases.create(_create(body), who=WHO, ports=_ports([SHARED], addons={}))
    assert {
        "field": None,
        "rule": "next_step",
        "message": 'PATCH /api/clusters/c1/features {"inferenceOperator": {"enabled": true}}',
    } in refused.value.details
    ports = _ports([SHARED])
    cases.create(_create(body), who=WHO, ports=ports).start()
    ((_, _, document),) = ports.workflows.started
    request = document["request"]
    assert (request["bucket"], request["prefix"], request["region"]) == ("lp-bucket", "team/", "us-east-1")
    assert request["create"]["managed"]["metrics"] == {
        "enabled": True,
        "scrapeIntervalSeconds": 30,
        "path": "/metrics",
        "port": 8000,
    }


def _ready_pod(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": labels},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }


def _routed_pool(endpoint: str, workers: list[str]) -> RealEndpoint:
    sglang = {"image": "lmsysorg/sglang:v0.5.2", "gpus": 1}
    body = container_g5(endpoint, sglang, replicas=len(workers), service="modelPool", router=True)
    made = manifests.container(_create(body))
    deployment, service = made[0], made[-1]
    deployment = {**deployment, "status": {"readyReplicas": len(workers)}}
    worker_labels = deployment["spec"]["template"]["metadata"]["labels"]
    pods = [_ready_pod(w, worker_labels) for w in workers]
    pods.append(_ready_pod(f"{endpoint}-router-0", {manifests.ROLE_LABEL: "router"}))
    return RealEndpoint(kind="container", primary=deployment, service=service, pods=pods)


def test_a_routed_pool_lends_a_worker_by_its_binding_label_and_never_its_router():
    ports = _ports(found=[_routed_pool("sg-a", ["sg-a-0", "sg-a-1"]), _routed_pool("sg-b", [])])
    view = cases.assign("c1", "sg-a", AssignPodRequest(pod="sg-a-0", endpoint="sg-b"), ports=ports)
    assert (view.previous, view.message) == ("sg-a", "sg-a-0 (a warm worker of sg-a) now serves sg-b instead of sg-a.")
    assert ports.endpoints.bound == [("default", "sg-a-0", "sg-b")]
    with pytest.raises(Conflict, match=r"sg-a-router-0 is the SGLang router of sg-a.*sg-a-0, sg-a-1"):
        cases.assign("c1", "sg-a", AssignPodRequest(pod="sg-a-router-0", endpoint="sg-b"), ports=ports)
    with pytest.raises(NotFound, match="its pods are sg-a-0, sg-a-1"):
        cases.assign("c1", "sg-a", AssignPodRequest(pod="sg-b-0", endpoint="sg-b"), ports=ports)
    assert len(ports.endpoints.bound) == 1


def test_only_pool_endpoints_lend_or_take_pods():
    plain = RealEndpoint(
        kind="container",
        primary=manifests.container(
            _create({**KEDA, "endpoint": "plain", "container": {"worker": KEDA["container"]["worker"]}})
        )[0],
    )
    ports = _ports(found=[_routed_pool("sg-a", ["sg-a-0"]), plain])
    with pytest.raises(Conflict, match="plain is not a model pool"):
        cases.assign("c1", "sg-a", AssignPodRequest(pod="sg-a-0", endpoint="plain"), ports=ports)
    assert ports.endpoints.bound == []


def test_invoke_waits_for_the_router_and_then_sends_the_chat_to_the_endpoint_s_own_service():
    routed = _routed_pool("sg-a", ["sg-a-0"])
    routed.pods = [p for p in routed.pods if "router" not in p["metadata"]["name"]]
    answer = {"model": "m", "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}
    ports = _ports(found=[routed], answer=answer)
    chat = InvokeEndpointRequest(messages=[{"role": "user", "content": "hello"}], maxTokens=8)
    with pytest.raises(Conflict, match="sg-a is Deploying: waiting for the SGLang router"):
        endpoint_chat.invoke("c1", "sg-a", chat, ports=ports)
    assert ports.endpoints.chats == []
    routed.pods.append(_ready_pod("sg-a-router-0", {manifests.ROLE_LABEL: "router"}))
    view = endpoint_chat.invoke("c1", "sg-a", chat, ports=ports)
    assert (view.content, view.model) == ("hi", "m")
    assert ports.endpoints.chats == [{"messages": [{"role": "user", "content": "hello"}], "max_tokens": 8}]


def test_an_invoke_dry_run_checks_the_endpoint_serves_and_names_where_it_would_send_sending_nothing():
    routed = _routed_pool("sg-a", ["sg-a-0"])
    router = routed.pods.pop()
    ports = _ports(found=[routed])
    chat = InvokeEndpointRequest(messages=[{"role": "user", "content": "hello"}], maxTokens=8)
    with pytest.raises(Conflict, match="sg-a is Deploying: waiting for the SGLang router"):
        endpoint_chat.invoke("c1", "sg-a", chat, True, ports=ports)
    routed.pods.append(router)
    planned = endpoint_chat.invoke("c1", "sg-a", chat, True, ports=ports)
    assert isinstance(planned, PlanView)
    ((step,),) = [planned.steps]
    assert step.action == "send"
    assert step.target == (
        "POST /v1/chat/completions to Service default/sg-a:30000 (http://sg-a.default.svc.cluster.local:30000)"
    )
    assert "sg-a is Ready" in step.reason and "1 message(s), at most 8 tokens" in step.reason
    assert ports.endpoints.chats == []


def test_an_assign_dry_run_answers_the_label_change_and_a_pod_already_serving_is_noop():
    ports = _ports(found=[_routed_pool("sg-a", ["sg-a-0", "sg-a-1"]), _routed_pool("sg-b", [])])
    planned = cases.assign("c1", "sg-a", AssignPodRequest(pod="sg-a-0", endpoint="sg-b"), True, ports=ports)
    assert isinstance(planned, PlanView)
    assert [(s.action, s.target) for s in planned.steps] == [("update", f"Pod default/sg-a-0 label {SERVES}")]
    assert f"{SERVES} is 'sg-a'; the request asks for 'sg-b'" in planned.steps[0].reason
    assert ports.endpoints.bound == []
    for dry_run in (True, False):
        same = cases.assign("c1", "sg-a", AssignPodRequest(pod="sg-a-1", endpoint="sg-a"), dry_run, ports=ports)
        assert isinstance(same, NoopView) and same.message == "sg-a-1 already serves sg-a; no changes."
    assert ports.endpoints.bound == []


def test_a_delete_sent_again_while_it_runs_answers_that_operation_even_once_the_objects_are_gone():
    pool = _routed_pool("sg-a", ["sg-a-0"])
    ports = _ports(found=[pool])
    first = cases.delete("c1", "sg-a", who=WHO, ports=ports).start()
    ports.endpoints.found.remove(pool)  # ApplyEndpoint deleted the objects; WaitEndpoint waits for the pods
    again = cases.delete("c1", "sg-a", who=WHO, ports=ports)
    assert [s.action for s in again.plan.steps] == ["delete", "delete"] and not again.plan.empty
    assert again.start().id == first.id and len(ports.workflows.started) == 1
    ports.operations.finish(first.id, OperationStatus.SUCCEEDED, error=None, message=None)
    with pytest.raises(NotFound, match="c1 has no endpoint sg-a"):
        cases.delete("c1", "sg-a", who=WHO, ports=ports)


def test_an_endpoint_read_or_listed_between_the_deploy_s_202_and_its_objects_is_deploying_not_missing():
    ports = _ports([PROMETHEUS])
    operation = cases.create(_create(KEDA), who=WHO, ports=ports).start()
    view = cases.get("c1", "vllm-keda", ports=ports)
    assert (view.endpoint, view.kind, view.instanceType, view.status) == (
        "vllm-keda",
        "container",
        "ml.g5.12xlarge",
        "Deploying",
    )
    assert (view.readyReplicas, view.desiredReplicas) == (0, 1)
    assert operation.id in (view.message or "")
    with pytest.raises(NotFound):
        cases.get("c1", "other", ports=ports)
    assert [(e.endpoint, e.status) for e in cases.list_all("c1", ports=ports).items] == [("vllm-keda", "Deploying")]
    ports.operations.finish(operation.id, OperationStatus.FAILED, error="x", message="x")
    with pytest.raises(NotFound, match="c1 has no endpoint vllm-keda"):
        cases.get("c1", "vllm-keda", ports=ports)
    assert cases.list_all("c1", ports=ports).items == []


def test_replicas_beyond_the_free_gpus_of_the_types_nodes_are_said_to_wait_in_the_dry_run():
    """Two g5.12xlarge nodes of 4 GPUs, one with 3 held by a running pod (a finished pod holds none): replicas of
    2 GPUs fit 2 + 0 = 2 (5 GPUs free, one of them alone); four asked, so two wait Pending, said first."""
    lists = {
        "Node": [_node("n1", 4), _node("n2", 4), _node("other", 8, "ml.p5.48xlarge")],
        "Pod": [_pod("n2", 3), _pod("n1", 4, phase="Succeeded")],
    }
    body = container_g5("vllm", {"image": "vllm/vllm-openai:v0.10.1", "gpus": 2}, replicas=4)
    ports = _ports(lists=lists)
    plan = cases.create(_create(body), who=WHO, ports=ports).plan
    (warning,) = plan.warnings
    assert warning.startswith("2 of 4 replicas of vllm fit now") and "5 of 8 GPUs free" in warning
    assert "2 will wait Pending" in warning
    assert cases.create(_create({**body, "replicas": 2}), who=WHO, ports=ports).plan.warnings == ()


@pytest.mark.parametrize(
    ("container", "field"),
    [
        ({"worker": {"image": "vllm/vllm-openai:v0.10.1", "gpus": 8}}, "body.container.worker.gpus"),
        (
            {"worker": {"image": "lmsysorg/sglang:v0.5.2", "gpus": 1}, "router": True, "pd": {"prefillGpus": 8}},
            "body.container.pd.prefillGpus",
        ),
    ],
)
def test_more_gpus_per_replica_than_one_node_has_is_refused_not_left_pending(container, field):
    body = {"endpoint": "big", "kind": "container", "instanceType": "ml.g5.12xlarge", "container": container}
    with pytest.raises(InvalidInput, match=r"ml\.g5\.12xlarge has 4 GPUs") as refused:
        cases.create(_create(body), who=WHO, ports=_ports())
    assert refused.value.details[0]["field"] == field and "container.multiNode" in str(refused.value)


def test_a_pd_endpoint_s_prefill_workers_are_checked_in_the_room_its_decode_workers_leave():
    """Two free 4-GPU nodes: two decode replicas of 2 GPUs fit on the first, so one prefill worker of 4 GPUs fits
    on the second and a second one waits, said in the dry run."""
    lists = {"Node": [_node("n1", 4), _node("n2", 4)], "Pod": []}
    worker = {"image": "lmsysorg/sglang:v0.5.2", "gpus": 2}
    body = container_g5("sg-pd", worker, replicas=2, router=True, pd={"prefillReplicas": 2, "prefillGpus": 4})
    ports = _ports(lists=lists)
    (warning,) = cases.create(_create(body), who=WHO, ports=ports).plan.warnings
    assert warning.startswith("1 of 2 replicas of sg-pd-prefill fit now"), warning
    one = {**body, "container": {**body["container"], "pd": {"prefillReplicas": 1, "prefillGpus": 4}}}
    assert cases.create(_create(one), who=WHO, ports=ports).plan.warnings == ()


def test_an_openai_chat_completion_sends_openai_s_sampling_fields_and_answers_openai_s_shape():
    routed = _routed_pool("sg-a", ["sg-a-0"])
    answer = {"id": "chatcmpl-1", "created": 7, "model": "m", "choices": [{"message": {"content": "hi"}}]}
    ports = _ports(found=[routed], answer=answer)
    request = ChatCompletionRequest.model_validate(
        {
            "model": "anything",
            "messages": [{"role": "user", "content": [{"type": "text", "text": t} for t in ("hel", "lo")]}],
            "max_completion_tokens": 8,
            "top_p": 0.5,
            "stop": ["\n"],
            "user": "someone",  # OpenAI clients send fields Launchpod has no use for: ignored, not refused
            "parallel_tool_calls": False,
        }
    )
    view = endpoint_chat.chat_completion("c1", "sg-a", request, ports=ports)
    assert (view.id, view.model, view.choices[0].message.content) == ("chatcmpl-1", "m", "hi")
    assert ports.endpoints.chats == [
        {"messages": [{"role": "user", "content": "hello"}], "max_tokens": 8, "top_p": 0.5, "stop": ["\n"]}
    ]
    planned = endpoint_chat.chat_completion("c1", "sg-a", request, True, ports=ports)
    assert isinstance(planned, PlanView) and "at most 8 tokens" in planned.steps[0].reason
    assert len(ports.endpoints.chats) == 1


def test_an_openai_chat_completion_waits_for_a_serving_endpoint_and_refuses_two_different_limits():
    routed = _routed_pool("sg-a", ["sg-a-0"])
    routed.pods = [p for p in routed.pods if "router" not in p["metadata"]["name"]]
    ports = _ports(found=[routed])
    request = ChatCompletionRequest(messages=[{"role": "user", "content": "hello"}], max_tokens=8)
    with pytest.raises(Conflict, match="sg-a is Deploying"):
        endpoint_chat.chat_completion("c1", "sg-a", request, ports=ports)
    with pytest.raises(NotFound):
        endpoint_chat.chat_completion("c1", "nope", request, ports=ports)
    assert ports.endpoints.chats == []
    with pytest.raises(ValueError, match="not both with different values"):
        ChatCompletionRequest(messages=[{"role": "user", "content": "x"}], max_tokens=8, max_completion_tokens=9)


def test_an_endpoint_may_run_on_any_type_of_a_flexible_group_and_a_type_no_group_has_is_refused_naming_each():
    """A flexible group reports its types in InstanceRequirements and may report no InstanceType at all."""
    flexible = {
        "InstanceGroups": [
            {
                "InstanceGroupName": "flex",
                "InstanceRequirements": {
                    "CurrentInstanceTypes": ["ml.p5.48xlarge", "ml.g5.12xlarge"],
                    "DesiredInstanceTypes": ["ml.p5.48xlarge", "ml.g5.12xlarge"],
                },
            }
        ]
    }
    body = container_g5("vllm", {"image": "vllm/vllm-openai:v0.10.1", "gpus": 1})
    ports = _ports()
    ports.hyperpods.clusters["c1"] = flexible
    assert cases.create(_create(body), who=WHO, ports=ports).plan.steps
    with pytest.raises(Conflict) as refused:
        cases.create(_create({**body, "instanceType": "ml.g6.12xlarge"}), who=WHO, ports=ports)
    assert "flex (ml.p5.48xlarge, ml.g5.12xlarge)" in refused.value.message


def test_a_multi_node_endpoint_needs_that_many_nodes_of_its_type_and_plans_each_rank() -> None:
    sglang = {"image": "lmsysorg/sglang:v0.5.2", "gpus": 4}
    body = container_g5("big", sglang, multiNode={"nodes": 2, "parallelism": "pipeline"})
    one = {"InstanceGroups": [{**GROUPS["InstanceGroups"][0], "CurrentCount": 1}]}
    ports = replace(_ports(), hyperpods=SageMaker({"c1": one}))
    with pytest.raises(InvalidInput, match="runs 1") as refused:
        cases.create(_create(body), who=WHO, ports=ports)
    assert refused.value.details[0]["rule"] == "nodes_of_type" and ports.workflows.started == []
    two = {"InstanceGroups": [{**GROUPS["InstanceGroups"][0], "CurrentCount": 2}]}
    nodes = {"Node": [_node("n1", 4), _node("n2", 4)]}
    ports = replace(_ports(lists=nodes), hyperpods=SageMaker({"c1": two}))
    proposal = cases.create(_create(body), who=WHO, ports=ports)
    reasons = {s.target: s.reason for s in proposal.plan.steps}
    assert reasons["Deployment default/big-rank-1"].startswith("node rank 1 of 2: SGLang 2 pipeline stages of 4 GPUs")
    assert "headless" in reasons["Service default/big-leader"] and proposal.plan.warnings == ()
