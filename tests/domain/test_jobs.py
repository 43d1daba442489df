"""Training job manifests and rules: every recipe's manifest (and custom pytorch and ray jobs) validates
against the real schemas; pods take the node's GPUs and every EFA interface with the EFA environment; the
refusals name what to do."""

from __future__ import annotations

import dataclasses

import pytest
from launchpod.contracts.jobs import RECIPE_KINDS, SubmitJobInput
from launchpod.domain.clusters.hyperpod_cluster import InstanceGroupState
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.domain.jobs import manifests, recipes, rules, views
from pydantic import ValidationError

from tests import manifests as schemas
from tests.instance_facts import facts

P5 = InstanceGroupState("gpu", instance_type="ml.p5.48xlarge")
FACTS = rules.ClusterFacts(
    cluster="c1",
    groups={
        "gpu": P5,
        "spot": InstanceGroupState("spot", instance_type="ml.p5.48xlarge", spot=True),
        "trn": InstanceGroupState("trn", instance_type="ml.trn1.32xlarge"),
    },
    training_operator="ACTIVE",
    kuberay=True,
    task_governance=False,
    tiered_checkpointing=False,
)
POLICY = {
    "jobMaxRetryCount": 5,
    "restartPolicy": {"numRestartBeforeFullJobRestart": 2, "evalPeriodSeconds": 3600, "maxFullJobRestarts": 1},
    "logMonitoringConfiguration": [
        {"name": "JobStart", "logPattern": ".*loss.*", "expectedStartCutOffInSeconds": 240},
        {"name": "HighLoss", "logPattern": ".*loss: (\\d+\\.\\d+).*", "metricThreshold": 10, "operator": "gt"},
    ],
}


def _request(**fields) -> SubmitJobInput:
    base = {"name": "c1", "jobName": "j1", "instanceGroup": "gpu", "storageClaim": "shared"}
    return SubmitJobInput(**{**base, **fields})


def _built(request: SubmitJobInput, cluster: rules.ClusterFacts = FACTS) -> dict:
    recipe = rules.recipe_for(request)
    acc = facts(rules.check(request, cluster))
    rules.check_processes(request, acc)
    return manifests.build(request, acc, recipe)


def test_the_document_states_the_kind_each_recipe_runs_as():
    # The contracts mirror the recipes' kinds (the MCP gateway's image has no recipe files) for the oneOf
    # of SubmitJobRequest; a recipe added or changed here must change there too.
    assert {name: recipe.kind for name, recipe in recipes.all_recipes().items()} == RECIPE_KINDS


@pytest.mark.parametrize("name", sorted(recipes.all_recipes()))
def test_every_recipe_manifest_validates_against_its_crd(name):
    recipe = recipes.recipe(name)
    extra = (
        {"runPolicy": POLICY, "elasticPolicy": {"minReplicas": 1, "maxReplicas": 4}} if recipe.kind == "pytorch" else {}
    )
    obj = _built(_request(recipe=name, kind=recipe.kind, replicas=2, **extra))
    assert schemas.errors(obj) == []
    assert obj["kind"] == ("HyperPodPyTorchJob" if recipe.kind == "pytorch" else "RayJob")


# AWS's recipe images (hyperpod-recipes) start hyperpodrun from their own train script (USE_HYPERPODRUN).
AWS_RECIPE_IMAGE = "327873000638.dkr.ecr.us-east-1.amazonaws.com/hyperpod-recipes:"


@pytest.mark.parametrize(
    "name",
    sorted(
        n for n, r in recipes.all_recipes().items() if r.kind == "pytorch" and not r.image.startswith(AWS_RECIPE_IMAGE)
    ),
)
def test_every_pytorch_recipe_runs_the_elastic_agent_as_pid_1_with_the_operators_rendezvous(name):
    """The training operator drives each pod through the HyperPod elastic agent, which must be in the image
    (pypi.org/project/hyperpod-elastic-agent): none of the recipes' public images ship it, so the command
    installs it and then execs hyperpodrun (PID 1, so that it gets the pod's SIGTERM), and several nodes
    meet through the operator's rendezvous rather than a MASTER_ADDR nobody sets."""
    obj = _built(_request(recipe=name, replicas=2))
    command = obj["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]["command"]
    shell, flag, script, launcher, *args = command
    assert (shell, flag, launcher) == ("/bin/bash", "-c", "hyperpodrun")
    assert "pip install --no-cache-dir hyperpod-elastic-agent==1.1.2" in script
    assert script.endswith('&& exec "$0" "$@"')
    assert {"--nnodes=2", "--nproc-per-node=8", "--rdzv-backend=hyperpod"} <= set(args)
    assert not {"NNODES", "NPROC_PER_NODE"} & {
        e["name"] for e in obj["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]["env"]
    }  # those would only make `swift` start a second, plain torchrun


def test_the_hyperpod_llmft_recipe_runs_aws_train_script_with_its_config_from_the_bucket():
    obj = _built(_request(recipe="hyperpod-llmft", replicas=2))
    container = obj["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert container["image"] == AWS_RECIPE_IMAGE + "llmft-v1.0.0"
    assert container["command"] == ["/bin/bash", "-c", "/opt/bin/scripts/train-script-gpu.sh"]
    assert env["SCRIPT_PATH"] == "-m amzn_awsllm_fine_tuning.train_hp"
    assert env["SCRIPT_ARGS"] == f"--config-path=/data/jobs/{obj['metadata']['name']} --config-name=config.yaml"
    assert (env["NODES"], env["NTASKS_PER_NODE"], env["USE_HYPERPODRUN"]) == ("2", "8", "true")


def test_an_elastic_job_gives_hyperpodrun_its_node_range():
    obj = _built(_request(recipe="ms-swift-sft", replicas=2, elasticPolicy={"minReplicas": 1, "maxReplicas": 4}))
    command = obj["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]["command"]
    assert "--nnodes=1:4" in command
    assert command[command.index("-m") + 1] == "swift.cli.sft"


def test_custom_pytorch_and_ray_jobs_validate():
    custom = {"image": "111122223333.dkr.ecr.us-east-1.amazonaws.com/train:1", "command": ["hyperpodrun", "t.py"]}
    assert schemas.errors(_built(_request(**custom, storageClaim=None))) == []
    assert schemas.errors(_built(_request(**custom, kind="ray", replicas=3))) == []


def test_pods_take_the_nodes_gpus_and_every_efa_interface_with_the_efa_env():
    obj = _built(_request(recipe="pytorch-torchrun"))
    spec = obj["spec"]
    assert spec["nprocPerNode"] == "8"
    pod = spec["replicaSpecs"][0]["template"]["spec"]
    container = pod["containers"][0]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32}
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["FI_PROVIDER"] == "efa" and env["FI_EFA_USE_DEVICE_RDMA"] == "1"
    assert {"name": "shm", "emptyDir": {"medium": "Memory"}} in pod["volumes"]
    assert {"name": "data", "persistentVolumeClaim": {"claimName": "shared"}} in pod["volumes"]
    assert any(v.get("hostPath", {}).get("path") == "/opt/dlami/nvme" for v in pod["volumes"])
    assert pod["nodeSelector"] == {"sagemaker.amazonaws.com/instance-group-name": "gpu"}
    # the recipe's one S3 layout: datasets/, models/, jobs/<job>/
    assert "/data/jobs/j1/train.py" in container["command"] and "--data=/data/datasets/mnist" in container["command"]


def test_trainium_pods_ask_for_neuron_devices():
    container = _built(_request(recipe="pytorch-torchrun", instanceGroup="trn"))["spec"]["replicaSpecs"][0]["template"][
        "spec"
    ]["containers"][0]
    assert container["resources"]["requests"] == {"aws.amazon.com/neuron": 16, "vpc.amazonaws.com/efa": 8}


def test_ray_job_has_a_cpu_head_and_gpu_workers_and_the_entrypoint():
    obj = _built(_request(recipe="verl-ppo", kind="ray", replicas=2))
    cluster = obj["spec"]["rayClusterSpec"]
    assert "resources" not in cluster["headGroupSpec"]["template"]["spec"]["containers"][0]
    worker = cluster["workerGroupSpecs"][0]
    assert (
        worker["replicas"] == 2
        and worker["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == 8
    )
    assert obj["spec"]["entrypoint"].startswith("python3 -m verl.trainer.main_ppo")
    assert "trainer.nnodes=2" in obj["spec"]["entrypoint"]


def test_more_gpus_per_node_than_the_type_has_is_refused_naming_the_count():
    with pytest.raises(InvalidInput, match=r"ml\.p5\.48xlarge has 8 GPUs per node; nprocPerNode 9"):
        _built(_request(recipe="pytorch-torchrun", nprocPerNode=9))


@pytest.mark.parametrize(
    ("instance_type", "gpus", "efa"),
    [("ml.p6-b300.48xlarge", 8, 16), ("ml.g5.2xlarge", 1, 0), ("ml.g6e.12xlarge", 4, 1), ("ml.g7e.48xlarge", 8, 4)],
)
def test_a_job_on_any_gpu_type_hyperpod_offers_asks_for_its_gpus_and_efa(instance_type, gpus, efa):
    """EC2's facts for the group's type, not a 15-row table: on a type the table lacked, a job asked for no
    GPU and no EFA and its processes found no device."""
    group = InstanceGroupState("new", instance_type=instance_type)
    request = _request(recipe="pytorch-torchrun", instanceGroup="new")
    check = rules.ClusterFacts(**{**FACTS.__dict__, "groups": {"new": group}})
    acc = facts(rules.check(request, check))
    container = manifests.build(request, acc, rules.recipe_for(request))["spec"]["replicaSpecs"][0]["template"]["spec"]
    limits = container["containers"][0]["resources"]["limits"]
    assert limits["nvidia.com/gpu"] == gpus
    assert limits.get("vpc.amazonaws.com/efa", 0) == efa


def _next_step(call: str) -> dict:
    """The detail that names the call fixing a refusal."""
    return {"field": None, "rule": "next_step", "message": call}


def test_missing_operators_are_409_naming_the_feature():
    off = rules.ClusterFacts(**{**FACTS.__dict__, "training_operator": None, "kuberay": False})
    with pytest.raises(Conflict, match="Turn on the training operator") as refused:
        rules.check(_request(recipe="pytorch-torchrun"), off)
    assert (
        _next_step('PATCH /api/clusters/c1/features {"trainingOperator": {"enabled": true}}') in refused.value.details
    )
    with pytest.raises(Conflict, match="Install the cluster's dependencies with the optional ones") as refused:
        rules.check(_request(recipe="verl-ppo", kind="ray"), off)
    assert _next_step('POST /api/clusters/c1/dependencies {"includeOptional": true}') in refused.value.details


def test_elastic_training_is_refused_on_spot_and_with_tiered_checkpointing():
    elastic = {"minReplicas": 1, "maxReplicas": 2}
    with pytest.raises(InvalidInput, match="Spot"):
        rules.check(_request(recipe="pytorch-torchrun", instanceGroup="spot", elasticPolicy=elastic), FACTS)
    tiered = rules.ClusterFacts(**{**FACTS.__dict__, "tiered_checkpointing": True})
    with pytest.raises(InvalidInput, match="tiered checkpointing"):
        rules.check(_request(recipe="pytorch-torchrun", elasticPolicy=elastic), tiered)


def test_unknown_group_queue_without_governance_and_recipe_kind_mismatch_are_refused():
    with pytest.raises(InvalidInput, match="its groups: gpu, spot, trn"):
        rules.check(_request(recipe="pytorch-torchrun", instanceGroup="cpu"), FACTS)
    with pytest.raises(Conflict, match="Turn on task governance") as refused:
        rules.check(_request(recipe="pytorch-torchrun", queue="team-a"), FACTS)
    assert _next_step('PATCH /api/clusters/c1/features {"taskGovernance": {"enabled": true}}') in refused.value.details
    with pytest.raises(InvalidInput, match="kind 'ray'"):
        rules.recipe_for(_request(recipe="verl-ppo"))
    with pytest.raises(InvalidInput, match="storageClaim"):
        rules.recipe_for(_request(recipe="llama-factory", storageClaim=None))


def test_the_request_needs_one_source_and_ray_takes_no_run_policy():
    with pytest.raises(ValidationError, match="either recipe, or image and command"):
        _request()
    with pytest.raises(ValidationError, match="needs its command"):
        _request(image="x:1")
    with pytest.raises(ValidationError, match="kind ray takes none"):
        _request(recipe="verl-ppo", kind="ray", runPolicy={"jobMaxRetryCount": 1})
    with pytest.raises(ValidationError, match="environment variable names"):
        _request(recipe="pytorch-torchrun", env={"1BAD": "x"})


def test_the_schema_check_catches_a_wrong_field_type():
    obj = _built(_request(recipe="pytorch-torchrun"))
    obj["spec"]["nprocPerNode"] = 8  # the CRD takes a string
    assert schemas.errors(obj) != []


def test_a_trainer_that_appends_to_its_output_writes_it_on_the_node_and_carries_the_copier():
    """On a type with NVMe the output waits under its hostPath; on one without, in an emptyDir."""
    request = _request(recipe="llama-factory", model="m", dataset="d")
    pod = _built(request)["spec"]["replicaSpecs"][0]["template"]["spec"]
    container = pod["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env[recipes.KEEP_OUTPUT_ENV] == recipes.keep_output_source()
    assert "output_dir=/local/jobs/j1/output" in container["command"]
    assert {"name": "nvme", "mountPath": "/local"} in container["volumeMounts"]
    without_nvme = dataclasses.replace(facts("ml.p5.48xlarge"), nvme=False)
    pod = manifests.build(request, without_nvme, rules.recipe_for(request))["spec"]["replicaSpecs"][0]["template"]
    assert {"name": "local", "emptyDir": {}} in pod["spec"]["volumes"]
    assert {"name": "local", "mountPath": "/local"} in pod["spec"]["containers"][0]["volumeMounts"]


def test_a_topology_request_annotates_the_pod_template_for_kueue_and_needs_a_queue():
    block = {"label": "topology.k8s.aws/network-node-layer-3", "required": True}
    governed = dataclasses.replace(FACTS, task_governance=True)
    obj = _built(_request(recipe="pytorch-torchrun", queue="hyperpod-ns-a-localqueue", topology=block), governed)
    template = obj["spec"]["replicaSpecs"][0]["template"]
    assert template["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-required-topology": "topology.k8s.aws/network-node-layer-3"
    }
    preferred = _built(_request(recipe="pytorch-torchrun", queue="q", topology={**block, "required": False}), governed)
    assert (
        "kueue.x-k8s.io/podset-preferred-topology"
        in preferred["spec"]["replicaSpecs"][0]["template"]["metadata"]["annotations"]
    )
    with pytest.raises(ValidationError, match="a pytorch job with a queue"):
        _request(recipe="pytorch-torchrun", topology=block)


def test_a_job_kueue_has_not_admitted_says_why_in_kueues_words():
    waiting = {
        "status": {
            "conditions": [
                {"type": "QuotaReserved", "status": "False", "message": "insufficient unused quota for nvidia.com/gpu"}
            ]
        }
    }
    assert views.queue_state(waiting) == ("Queued", "insufficient unused quota for nvidia.com/gpu")
    evicted = {
        "status": {
            "conditions": [
                {"type": "Admitted", "status": "False"},
                {"type": "Evicted", "status": "True", "message": "Preempted to accommodate a workload"},
            ]
        }
    }
    assert views.queue_state(evicted) == ("Preempted", "Preempted to accommodate a workload")
    assert views.queue_state({"status": {"conditions": [{"type": "Admitted", "status": "True"}]}}) is None
    assert views.queue_state(None) is None


def test_a_job_on_gpu_partitions_requests_them_on_nodes_whose_partitioning_succeeded():
    obj = _built(_request(recipe="pytorch-torchrun", acceleratorPartition={"type": "mig-1g.10gb", "count": 2}))
    pod = obj["spec"]["replicaSpecs"][0]["template"]["spec"]
    assert pod["containers"][0]["resources"]["limits"] == {"nvidia.com/mig-1g.10gb": 2}
    assert pod["nodeSelector"]["nvidia.com/mig.config.state"] == "success"
    assert obj["spec"]["nprocPerNode"] == "2"
    with pytest.raises(InvalidInput, match=r"does not offer GPU partition mig-1g\.5gb; its MIG profiles: mig-1g\.10gb"):
        _built(_request(recipe="pytorch-torchrun", acceleratorPartition={"type": "mig-1g.5gb"}))
    with pytest.raises(InvalidInput, match=r"holds at most 16 mig-3g\.40gb"):
        _built(_request(recipe="pytorch-torchrun", acceleratorPartition={"type": "mig-3g.40gb", "count": 17}))
    with pytest.raises(ValidationError, match="one-pod pytorch job"):
        _request(recipe="pytorch-torchrun", replicas=2, acceleratorPartition={"type": "mig-1g.10gb"})


def test_an_elastic_jobs_scaling_fields_reach_the_crd_and_validate():
    elastic = {
        "minReplicas": 2,
        "maxReplicas": 8,
        "replicaDiscreteValues": [2, 4, 8],
        "gracefulShutdownTimeoutInSeconds": 600,
        "scalingTimeoutInSeconds": 60,
        "faultyScaleDownTimeoutInSeconds": 30,
    }
    policy = {**POLICY, "restartPolicy": {**POLICY["restartPolicy"], "scaleUpSnoozeTimeInSeconds": 120}}
    obj = _built(_request(recipe="pytorch-torchrun", replicas=4, elasticPolicy=elastic, runPolicy=policy))
    assert schemas.errors(obj) == []
    assert obj["spec"]["elasticPolicy"] == elastic
    assert obj["spec"]["replicaSpecs"][0]["maxReplicas"] == 8
    assert obj["spec"]["runPolicy"]["restartPolicy"]["scaleUpSnoozeTimeInSeconds"] == 120


def test_an_elastic_policy_takes_a_step_or_listed_sizes_within_its_maximum():
    with pytest.raises(ValidationError, match="not both"):
        _request(
            elasticPolicy={"minReplicas": 1, "maxReplicas": 4, "replicaIncrementStep": 1, "replicaDiscreteValues": [2]}
        )
    with pytest.raises(ValidationError, match="exceed maxReplicas 4") as refused:
        _request(elasticPolicy={"minReplicas": 1, "maxReplicas": 4, "replicaDiscreteValues": [2, 8]})
    assert refused.value.errors()[0]["type"] == "within_max_replicas"


def test_a_checkpointless_pod_runs_hyperpodrun_with_in_process_restart_and_validates():
    custom = {"image": "111122223333.dkr.ecr.us-east-1.amazonaws.com/train:1", "command": ["hyperpodrun", "t.py"]}
    obj = _built(_request(**custom, replicas=2, checkpointless={"inProcessRestartTimeoutSeconds": 900}))
    assert schemas.errors(obj) == []
    container = obj["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]
    assert container["command"] == ["hyperpodrun", "--inprocess-restart", "t.py"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert (env["INPROCESS_RESTART"], env["INPROCESS_RESTART_TIMEOUT"]) == ("1", "900")
    assert [p["containerPort"] for p in container["ports"]] == [8080, 9000, 9001, 9002, 9003, 9004, 9005]
    recipe = _built(_request(recipe="pytorch-torchrun", replicas=2, checkpointless={}))
    command = recipe["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]["command"]
    assert command[command.index("hyperpodrun") + 1] == "--inprocess-restart"


@pytest.mark.parametrize(
    ("fields", "rule"),
    [
        ({"recipe": "pytorch-torchrun", "replicas": 1}, "peer_replicas"),
        ({"recipe": "llama-factory", "replicas": 2}, "checkpointless_recipe"),
        ({"image": "x:1", "command": ["python", "t.py"], "replicas": 2, "storageClaim": None}, "inprocess_restart"),
    ],
)
def test_checkpointless_refusals_name_the_rule(fields, rule):
    with pytest.raises(InvalidInput) as refused:
        rules.check(_request(checkpointless={}, **fields), FACTS)
    assert refused.value.details[0]["rule"] == rule


def test_checkpointless_is_refused_with_elastic_training_tiered_checkpointing_and_an_old_operator():
    with pytest.raises(ValidationError, match="does not work with elastic"):
        _request(
            recipe="pytorch-torchrun", replicas=2, checkpointless={}, elasticPolicy={"minReplicas": 1, "maxReplicas": 2}
        )
    tiered = dataclasses.replace(FACTS, tiered_checkpointing=True)
    with pytest.raises(InvalidInput, match="managed tiered checkpointing"):
        rules.check(_request(recipe="pytorch-torchrun", replicas=2, checkpointless={}), tiered)
    old = dataclasses.replace(FACTS, training_operator_version="v1.1.0-eksbuild.1")
    with pytest.raises(Conflict, match=r"runs v1\.1\.0-eksbuild\.1"):
        rules.check(_request(recipe="pytorch-torchrun", elasticPolicy={"minReplicas": 1, "maxReplicas": 2}), old)
