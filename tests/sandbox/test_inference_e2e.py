"""Inference endpoints through the sandbox: the inference operator as a feature (refused until it is on),
a managed endpoint with an L2 KV cache and kvaware routing, a JumpStart model, a vLLM container behind a
load balancer; each Ready on the GPU node, invoked through the API, scaled and deleted; the caller never
chooses where invoke goes. Models in the bucket and a server without its model: test_models_e2e."""

from __future__ import annotations

import json
import time

import pytest
from kubernetes import client as k8s

from mcp_gateway.tools import WAIT_TOOL
from tests.mcp_gateway.support import mcp_session
from tests.sandbox.aws.support import wait_until
from tests.sandbox.inference_support import (
    MANAGED_BASE,
    NAME,
    WORKER,
    deploy,
    get,
    gpu_nodes,
    operator_enabled,
    post,
    prometheus_installed,
    prometheus_removed,
    ready_cluster,
    settled,
    until,
    view_until,
)

pytestmark = pytest.mark.e2e

MANAGED = {
    **MANAGED_BASE,
    "endpoint": "qwen-managed",
    "managed": {
        **MANAGED_BASE["managed"],
        "kvCache": {"l1": True, "l2": "tieredstorage"},
        "routing": {"strategy": "kvaware"},
        "metrics": {"scrapeIntervalSeconds": 30, "port": 8000},
    },
}
FSX_MANAGED = {**MANAGED_BASE["managed"], "storageName": "weights"}
CHAT = {"messages": [{"role": "user", "content": "hello from the test"}], "maxTokens": 32}


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


@pytest.fixture(scope="module")
def operator_on(sandbox, cluster):
    return operator_enabled(sandbox)


def test_the_inference_add_on_runs_with_the_values_role_and_prerequisites_aws_documents(sandbox, operator_on):
    """AWS's install and troubleshooting pages: executionRoleArn and tlsCertificateS3Bucket in the add-on's
    configuration values, an execution role the operator assumes through the cluster's OIDC provider, and
    the FSx CSI driver installed (the add-on fails to create without it)."""
    eks, iam = sandbox.aws("eks"), sandbox.aws("iam")
    addon = eks.describe_addon(clusterName=NAME, addonName="amazon-sagemaker-hyperpod-inference")["addon"]
    values = json.loads(addon["configurationValues"])
    role_name = values["executionRoleArn"].rsplit("/", 1)[-1]
    assert values["tlsCertificateS3Bucket"].startswith("sagemaker-launchpod")
    assert values["hyperpodClusterArn"].startswith("arn:aws:sagemaker:")
    assert addon["podIdentityAssociations"] == []
    (trust,) = iam.get_role(RoleName=role_name)["Role"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Action"] == "sts:AssumeRoleWithWebIdentity" and ":oidc-provider/" in trust["Principal"]["Federated"]
    fsx = eks.describe_addon(clusterName=NAME, addonName="aws-fsx-csi-driver")["addon"]
    assert fsx["status"] == "ACTIVE"


def test_a_managed_endpoint_with_l2_kv_cache_and_kvaware_routing_answers_through_the_api(sandbox, operator_on):
    done = deploy(sandbox, MANAGED)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    view = get(sandbox, "qwen-managed")
    assert view["status"] == "Ready" and (view["readyReplicas"], view["desiredReplicas"]) == (1, 1)
    assert view["kind"] == "managed" and view["model"] == "models/Qwen/Qwen3-0.6B"
    assert view["url"] == "http://qwen-managed.default.svc.cluster.local:8000"
    assert [p["kubernetesNode"] in gpu_nodes(sandbox) for p in view["pods"]] == [True]
    config = k8s.CustomObjectsApi(sandbox.kube(NAME)).get_namespaced_custom_object(
        "inference.sagemaker.aws.amazon.com", "v1", "default", "inferenceendpointconfigs", "qwen-managed"
    )
    assert config["spec"]["kvCacheSpec"]["l2CacheSpec"] == {"l2CacheBackend": "tieredstorage"}
    assert config["spec"]["intelligentRoutingSpec"] == {"enabled": True, "routingStrategy": "kvaware"}
    assert config["spec"]["modelSourceConfig"]["s3Storage"]["bucketName"].startswith("sagemaker-launchpod")
    assert config["spec"]["metrics"] == {
        "enabled": True,
        "metricsScrapeIntervalSeconds": 30,
        "modelMetrics": {"path": "/metrics", "port": 8000},
    }
    assert view["metrics"] == {"enabled": True, "scrapeIntervalSeconds": 30, "path": "/metrics", "port": 8000}

    answer = post(sandbox, "/endpoints/qwen-managed/invoke", CHAT)
    assert answer.status_code == 200, answer.text
    assert "hello from the test" in answer.json()["content"] and answer.json()["model"] == "qwen3"


def test_a_jumpstart_model_becomes_ready_on_the_gpu_group(sandbox, operator_on):
    body = {
        "endpoint": "deepseek",
        "kind": "jumpstart",
        "instanceType": "ml.g5.12xlarge",
        "jumpstart": {"modelId": "deepseek-llm-r1-distill-qwen-1-5b", "modelVersion": "2.0.4", "acceptEula": True},
    }
    done = deploy(sandbox, body)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    view = get(sandbox, "deepseek")
    assert view["status"] == "Ready" and view["model"] == "deepseek-llm-r1-distill-qwen-1-5b"
    assert view["pods"][0]["kubernetesNode"] in gpu_nodes(sandbox)


VLLM_NLB = {
    "endpoint": "vllm",
    "kind": "container",
    "instanceType": "ml.g5.12xlarge",
    "container": {"worker": WORKER, "storageClaim": "shared", "service": "loadBalancer"},
}
LBC = "aws-load-balancer-controller"


def _install_load_balancer_controller(sandbox) -> dict:
    with sandbox.client() as c:
        response = c.post(f"/api/clusters/{NAME}/dependencies", json={"includeOptional": True})
    assert response.status_code == 202, response.text
    done = sandbox.wait_operation(response.json()["operation"]["id"], timeout=120)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    return done


def test_a_load_balancer_endpoint_is_refused_until_the_load_balancer_controller_is_installed(sandbox, cluster):
    refused = post(sandbox, "/endpoints", VLLM_NLB)
    assert refused.status_code == 409, refused.text
    message = refused.json()["message"]
    assert (
        "AWS Load Balancer Controller" in message and "install it with the cluster's optional dependencies" in message
    )
    assert refused.json()["details"][0]["field"] == "body.container.service"
    with sandbox.client("viewer") as c:
        rows = {d["name"]: d for d in c.get(f"/api/clusters/{NAME}/dependencies").json()["items"]}
    assert rows[LBC]["state"] == "NOT_INSTALLED" and not rows[LBC]["required"]


def test_without_a_running_controller_a_load_balancer_service_gets_no_hostname_and_the_view_says_why(sandbox, cluster):
    """A Service of the NLB class made by hand (no controller installed): nothing gives it an address."""
    core = k8s.CoreV1Api(sandbox.kube(NAME))
    assert LBC not in [
        d.metadata.name for d in k8s.AppsV1Api(sandbox.kube(NAME)).list_namespaced_deployment("kube-system").items
    ]
    service = k8s.V1Service(
        metadata=k8s.V1ObjectMeta(name="hand-made-nlb"),
        spec=k8s.V1ServiceSpec(
            type="LoadBalancer",
            load_balancer_class="service.k8s.aws/nlb",
            selector={"app": "nothing"},
            ports=[k8s.V1ServicePort(port=80)],
        ),
    )
    core.create_namespaced_service("default", service)
    time.sleep(1.0)  # many passes of the sandbox's controllers at its time scale
    found = core.read_namespaced_service("hand-made-nlb", "default")
    balancer = found.status.load_balancer if found.status else None
    assert not (balancer and balancer.ingress), found.status
    core.delete_namespaced_service("hand-made-nlb", "default")


def test_a_vllm_container_behind_a_load_balancer_is_invoked_scaled_and_deleted(sandbox, cluster):
    installed = _install_load_balancer_controller(sandbox)
    assert f"{LBC} v3.5.0 ready" in installed["phases"][1]["message"], installed["phases"][1]
    apps = k8s.AppsV1Api(sandbox.kube(NAME))
    controller = apps.read_namespaced_deployment(LBC, "kube-system")
    assert controller.status.ready_replicas == 2
    assert f"--cluster-name={NAME}" in controller.spec.template.spec.containers[0].args
    # its pods mount the webhook's serving certificate, which the webhooks trust; reconciling again keeps it
    secret = k8s.CoreV1Api(sandbox.kube(NAME)).read_namespaced_secret("aws-load-balancer-tls", "kube-system")
    assert secret.type == "kubernetes.io/tls" and set(secret.data) == {"ca.crt", "tls.crt", "tls.key"}
    hooks = k8s.AdmissionregistrationV1Api(sandbox.kube(NAME)).read_mutating_webhook_configuration(
        "aws-load-balancer-webhook"
    )
    assert {h.client_config.ca_bundle for h in hooks.webhooks} == {secret.data["ca.crt"]}
    with sandbox.client() as c:
        again = c.post(f"/api/clusters/{NAME}/dependencies", json={"includeOptional": True})
    assert again.status_code == 200 and again.json()["status"] == "NOOP", again.text
    # the controller stopped (no ready replica): the endpoint waits for its address and says why
    apps.patch_namespaced_deployment(LBC, "kube-system", {"spec": {"replicas": 0}})
    response = post(sandbox, "/endpoints", VLLM_NLB)
    assert response.status_code == 202, response.text
    view = view_until(sandbox, "vllm", lambda v: "load balancer controller" in (v.get("message") or ""))
    assert view["status"] == "Deploying" and view["url"].endswith(".svc.cluster.local:8000"), view
    assert "no load balancer controller ready" in view["message"] and "kube-system/" + LBC in view["message"], view
    apps.patch_namespaced_deployment(LBC, "kube-system", {"spec": {"replicas": 2}})
    done = sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)
    assert done["status"] == "SUCCEEDED", (done.get("message"), get(sandbox, "vllm"))
    view = get(sandbox, "vllm")
    assert view["status"] == "Ready" and view["url"].startswith("http://k8s-default-vllm-")
    assert ".elb.us-east-1.amazonaws.com:8000" in view["url"]
    answer = post(sandbox, "/endpoints/vllm/invoke", CHAT)
    assert answer.status_code == 200 and "hello from the test" in answer.json()["content"], answer.text

    with sandbox.client("operator") as c:
        same = c.patch(f"/api/clusters/{NAME}/endpoints/vllm", json={"replicas": 1})
        assert same.status_code == 200 and same.json()["status"] == "NOOP", same.text
        scaled = c.patch(f"/api/clusters/{NAME}/endpoints/vllm", json={"replicas": 2})
    assert scaled.status_code == 202, scaled.text
    done = sandbox.wait_operation(scaled.json()["operation"]["id"], timeout=60)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    view = get(sandbox, "vllm")
    assert (view["readyReplicas"], view["desiredReplicas"]) == (2, 2)
    assert {p["kubernetesNode"] for p in view["pods"]} <= gpu_nodes(sandbox)

    with sandbox.client("operator") as c:
        deleted = c.delete(f"/api/clusters/{NAME}/endpoints/vllm")
    assert deleted.status_code == 202, deleted.text
    assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
    with sandbox.client("viewer") as c:
        assert c.get(f"/api/clusters/{NAME}/endpoints/vllm").status_code == 404
        listed = [e["endpoint"] for e in c.get(f"/api/clusters/{NAME}/endpoints").json()["items"]]
    assert "vllm" not in listed
    apps = k8s.AppsV1Api(sandbox.kube(NAME))
    assert "vllm" not in [d.metadata.name for d in apps.list_namespaced_deployment("default").items]


def test_a_controller_whose_role_may_not_create_load_balancers_leaves_the_endpoint_waiting_with_aws_words(
    sandbox, cluster
):
    """The controller runs (installed by the test before) but its pod identity role lost its policy."""
    iam = sandbox.aws("iam")
    role = next(r for r in sandbox.role_names() if r.endswith(f"{NAME}-lb-controller"))
    policy = iam.get_role_policy(RoleName=role, PolicyName="launchpod-lb-controller")["PolicyDocument"]
    iam.delete_role_policy(RoleName=role, PolicyName="launchpod-lb-controller")
    try:
        response = post(sandbox, "/endpoints", {**VLLM_NLB, "endpoint": "vllm-denied"})
        assert response.status_code == 202, response.text
        view = view_until(sandbox, "vllm-denied", lambda v: "FailedDeployModel" in (v.get("message") or ""))
        assert view["status"] == "Deploying", view
        assert "not authorized to perform: elasticloadbalancing:CreateLoadBalancer" in view["message"], view
        service = k8s.CoreV1Api(sandbox.kube(NAME)).read_namespaced_service("vllm-denied", "default")
        assert not (service.status and service.status.load_balancer and service.status.load_balancer.ingress)
    finally:
        iam.put_role_policy(RoleName=role, PolicyName="launchpod-lb-controller", PolicyDocument=json.dumps(policy))
        with sandbox.client("operator") as c:
            deleted = c.delete(f"/api/clusters/{NAME}/endpoints/vllm-denied")
        if deleted.status_code == 202:
            sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)


def test_endpoints_never_go_to_cpu_only_groups_or_types_the_cluster_lacks(sandbox, cluster):
    cpu = {"endpoint": "cpu", "kind": "container", "instanceType": "ml.m5.2xlarge", "container": {"worker": WORKER}}
    refused = post(sandbox, "/endpoints", cpu)
    assert refused.status_code == 422 and refused.json()["details"][0]["field"] == "body.instanceType", refused.text
    missing = post(sandbox, "/endpoints", {**cpu, "instanceType": "ml.p5.48xlarge"})
    assert missing.status_code == 409 and "gpu (ml.g5.12xlarge)" in missing.json()["message"], missing.text


@pytest.mark.parametrize(
    "smuggled",
    [
        {"url": "http://169.254.169.254/latest/meta-data/iam/security-credentials/"},
        {"host": "169.254.170.2"},
        {"endpointUrl": "http://10.0.0.5:8000/v1/chat/completions"},
        {"baseUrl": "https://api.example.com"},
    ],
    ids=["metadata", "link-local", "private", "external"],
)
def test_invoke_refuses_any_url_or_host_the_caller_sends(sandbox, cluster, smuggled):
    response = post(sandbox, "/endpoints/qwen-managed/invoke", {**CHAT, **smuggled})
    assert response.status_code == 422, response.text
    assert response.json()["details"][0]["field"].endswith(next(iter(smuggled))), response.text


@pytest.mark.parametrize("endpoint", ["169.254.169.254", "api.example.com:443", "localhost%3A8000"])
def test_invoke_refuses_an_address_in_place_of_an_endpoint_name(sandbox, cluster, endpoint):
    response = post(sandbox, f"/endpoints/{endpoint}/invoke", CHAT)
    assert response.status_code in (404, 422), response.text
    assert response.status_code != 200


def test_deleting_the_managed_endpoint_removes_what_the_operator_made(sandbox, operator_on):
    with sandbox.client("operator") as c:
        for endpoint in ("qwen-managed", "deepseek"):
            response = c.delete(f"/api/clusters/{NAME}/endpoints/{endpoint}")
            if response.status_code == 404:
                continue
            assert response.status_code == 202, response.text
            assert sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
    apps = k8s.AppsV1Api(sandbox.kube(NAME))
    wait_until(
        lambda: "qwen-managed" not in [d.metadata.name for d in apps.list_namespaced_deployment("default").items],
        90,
        reason="the operator's Deployment outlived its InferenceEndpointConfig",
    )


async def test_an_mcp_session_deploys_invokes_and_deletes_an_endpoint(sandbox, cluster) -> None:
    async def wait(session, accepted) -> dict:
        assert accepted.isError is False, accepted.content
        operation = accepted.structuredContent["operation"]["id"]
        for _ in range(10):
            waited = (
                await session.call_tool(WAIT_TOOL, {"operationId": operation, "timeoutSeconds": 60})
            ).structuredContent
            if waited["terminal"]:
                return dict(waited)
        raise AssertionError("the operation did not end")

    settled(sandbox)
    async with mcp_session(sandbox.url, sandbox.tokens["operator"]) as session:
        playbook = await session.get_prompt("deploy-model", {"cluster": NAME})
        assert "create_endpoint" in playbook.messages[0].content.text  # type: ignore[union-attr]
        groups = (await session.call_tool("list_instance_groups", {"name": NAME})).structuredContent
        assert any(g.get("instanceType") == "ml.g5.12xlarge" for g in groups["items"]), groups
        body = {
            "name": NAME,
            "endpoint": "mcp-sglang",
            "kind": "container",
            "instanceType": "ml.g5.12xlarge",
            "container": {"worker": {"image": "lmsysorg/sglang:v0.5.2", "gpus": 1, "port": 30000}},
        }
        done = await wait(session, await session.call_tool("create_endpoint", body))
        assert done["status"] == "SUCCEEDED", done["summary"]
        endpoint = (await session.call_tool("get_endpoint", {"name": NAME, "endpoint": "mcp-sglang"})).structuredContent
        assert endpoint["status"] == "Ready" and endpoint["url"].endswith(".svc.cluster.local:30000")
        answer = await session.call_tool("invoke_endpoint", {"name": NAME, "endpoint": "mcp-sglang", **CHAT})
        assert answer.isError is False and "hello from the test" in answer.structuredContent["content"]
        smuggled = await session.call_tool(
            "invoke_endpoint", {"name": NAME, "endpoint": "mcp-sglang", **CHAT, "url": "http://169.254.169.254/"}
        )
        assert smuggled.isError is True
        done = await wait(session, await session.call_tool("delete_endpoint", {"name": NAME, "endpoint": "mcp-sglang"}))
        assert done["status"] == "SUCCEEDED", done["summary"]
        gone = await session.call_tool("get_endpoint", {"name": NAME, "endpoint": "mcp-sglang"})
    assert gone.isError is True and gone.structuredContent["status"] == 404


def test_keda_scales_a_container_endpoint_one_to_three_to_one_on_the_metric(sandbox, operator_on):
    query = 'sum(vllm:num_requests_waiting{service="vllm-keda"})'
    body = {
        "endpoint": "vllm-keda",
        "kind": "container",
        "instanceType": "ml.g5.12xlarge",
        "container": {
            "worker": WORKER,
            "autoscaling": {"minReplicas": 1, "maxReplicas": 3, "prometheus": {"query": query, "targetValue": 10}},
        },
    }
    # KEDA queries the Prometheus at serverAddress from inside the cluster: refused until a Service answers to it
    settled(sandbox)
    refused = post(sandbox, "/endpoints", body)
    assert refused.status_code == 409, refused.text
    words = refused.json()["message"]
    assert (
        "http://prometheus-server.prometheus.svc.cluster.local:80" in words and "no Service prometheus-server" in words
    )
    assert "prometheus-community/prometheus" in words and "serverAddress" in words
    assert refused.json()["details"][0]["field"] == "body.container.autoscaling.prometheus.serverAddress"
    names = [d.metadata.name for d in k8s.AppsV1Api(sandbox.kube(NAME)).list_namespaced_deployment("default").items]
    assert "vllm-keda" not in names

    prometheus_installed(sandbox)
    done = deploy(sandbox, body)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    view = get(sandbox, "vllm-keda")
    assert (view["readyReplicas"], view["desiredReplicas"]) == (1, 1)
    assert view["scaling"].startswith("KEDA 1-3 replicas on") and query in view["scaling"]

    def metric(value: float) -> None:
        with sandbox.client() as c:
            response = c.post("/api/sandbox/metrics", json={"cluster": NAME, "query": query, "value": value})
        assert response.status_code == 200, response.text

    metric(25)  # 25 waiting requests at 10 per replica: 3 replicas
    view = until(sandbox, "vllm-keda", 3, 3)
    assert (view["readyReplicas"], view["desiredReplicas"]) == (3, 3), view
    assert {p["kubernetesNode"] for p in view["pods"]} <= gpu_nodes(sandbox)
    metric(0)
    view = until(sandbox, "vllm-keda", 1, 1)
    assert (view["readyReplicas"], view["desiredReplicas"]) == (1, 1), view

    # Prometheus uninstalled: its name no longer resolves, KEDA's trigger fails and nothing scales
    prometheus_removed(sandbox)
    metric(25)
    view = view_until(sandbox, "vllm-keda", lambda v: v["scalingError"], seconds=60)
    assert view["scalingError"] is not None, view
    assert view["scalingError"].startswith("TriggerError:"), view["scalingError"]
    assert "lookup prometheus-server.prometheus.svc.cluster.local" in view["scalingError"]
    assert "no such host" in view["scalingError"]
    assert (view["readyReplicas"], view["desiredReplicas"]) == (1, 1), view
    metric(0)

    with sandbox.client("operator") as c:
        by_hand = c.patch(f"/api/clusters/{NAME}/endpoints/vllm-keda", json={"replicas": 2})
        assert by_hand.status_code == 409 and "KEDA" in by_hand.json()["message"], by_hand.text
        deleted = c.delete(f"/api/clusters/{NAME}/endpoints/vllm-keda")
    assert deleted.status_code == 202, deleted.text
    assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
    scaled = k8s.CustomObjectsApi(sandbox.kube(NAME)).list_namespaced_custom_object(
        "keda.sh", "v1alpha1", "default", "scaledobjects"
    )
    assert [s["metadata"]["name"] for s in scaled["items"]] == []


def test_an_sglang_router_routes_to_the_replicas_it_may_discover(sandbox, cluster):
    body = {
        "endpoint": "sglang",
        "kind": "container",
        "instanceType": "ml.g5.12xlarge",
        "replicas": 2,
        "container": {"worker": {"image": "lmsysorg/sglang:v0.5.2", "gpus": 1, "port": 30001}, "router": True},
    }
    done = deploy(sandbox, body)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    view = get(sandbox, "sglang")
    assert (view["readyReplicas"], view["desiredReplicas"]) == (2, 2)
    assert view["url"] == "http://sglang.default.svc.cluster.local:30000"  # the router's port
    assert sum(p["name"].startswith("sglang-router-") for p in view["pods"]) == 1 and len(view["pods"]) == 3
    answer = post(sandbox, "/endpoints/sglang/invoke", CHAT)
    assert answer.status_code == 200 and "hello from the test" in answer.json()["content"], answer.text

    # without its RoleBinding the router cannot list the pods it routes to: no workers, retry later
    rbac = k8s.RbacAuthorizationV1Api(sandbox.kube(NAME))
    rbac.delete_namespaced_role_binding("sglang-router", "default")
    refused = post(sandbox, "/endpoints/sglang/invoke", CHAT)
    assert refused.status_code == 503 and "No available workers" in refused.json()["message"], refused.text

    with sandbox.client("operator") as c:
        deleted = c.delete(f"/api/clusters/{NAME}/endpoints/sglang")
    assert deleted.status_code == 202, deleted.text
    assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
    names = [d.metadata.name for d in k8s.AppsV1Api(sandbox.kube(NAME)).list_namespaced_deployment("default").items]
    assert "sglang" not in names and "sglang-router" not in names
    assert "sglang-router" not in [r.metadata.name for r in rbac.list_namespaced_role("default").items]


def test_a_warm_pool_pod_is_reassigned_to_another_endpoint_by_its_label(sandbox, cluster):
    def pool(endpoint: str, replicas: int) -> dict:
        worker = {**WORKER, "args": ["--served-model-name", f"{endpoint}-model"]}
        return {
            "endpoint": endpoint,
            "kind": "container",
            "instanceType": "ml.g5.12xlarge",
            "replicas": replicas,
            "container": {"worker": worker, "service": "modelPool"},
        }

    for body in (pool("pool-a", 1), pool("pool-b", 0)):
        done = deploy(sandbox, body)
        assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    empty = post(sandbox, "/endpoints/pool-b/invoke", CHAT)
    assert empty.status_code == 503, empty.text  # no pod serves pool-b yet
    (pod,) = get(sandbox, "pool-a")["pods"]

    assigned = post(sandbox, "/model-pools/pool-a/assign", {"pod": pod["name"], "endpoint": "pool-b"})
    assert assigned.status_code == 200, assigned.text
    assert assigned.json()["previous"] == "pool-a" and "now serves pool-b" in assigned.json()["message"]
    answer = post(sandbox, "/endpoints/pool-b/invoke", CHAT)
    assert answer.status_code == 200 and answer.json()["model"] == "pool-a-model", answer.text  # the warm worker
    assert post(sandbox, "/endpoints/pool-a/invoke", CHAT).status_code == 503
    live = k8s.CoreV1Api(sandbox.kube(NAME)).read_namespaced_pod(pod["name"], "default")
    assert live.metadata.labels["launchpod.io/serves"] == "pool-b" and live.status.phase == "Running"

    not_a_pool = post(sandbox, "/model-pools/pool-a/assign", {"pod": pod["name"], "endpoint": "nope"})
    assert not_a_pool.status_code == 404, not_a_pool.text
    with sandbox.client("operator") as c:
        for endpoint in ("pool-a", "pool-b"):
            deleted = c.delete(f"/api/clusters/{NAME}/endpoints/{endpoint}")
            assert deleted.status_code == 202, deleted.text
            assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"


def _answered(sandbox, endpoint: str, wanted: int, seconds: float = 30):
    """Invoke until the answer's status is ``wanted`` (the router's watch settles as on a cluster)."""
    last: list = []

    def answered():
        last[:] = [post(sandbox, f"/endpoints/{endpoint}/invoke", CHAT)]
        return last[0] if last[0].status_code == wanted else None

    return wait_until(answered, seconds, reason=lambda: f"{endpoint} never answered {wanted}: {last[0].text}")


def test_an_sglang_model_pool_behind_its_router_lends_a_warm_pod_to_another_routed_endpoint(sandbox, cluster):
    def pool(endpoint: str, replicas: int) -> dict:
        worker = {"image": "lmsysorg/sglang:v0.5.2", "gpus": 1, "port": 30001}
        worker["args"] = ["--served-model-name", f"{endpoint}-model"]
        return {
            "endpoint": endpoint,
            "kind": "container",
            "instanceType": "ml.g5.12xlarge",
            "replicas": replicas,
            "container": {"worker": worker, "service": "modelPool", "router": True},
        }

    for body in (pool("sg-a", 2), pool("sg-b", 0)):
        done = deploy(sandbox, body)
        assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    a = get(sandbox, "sg-a")
    assert (a["status"], a["url"]) == ("Ready", "http://sg-a.default.svc.cluster.local:30000"), a  # the router's
    workers = sorted(p["name"] for p in a["pods"] if not p["name"].startswith("sg-a-router-"))
    routers = [p["name"] for p in a["pods"] if p["name"].startswith("sg-a-router-")]
    assert len(workers) == 2 and len(routers) == 1, a["pods"]
    answer = post(sandbox, "/endpoints/sg-a/invoke", CHAT)
    assert answer.status_code == 200 and answer.json()["model"] == "sg-a-model", answer.text
    assert get(sandbox, "sg-b")["status"] == "Ready"  # its router is up, with no worker yet
    empty = post(sandbox, "/endpoints/sg-b/invoke", CHAT)
    assert empty.status_code == 503 and "No available workers" in empty.json()["message"], empty.text

    # one warm worker of sg-a now serves sg-b: sg-b's router discovers it by the label, sg-a's lets it go
    assigned = post(sandbox, "/model-pools/sg-a/assign", {"pod": workers[0], "endpoint": "sg-b"})
    assert assigned.status_code == 200, assigned.text
    assert assigned.json()["previous"] == "sg-a" and "now serves sg-b" in assigned.json()["message"]
    lent_view = {p["name"]: p for p in get(sandbox, "sg-a")["pods"]}
    assert (lent_view[workers[0]]["role"], lent_view[workers[0]]["serves"]) == ("worker", "sg-b")
    assert (lent_view[routers[0]]["role"], lent_view[routers[0]]["serves"]) == ("router", None)
    lent = _answered(sandbox, "sg-b", 200)
    assert lent.status_code == 200 and lent.json()["model"] == "sg-a-model", lent.text  # warm, no reload
    assert "hello from the test" in lent.json()["content"]
    assert post(sandbox, "/endpoints/sg-a/invoke", CHAT).status_code == 200  # its other worker still serves it

    assigned = post(sandbox, "/model-pools/sg-a/assign", {"pod": workers[1], "endpoint": "sg-b"})
    assert assigned.status_code == 200, assigned.text
    drained = _answered(sandbox, "sg-a", 503)
    assert drained.status_code == 503 and "No available workers" in drained.json()["message"], drained.text
    assert post(sandbox, "/endpoints/sg-b/invoke", CHAT).status_code == 200
    core = k8s.CoreV1Api(sandbox.kube(NAME))
    for name in workers:  # still sg-a's Deployment's pods, running, never restarted
        live = core.read_namespaced_pod(name, "default")
        assert live.metadata.labels["launchpod.io/serves"] == "sg-b" and live.status.phase == "Running"
        assert live.metadata.labels["launchpod.io/endpoint"] == "sg-a"

    # and back: the router of sg-a picks its worker up again
    back = post(sandbox, "/model-pools/sg-a/assign", {"pod": workers[0], "endpoint": "sg-a"})
    assert back.status_code == 200 and back.json()["previous"] == "sg-b", back.text
    assert _answered(sandbox, "sg-a", 200).status_code == 200

    router = post(sandbox, "/model-pools/sg-a/assign", {"pod": routers[0], "endpoint": "sg-b"})
    assert router.status_code == 409 and "is the SGLang router of sg-a" in router.json()["message"], router.text
    with sandbox.client("operator") as c:
        for endpoint in ("sg-a", "sg-b"):
            deleted = c.delete(f"/api/clusters/{NAME}/endpoints/{endpoint}")
            assert deleted.status_code == 202, deleted.text
            assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"


def test_a_managed_endpoint_reads_its_model_from_an_fsx_lustre_storage(sandbox, operator_on):
    ghost = post(
        sandbox, "/endpoints", {**MANAGED, "endpoint": "qwen-fsx", "managed": {**FSX_MANAGED, "storageName": "nope"}}
    )
    assert ghost.status_code == 409 and "no S3 or FSx storage nope" in ghost.json()["message"], ghost.text
    sandbox.install_dependencies(NAME, include_optional=True)  # FSx's CSI driver is an optional dependency
    addons = sandbox.aws("eks").list_addons(clusterName=NAME)["addons"]
    assert "aws-fsx-csi-driver" in addons, addons
    fs = sandbox.lustre_file_system()
    with sandbox.client() as c:
        configured = c.post(
            f"/api/clusters/{NAME}/storage",
            json={"kind": "fsx", "storageName": "weights", "fileSystemId": fs["FileSystemId"]},
        )
    assert configured.status_code == 202, configured.text
    assert sandbox.wait_operation(configured.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"

    done = deploy(sandbox, {**MANAGED, "endpoint": "qwen-fsx", "managed": FSX_MANAGED})
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    config = k8s.CustomObjectsApi(sandbox.kube(NAME)).get_namespaced_custom_object(
        "inference.sagemaker.aws.amazon.com", "v1", "default", "inferenceendpointconfigs", "qwen-fsx"
    )
    assert config["spec"]["modelSourceConfig"] == {
        "modelSourceType": "fsx",
        "fsxStorage": {
            "fileSystemId": fs["FileSystemId"],
            "dnsName": fs["DNSName"],
            "mountName": fs["LustreConfiguration"]["MountName"],
        },
        "modelLocation": "models/Qwen/Qwen3-0.6B",
    }
    view = get(sandbox, "qwen-fsx")
    assert view["status"] == "Ready" and view["model"] == "models/Qwen/Qwen3-0.6B", view
    answer = post(sandbox, "/endpoints/qwen-fsx/invoke", CHAT)
    assert answer.status_code == 200 and answer.json()["model"] == "qwen3", answer.text
    with sandbox.client("operator") as c:
        deleted = c.delete(f"/api/clusters/{NAME}/endpoints/qwen-fsx")
    assert deleted.status_code == 202, deleted.text
    assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
