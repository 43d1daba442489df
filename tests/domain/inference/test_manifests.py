"""Every object an endpoint is made of validates against its real schema (vendored CRDs, upstream core
kinds), with the fields a user asked for where the operator or the scheduler reads them."""

from __future__ import annotations

import pytest
from launchpod.contracts.inference import CreateEndpointInput, FsxModelSource
from launchpod.domain.inference import manifests
from pydantic import ValidationError

from tests import manifests as schemas
from tests.inference_bodies import container_g5, managed_qwen

WORKER = {
    "image": "vllm/vllm-openai:v0.10.1",
    "gpus": 1,
    "args": ["--max-model-len", "4096"],
    "env": {"HF_HUB_OFFLINE": "1"},
}
MANAGED = {
    **managed_qwen(
        WORKER,
        kvCache={"l1": True, "l2": "tieredstorage"},
        routing={"strategy": "kvaware"},
        autoscaling={
            "minReplicas": 1,
            "maxReplicas": 3,
            "prometheus": {"query": "sum(vllm:num_requests_running)", "targetValue": 4},
        },
    ),
    "replicas": 2,
}


def _input(body: dict) -> CreateEndpointInput:
    return CreateEndpointInput(name="c1", **body)


def test_a_managed_endpoint_is_a_valid_inference_endpoint_config_with_l2_cache_and_kvaware_routing():
    obj = manifests.managed(_input(MANAGED), "bucket-1", "us-east-1", "team")
    assert schemas.errors(obj) == []
    spec = obj["spec"]
    assert spec["modelSourceConfig"] == {
        "modelSourceType": "s3",
        "s3Storage": {"bucketName": "bucket-1", "region": "us-east-1"},
        "modelLocation": "team/models/Qwen/Qwen3-0.6B",
    }
    assert spec["kvCacheSpec"] == {
        "enableL1Cache": True,
        "enableL2Cache": True,
        "l2CacheSpec": {"l2CacheBackend": "tieredstorage"},
    }
    assert spec["intelligentRoutingSpec"] == {"enabled": True, "routingStrategy": "kvaware"}
    assert spec["worker"]["resources"]["limits"]["nvidia.com/gpu"] == "1" and spec["replicas"] == 2


def test_a_managed_endpoint_on_fsx_reads_its_model_from_the_file_system_not_a_bucket():
    fsx = FsxModelSource(
        fileSystemId="fs-0123456789abcdef0", dnsName="fs-0123.fsx.us-east-1.amazonaws.com", mountName="abcdefgh"
    )
    obj = manifests.managed(_input(MANAGED), "", "", None, fsx)
    assert schemas.errors(obj) == []
    assert obj["spec"]["modelSourceConfig"] == {
        "modelSourceType": "fsx",
        "fsxStorage": {
            "fileSystemId": "fs-0123456789abcdef0",
            "dnsName": "fs-0123.fsx.us-east-1.amazonaws.com",
            "mountName": "abcdefgh",
        },
        "modelLocation": "models/Qwen/Qwen3-0.6B",
    }


def test_a_redis_l2_cache_carries_its_url():
    body = {
        **MANAGED,
        "managed": {**MANAGED["managed"], "kvCache": {"l2": "redis", "redisUrl": "redis://redis.default.svc:6379"}},
    }
    obj = manifests.managed(_input(body), "b", "us-east-1", None)
    assert schemas.errors(obj) == []
    assert obj["spec"]["kvCacheSpec"]["l2CacheSpec"] == {
        "l2CacheBackend": "redis",
        "l2CacheLocalUrl": "redis://redis.default.svc:6379",
    }
    with pytest.raises(ValidationError, match="redisUrl is required with l2 redis"):
        _input({**MANAGED, "managed": {**MANAGED["managed"], "kvCache": {"l2": "redis"}}})


def test_a_jumpstart_model_is_valid_with_its_eula_acceptance():
    body = {
        "endpoint": "ds",
        "kind": "jumpstart",
        "instanceType": "ml.g5.8xlarge",
        "jumpstart": {"modelId": "deepseek-llm-r1-distill-qwen-1-5b", "modelVersion": "2.0.4", "acceptEula": True},
    }
    obj = manifests.jumpstart(_input(body))
    assert schemas.errors(obj) == []
    assert obj["spec"]["model"]["acceptEula"] is True and obj["spec"]["server"] == {"instanceType": "ml.g5.8xlarge"}


def test_a_container_endpoint_is_a_valid_deployment_pinned_to_its_gpu_type_with_shm_and_storage():
    body = container_g5("vllm", {**WORKER, "gpus": 4}, storageClaim="shared", service="loadBalancer")
    deployment, service = manifests.container(_input(body))
    assert schemas.errors(deployment) == [] and schemas.errors(service) == []
    pod = deployment["spec"]["template"]["spec"]
    server = pod["containers"][0]
    assert server["resources"]["requests"]["nvidia.com/gpu"] == "4" == server["resources"]["limits"]["nvidia.com/gpu"]
    term = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
    assert term["matchExpressions"] == [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["ml.g5.12xlarge"]}
    ]
    assert {m["mountPath"] for m in server["volumeMounts"]} == {"/dev/shm", "/s3"}
    assert {"name": "storage", "persistentVolumeClaim": {"claimName": "shared"}} in pod["volumes"]
    assert service["spec"]["type"] == "LoadBalancer" and service["spec"]["loadBalancerClass"] == "service.k8s.aws/nlb"
    assert service["metadata"]["annotations"]["service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"] == "ip"


def test_a_container_endpoint_without_gpus_is_refused_and_gpus_are_never_inferred():
    body = container_g5("vllm", {**WORKER, "gpus": 0, "args": ["--tensor-parallel-size", "4"]})
    with pytest.raises(ValidationError, match=r"runs on GPU nodes: give worker\.gpus or worker\.acceleratorPartition"):
        _input(body)
    two = {**body, "container": {"worker": {**WORKER, "gpus": 2, "args": ["--tensor-parallel-size", "4"]}}}
    deployment, service = manifests.container(_input(two))
    assert deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "2"
    assert service["spec"]["type"] == "ClusterIP"


def test_the_section_must_match_the_kind():
    with pytest.raises(ValidationError, match="kind jumpstart takes the section jumpstart and no other"):
        _input({**MANAGED, "kind": "jumpstart"})


def test_container_autoscaling_is_a_valid_keda_scaled_object_on_the_prometheus_query():
    body = container_g5(
        "vllm",
        WORKER,
        autoscaling={
            "minReplicas": 1,
            "maxReplicas": 3,
            "prometheus": {"query": "sum(vllm:num_requests_waiting)", "targetValue": 10},
        },
    )
    deployment, _, scaled = manifests.container(_input(body))
    assert deployment["spec"]["replicas"] == 1
    assert schemas.errors(scaled) == []
    assert scaled["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm"}
    assert (scaled["spec"]["minReplicaCount"], scaled["spec"]["maxReplicaCount"]) == (1, 3)
    assert scaled["spec"]["triggers"][0]["metadata"]["threshold"] == "10"
    external = {
        **body["container"]["autoscaling"],
        "prometheus": {"query": "up", "targetValue": 1, "serverAddress": "http://169.254.169.254:80"},
    }
    with pytest.raises(ValidationError):
        _input({**body, "container": {"worker": WORKER, "autoscaling": external}})
    with pytest.raises(ValidationError, match=r"send autoscaling\.prometheus"):
        _input({**body, "container": {"worker": WORKER, "autoscaling": {"minReplicas": 1, "maxReplicas": 2}}})


def test_an_sglang_router_gets_its_rbac_and_the_service_points_at_it():
    body = container_g5("sg", {"image": "lmsysorg/sglang:v0.5.2", "gpus": 1, "port": 30001}, replicas=2, router=True)
    made = manifests.container(_input(body))
    assert [o["kind"] for o in made] == ["Deployment", "ServiceAccount", "Role", "RoleBinding", "Deployment", "Service"]
    assert all(schemas.errors(o) == [] for o in made)
    workers, router = made[0], made[4]
    assert workers["spec"]["selector"]["matchLabels"] != router["spec"]["selector"]["matchLabels"]
    args = router["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--selector") + 1 : args.index("--selector") + 3] == [
        "launchpod.io/endpoint=sg",
        "launchpod.io/role=worker",
    ]
    assert "cache_aware" in args and args[args.index("--service-discovery-port") + 1] == "30001"
    assert "nvidia.com/gpu" not in str(router["spec"]["template"]["spec"]["containers"][0]["resources"])
    assert made[5]["spec"]["selector"] == {"launchpod.io/endpoint": "sg", "launchpod.io/role": "router"}
    assert made[2]["rules"] == [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}]
    with pytest.raises(ValidationError, match="SGLang worker image"):
        _input({**body, "container": {**body["container"], "worker": WORKER}})


CLOUDWATCH = {
    "namespace": "AWS/SageMaker",
    "metricName": "Invocations",
    "dimensions": [{"name": "EndpointName", "value": "qwen"}, {"name": "VariantName", "value": "AllTraffic"}],
    "targetValue": 10,
    "statistic": "Sum",
    "period": 120,
}


def _managed_autoscaling(auto: dict) -> dict:
    return {**MANAGED, "managed": {**MANAGED["managed"], "autoscaling": auto}}


def test_a_managed_cloudwatch_trigger_is_the_configs_valid_cloud_watch_trigger():
    obj = manifests.managed(_input(_managed_autoscaling({"maxReplicas": 3, "cloudWatch": CLOUDWATCH})), "b", "r", None)
    assert schemas.errors(obj) == []
    auto = obj["spec"]["autoScalingSpec"]
    assert (auto["minReplicaCount"], auto["maxReplicaCount"]) == (1, 3) and "prometheusTrigger" not in auto
    assert auto["cloudWatchTrigger"] == {
        "namespace": "AWS/SageMaker",
        "metricName": "Invocations",
        "dimensions": [{"name": "EndpointName", "value": "qwen"}, {"name": "VariantName", "value": "AllTraffic"}],
        "targetValue": 10,
        "metricStat": "Sum",
        "metricCollectionPeriod": 120,
        # KEDA needs its query window to be a multiple of the period: 300 s rounded up to 3 periods
        "metricCollectionStartTime": 360,
    }


def test_a_cloudwatch_trigger_defaults_to_the_average_over_the_operators_five_minute_period():
    plain = {"namespace": "LaunchpodTest", "metricName": "QueueDepth", "targetValue": 5}
    obj = manifests.managed(_input(_managed_autoscaling({"cloudWatch": plain})), "b", "r", None)
    trigger = obj["spec"]["autoScalingSpec"]["cloudWatchTrigger"]
    assert schemas.errors(obj) == []
    assert (trigger["metricStat"], trigger["metricCollectionPeriod"], trigger["metricCollectionStartTime"]) == (
        "Average",
        300,
        300,
    )
    assert trigger["dimensions"] == []


def test_a_managed_prometheus_trigger_names_an_amp_workspace_the_crd_accepts():
    amp = "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-0123abcd-4567-89ef"
    prom = {"query": "sum(vllm:num_requests_running)", "targetValue": 4, "ampWorkspaceUrl": amp}
    obj = manifests.managed(_input(_managed_autoscaling({"prometheus": prom})), "b", "r", None)
    assert schemas.errors(obj) == []
    assert obj["spec"]["autoScalingSpec"]["prometheusTrigger"]["serverAddress"] == amp
    # without a workspace no serverAddress is written (the CRD allows none; an in-cluster URL it refuses)
    plain = manifests.managed(_input(MANAGED), "b", "r", None)
    assert "serverAddress" not in plain["spec"]["autoScalingSpec"]["prometheusTrigger"]
    plain["spec"]["autoScalingSpec"]["prometheusTrigger"]["serverAddress"] = "http://prometheus.monitoring.svc:9090"
    assert any("serverAddress" in e for e in schemas.errors(plain))


@pytest.mark.parametrize(
    ("auto", "words"),
    [
        ({"minReplicas": 1, "maxReplicas": 2}, "exactly one trigger"),
        (
            {"prometheus": {"query": "up", "targetValue": 1}, "cloudWatch": CLOUDWATCH},
            "exactly one trigger",
        ),
        (
            {"prometheus": {"query": "up", "targetValue": 1, "serverAddress": "http://p.monitoring.svc:9090"}},
            "send autoscaling.prometheus.ampWorkspaceUrl",
        ),
        (
            {"prometheus": {"query": "up", "targetValue": 1, "ampWorkspaceUrl": "https://evil.example.com/ws-1"}},
            "ampWorkspaceUrl",
        ),
        ({"cloudWatch": {**CLOUDWATCH, "targetValue": 0}}, "targetValue"),
        ({"cloudWatch": {**CLOUDWATCH, "period": 90}}, "period"),
        (
            {"cloudWatch": {**CLOUDWATCH, "dimensions": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]}},
            "each dimension name may appear once",
        ),
    ],
    ids=["no-trigger", "two-triggers", "in-cluster-server", "not-amp", "zero-target", "odd-period", "same-dimension"],
)
def test_managed_autoscaling_refuses_what_the_operator_cannot_use(auto, words):
    with pytest.raises(ValidationError, match=words.replace(".", r"\.")):
        _input(_managed_autoscaling(auto))


@pytest.mark.parametrize(
    "smuggled",
    [
        {"metricName": "Invocations;DROP"},
        {"namespace": 'AWS/SageMaker" --x'},
        {"namespace": "AWS/SageMaker\nx"},
        {"dimensions": [{"name": "EndpointName", "value": "qwen;VariantName"}]},
        {"dimensions": [{"name": ":colon", "value": "x"}]},
        {"metricName": ""},
    ],
    ids=["semicolon", "quote", "newline", "dimension-separator", "leading-colon", "empty"],
)
def test_cloudwatch_names_refuse_what_could_split_keda_trigger_metadata(smuggled):
    with pytest.raises(ValidationError):
        _input(_managed_autoscaling({"cloudWatch": {**CLOUDWATCH, **smuggled}}))


def test_container_autoscaling_stays_prometheus_and_says_cloudwatch_is_for_managed():
    base = {"endpoint": "vllm", "kind": "container", "instanceType": "ml.g5.12xlarge"}
    with pytest.raises(ValidationError, match="a CloudWatch trigger is for kind managed"):
        _input({**base, "container": {"worker": WORKER, "autoscaling": {"cloudWatch": CLOUDWATCH}}})
    amp = {
        "query": "up",
        "targetValue": 1,
        "ampWorkspaceUrl": "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-1",
    }
    with pytest.raises(ValidationError, match="ampWorkspaceUrl is for kind managed"):
        _input({**base, "container": {"worker": WORKER, "autoscaling": {"prometheus": amp}}})


def test_managed_metrics_are_the_configs_valid_spec_metrics():
    metrics = {"enabled": True, "scrapeIntervalSeconds": 30, "path": "/metrics", "port": 8000}
    obj = manifests.managed(_input({**MANAGED, "managed": {**MANAGED["managed"], "metrics": metrics}}), "b", "r", None)
    assert schemas.errors(obj) == []
    assert obj["spec"]["metrics"] == {
        "enabled": True,
        "metricsScrapeIntervalSeconds": 30,
        "modelMetrics": {"path": "/metrics", "port": 8000},
    }
    # the CRD's defaults when only the switch is given; nothing at all without the section
    off = manifests.managed(
        _input({**MANAGED, "managed": {**MANAGED["managed"], "metrics": {"enabled": False}}}), "b", "r", None
    )
    assert schemas.errors(off) == []
    assert off["spec"]["metrics"]["enabled"] is False and off["spec"]["metrics"]["metricsScrapeIntervalSeconds"] == 15
    assert "metrics" not in manifests.managed(_input(MANAGED), "b", "r", None)["spec"]


@pytest.mark.parametrize(
    "metrics",
    [{"scrapeIntervalSeconds": 4}, {"scrapeIntervalSeconds": 301}, {"port": 80}, {"path": "metrics"}, {"url": "/x"}],
)
def test_managed_metrics_outside_the_crds_bounds_are_refused_before_anything_is_applied(metrics):
    with pytest.raises(ValidationError):
        _input({**MANAGED, "managed": {**MANAGED["managed"], "metrics": metrics}})


def test_a_routed_model_pool_s_router_discovers_workers_by_the_binding_label_not_the_endpoint():
    sglang = {"image": "lmsysorg/sglang:v0.5.2", "gpus": 1, "port": 30001}
    body = container_g5("sg-a", sglang, replicas=2, service="modelPool", router=True)
    made = manifests.container(_input(body))
    assert all(schemas.errors(o) == [] for o in made)
    workers, router, service = made[0], made[4], made[5]
    args = router["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--selector") + 1 : args.index("--selector") + 3] == [
        "launchpod.io/serves=sg-a",
        "launchpod.io/role=worker",
    ]
    labels = workers["spec"]["template"]["metadata"]["labels"]
    assert labels["launchpod.io/serves"] == "sg-a" and labels["launchpod.io/role"] == "worker"
    # the Deployment keeps owning a reassigned pod (its selector is not the binding label)
    assert "launchpod.io/serves" not in workers["spec"]["selector"]["matchLabels"]
    assert service["spec"]["selector"] == {"launchpod.io/endpoint": "sg-a", "launchpod.io/role": "router"}
    assert manifests.pool_endpoint(workers) and not manifests.pool_endpoint(router)


LMCACHE = {**WORKER, "image": "lmcache/vllm-openai:v0.3.7"}
SGLANG = {"image": "lmsysorg/sglang:v0.5.2", "gpus": 2, "port": 30001}


def test_a_managed_pd_endpoint_is_a_valid_pd_spec_with_gpus_on_both_sides():
    pd = {"prefillReplicas": 2, "prefillGpus": 4, "prefillArgs": ["--max-num-seqs", "8"], "routingThreshold": 0}
    body = {**MANAGED, "managed": {"storageName": "shared", "modelPath": "m", "worker": LMCACHE, "pd": pd}}
    obj = manifests.managed(_input(body), "bucket-1", "us-east-1", None)
    assert schemas.errors(obj) == []
    spec = obj["spec"]["pdSpec"]
    assert spec["prefillSpec"]["replicas"] == 2 and spec["decodingSpec"]["replicas"] == 2  # the endpoint's replicas
    assert spec["prefillSpec"]["resources"]["limits"]["nvidia.com/gpu"] == "4"
    assert spec["decodingSpec"]["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert spec["prefillSpec"]["args"] == ["--max-num-seqs", "8"] and spec["routingThreshold"] == 0
    assert spec["decodingSpec"]["nodeSelector"] == {"node.kubernetes.io/instance-type": "ml.g5.12xlarge"}
    without = manifests.managed(_input({**body, "managed": {**body["managed"], "pd": {}}}), "b", "us-east-1", None)
    assert "routingThreshold" not in without["spec"]["pdSpec"]  # the operator's default (4096) applies


def test_scaling_a_managed_pd_endpoint_scales_its_decode_side_and_the_result_stays_valid():
    body = {**MANAGED, "managed": {"storageName": "shared", "modelPath": "m", "worker": LMCACHE, "pd": {}}}
    obj = manifests.managed(_input(body), "bucket-1", "us-east-1", None)
    patch = manifests.scale_patch(obj, 5)
    assert patch == {"spec": {"replicas": 5, "pdSpec": {"decodingSpec": {"replicas": 5}}}}
    obj["spec"]["replicas"] = 5
    obj["spec"]["pdSpec"]["decodingSpec"]["replicas"] = 5
    assert schemas.errors(obj) == []
    plain = manifests.managed(_input(MANAGED), "bucket-1", "us-east-1", None)
    assert manifests.scale_patch(plain, 3) == {"spec": {"replicas": 3}}


def test_an_sglang_pd_endpoint_is_a_decode_and_a_prefill_deployment_paired_by_the_router():
    pd = {
        "prefillReplicas": 1,
        "prefillGpus": 1,
        "transferBackend": "nixl",
        "decodeArgs": ["--max-running-requests", "64"],
    }
    body = container_g5("sg", SGLANG, replicas=2, router=True, pd=pd)
    made = manifests.container(_input(body))
    assert [(o["kind"], o["metadata"]["name"]) for o in made] == [
        ("Deployment", "sg"),
        ("Deployment", "sg-prefill"),
        ("ServiceAccount", "sg-router"),
        ("Role", "sg-router"),
        ("RoleBinding", "sg-router"),
        ("Deployment", "sg-router"),
        ("Service", "sg"),
    ]
    assert all(schemas.errors(o) == [] for o in made)
    decode, prefill, router = made[0], made[1], made[5]
    assert decode["spec"]["selector"]["matchLabels"] != prefill["spec"]["selector"]["matchLabels"]
    d_args = decode["spec"]["template"]["spec"]["containers"][0]["args"]
    p_server = prefill["spec"]["template"]["spec"]["containers"][0]
    assert d_args == [
        "--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "nixl", "--max-running-requests", "64"
    ]  # fmt: skip
    assert p_server["args"][:6] == [
        "--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "nixl",
        "--disaggregation-bootstrap-port", "8998",
    ]  # fmt: skip
    assert {"name": "bootstrap", "containerPort": 8998} in p_server["ports"]
    assert prefill["spec"]["template"]["metadata"]["annotations"] == {"sglang.ai/bootstrap-port": "8998"}
    assert p_server["resources"]["limits"]["nvidia.com/gpu"] == "1" and prefill["spec"]["replicas"] == 1
    assert "launchpod.io/endpoint-kind" not in prefill["metadata"]["labels"]  # not an endpoint of its own
    args = router["spec"]["template"]["spec"]["containers"][0]["args"]
    assert "--pd-disaggregation" in args and "--selector" not in args
    at = args.index("--prefill-selector")
    assert args[at + 1 : at + 4] == [
        "launchpod.io/endpoint=sg",
        "launchpod.io/role=worker",
        "launchpod.io/pd-role=prefill",
    ]
    at = args.index("--decode-selector")
    assert args[at + 1 : at + 4] == [
        "launchpod.io/endpoint=sg",
        "launchpod.io/role=worker",
        "launchpod.io/pd-role=decode",
    ]
    assert made[6]["spec"]["selector"] == {"launchpod.io/endpoint": "sg", "launchpod.io/role": "router"}


@pytest.mark.parametrize(
    ("section", "words"),
    [
        ({"container": {"worker": WORKER, "router": True, "pd": {}}}, "use kind managed with managed.pd for vLLM"),
        ({"container": {"worker": SGLANG, "pd": {}}}, "needs router: true"),
        ({"container": {"worker": SGLANG, "router": True, "pd": {"routingThreshold": 10}}}, "kind managed"),
        (
            {"container": {"worker": SGLANG, "router": True, "service": "modelPool", "pd": {}}},
            "not offered for a modelPool",
        ),
        (
            {
                "managed": {
                    "storageName": "s",
                    "modelPath": "m",
                    "worker": {**SGLANG, "image": "lmsysorg/sglang:v0.5.2"},
                    "pd": {},
                }
            },
            "needs a vLLM worker image",
        ),
        (
            {"managed": {"storageName": "s", "modelPath": "m", "worker": LMCACHE, "pd": {"transferBackend": "nixl"}}},
            "pd.transferBackend is SGLang's",
        ),
    ],
)
def test_pd_is_refused_where_the_engine_or_the_kind_does_not_offer_it(section, words):
    kind = next(iter(section))
    with pytest.raises(ValidationError, match=words):
        _input({"endpoint": "pd", "kind": kind, "instanceType": "ml.g5.12xlarge", **section})


SGLANG_WORKER = {"image": "lmsysorg/sglang:v0.5.2", "gpus": 8, "args": ["--model-path", "/s3/models/big"]}


def _spread(**multi) -> CreateEndpointInput:
    return _input(
        {
            "endpoint": "big",
            "kind": "container",
            "instanceType": "ml.p5.48xlarge",
            "container": {"worker": SGLANG_WORKER, "multiNode": {"nodes": 2, **multi}},
        }
    )


def test_a_multi_node_endpoint_is_one_valid_deployment_per_rank_meeting_at_the_leaders_headless_service():
    made = manifests.container(_spread(), efa=32)
    assert all(schemas.errors(o) == [] for o in made)
    by_name = {(o["kind"], o["metadata"]["name"]): o for o in made}
    leader = by_name[("Service", "big-leader")]
    assert leader["spec"]["clusterIP"] == "None" and leader["spec"]["selector"]["launchpod.io/node-rank"] == "0"
    assert by_name[("Service", "big")]["spec"]["selector"]["launchpod.io/node-rank"] == "0"  # only rank 0 serves
    for rank, name in enumerate(("big", "big-rank-1")):
        pod = by_name[("Deployment", name)]["spec"]["template"]["spec"]
        args = pod["containers"][0]["args"]
        assert args[args.index("--node-rank") + 1] == str(rank) and args[args.index("--tp") + 1] == "16"
        assert args[args.index("--dist-init-addr") + 1] == "big-leader.default.svc.cluster.local:20000"
        assert pod["containers"][0]["resources"]["limits"]["vpc.amazonaws.com/efa"] == "32"
        anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
        assert anti["topologyKey"] == "kubernetes.io/hostname"  # one rank per node
    assert "launchpod.io/endpoint-kind" not in by_name[("Deployment", "big-rank-1")]["metadata"]["labels"]
    piped = manifests.container(_spread(parallelism="pipeline"), efa=32)[0]["spec"]["template"]["spec"]
    args = piped["containers"][0]["args"]
    assert (args[args.index("--tp") + 1], args[args.index("--pp-size") + 1]) == ("8", "2")


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ({"worker": {**SGLANG_WORKER, "image": "vllm/vllm-openai:v0.10.1"}}, "multinode_engine"),
        ({"worker": {**SGLANG_WORKER, "args": ["--tp", "16"]}}, "multinode_field"),
        ({"router": True}, "multinode_field"),
    ],
)
def test_multi_node_refusals_name_the_rule(change, rule):
    body = {"worker": SGLANG_WORKER, "multiNode": {"nodes": 2}, **change}
    with pytest.raises(ValidationError) as refused:
        _input({"endpoint": "big", "kind": "container", "instanceType": "ml.p5.48xlarge", "container": body})
    assert refused.value.errors()[0]["type"] == rule
    with pytest.raises(ValidationError, match="replicas 0 or 1"):
        _input(
            {
                "endpoint": "big",
                "kind": "container",
                "instanceType": "ml.p5.48xlarge",
                "replicas": 2,
                "container": {"worker": SGLANG_WORKER, "multiNode": {"nodes": 2}},
            }
        )
