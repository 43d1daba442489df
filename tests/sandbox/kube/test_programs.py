"""Workloads read the shared bucket through their Mountpoint volumes and fail as their code does when a file
is not there: a training launcher's script, LLaMA-Factory's config, model and dataset_info.json, MS-Swift's
model, TorchTitan's TOML config, VERL's model and parquet files; a vLLM Deployment whose model prefix is
empty crash-loops with vLLM's error, and runs once the model is uploaded. Paths on no S3 mount are the
image's and are not judged."""

from __future__ import annotations

import pytest

from sandbox.controllers import programs
from tests.sandbox.aws.support import wait_until
from tests.sandbox.kube.support import BUCKET, IN_REGION, one_cluster, only_pod, put, ready_node
from tests.sandbox.workloads import deployment

CLUSTER = "srv"
DATA = [programs.Mount("/data", BUCKET, "")]
NODE = ready_node("hyperpod-i-1", IN_REGION, {"cpu": "48", "memory": "192Gi", "nvidia.com/gpu": "4"})


def _launcher(*rest: str) -> dict:
    command = ["/bin/bash", "-c", 'pip install hyperpod-elastic-agent && exec "$0" "$@"', "hyperpodrun"]
    return {"name": "pytorch", "command": [*command, "--nnodes=1", "--nproc-per-node=8", *rest]}


def test_a_missing_script_fails_as_python_and_torchrun_report_it(s3):
    container = _launcher("/data/jobs/j/train.py", "--data=/data/datasets/mnist")
    log = programs.training_failure(programs.Files(DATA), container, "j-pods-0")
    assert log is not None
    assert log.startswith(
        "/opt/conda/bin/python: can't open file '/data/jobs/j/train.py': [Errno 2] No such file or directory\n"
    )
    assert "ChildFailedError" in log and "/data/jobs/j/train.py FAILED" in log and "exitcode  : 2" in log
    s3.put_object(Bucket=BUCKET, Key="jobs/j/train.py", Body=b"print('hi')")
    assert programs.training_failure(programs.Files(DATA), container, "j-pods-0") is None


def test_a_script_on_no_s3_mount_is_the_images_and_not_judged(s3):
    container = _launcher("/workspace/train.py")
    assert programs.training_failure(programs.Files(DATA), container, "j-pods-0") is None
    assert programs.training_failure(programs.Files([]), _launcher("/data/jobs/train.py"), "p") is None


def test_llama_factory_reads_its_config_then_the_model_then_dataset_info(s3):
    container = _launcher("/app/src/train.py", "/data/jobs/lf/config.yaml")
    failed = programs.training_failure(programs.Files(DATA), container, "lf-pods-0")
    assert failed and failed.startswith(
        "FileNotFoundError: [Errno 2] No such file or directory: '/data/jobs/lf/config.yaml'\n"
    )
    config = b"model_name_or_path: /data/models/Qwen\ndataset: alpaca_en_demo\ndataset_dir: /data/datasets/alpaca\n"
    s3.put_object(Bucket=BUCKET, Key="jobs/lf/config.yaml", Body=config)
    failed = programs.training_failure(programs.Files(DATA), container, "lf-pods-0")
    assert failed and failed.startswith(
        "OSError: Incorrect path_or_model_id: '/data/models/Qwen'. Please provide either the path to a local "
        "folder or the repo_id of a model on the Hub.\n"
    )
    s3.put_object(Bucket=BUCKET, Key="models/Qwen/config.json", Body=b"{}")
    failed = programs.training_failure(programs.Files(DATA), container, "lf-pods-0")
    info = "/data/datasets/alpaca/dataset_info.json"
    assert failed and failed.startswith(
        f"ValueError: Cannot open {info} due to [Errno 2] No such file or directory: '{info}'.\n"
    )
    s3.put_object(Bucket=BUCKET, Key="datasets/alpaca/dataset_info.json", Body=b"{}")
    assert programs.training_failure(programs.Files(DATA), container, "lf-pods-0") is None


def test_ms_swift_refuses_a_model_path_that_does_not_exist(s3):
    container = _launcher("-m", "swift.cli.sft", "--model=/data/models/Qwen", "--dataset=/data/datasets/a")
    failed = programs.training_failure(programs.Files(DATA), container, "s-pods-0")
    assert failed and failed.startswith("ValueError: path: '/data/models/Qwen' not found\n")
    assert "swift.cli.sft FAILED" in failed
    s3.put_object(Bucket=BUCKET, Key="models/Qwen/config.json", Body=b"{}")
    assert programs.training_failure(programs.Files(DATA), container, "s-pods-0") is None


def test_torchtitan_under_keep_output_fails_without_its_toml_config_and_runs_with_it(s3):
    toml = "/data/jobs/tt/train.toml"
    keep = ["/tmp/keep_output.py", "/local/jobs/tt/output", "/data/jobs/tt/output"]
    container = _launcher(*keep, "-m", "torchtitan.train", f"--job.config_file={toml}")
    failed = programs.training_failure(programs.Files(DATA), container, "tt-pods-0")
    assert failed and failed.startswith(f"FileNotFoundError: [Errno 2] No such file or directory: '{toml}'\n")
    s3.put_object(Bucket=BUCKET, Key="jobs/tt/train.toml", Body=b"[job]\n")
    assert programs.training_failure(programs.Files(DATA), container, "tt-pods-0") is None


def test_verl_reads_the_model_then_its_parquet_files(s3):
    entrypoint = (
        "python3 -m verl.trainer.main_ppo data.train_files=/data/datasets/gsm8k/train.parquet "
        "data.val_files=/data/datasets/gsm8k/test.parquet actor_rollout_ref.model.path=/data/models/Qwen"
    )
    s3.put_object(Bucket=BUCKET, Key="models/Qwen/config.json", Body=b"{}")
    s3.put_object(Bucket=BUCKET, Key="datasets/gsm8k/test.parquet", Body=b"PAR1")
    failed = programs.entrypoint_failure(programs.Files(DATA), entrypoint)
    assert failed == "FileNotFoundError: Unable to find '/data/datasets/gsm8k/train.parquet'"
    s3.put_object(Bucket=BUCKET, Key="datasets/gsm8k/train.parquet", Body=b"PAR1")
    assert programs.entrypoint_failure(programs.Files(DATA), entrypoint) is None


# ------------------------------------------------------------------ a model server in a Deployment
@pytest.fixture
def fleet(s3):
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "shared"},
        "spec": {
            "capacity": {"storage": "1200Gi"},
            "accessModes": ["ReadWriteMany"],
            "mountOptions": ["allow-delete", "region us-east-1", "prefix team/"],
            "csi": {"driver": "s3.csi.aws.com", "volumeHandle": "v", "volumeAttributes": {"bucketName": BUCKET}},
        },
    }
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "shared", "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteMany"], "volumeName": "shared", "resources": {"requests": {}}},
    }
    # the server's 5 s run and 10 s back-off last milliseconds
    with one_cluster(CLUSTER, time_scale=0.001) as fleet:
        put(fleet, CLUSTER, "v1/nodes", NODE)
        put(fleet, CLUSTER, "v1/persistentvolumes", volume)
        put(fleet, CLUSTER, "v1/persistentvolumeclaims", claim)
        put(fleet, CLUSTER, "apps/v1/deployments", _server())
        yield fleet


def _server() -> dict:
    container = {
        "name": "server",
        "image": "vllm/vllm-openai:v0.10.1",
        "args": ["/s3/models/qwen", "--served-model-name", "qwen"],
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "volumeMounts": [{"name": "storage", "mountPath": "/s3"}],
    }
    volumes = [{"name": "storage", "persistentVolumeClaim": {"claimName": "shared"}}]
    return deployment("qwen", {"containers": [container], "volumes": volumes}, uid="d1")


def _status_until(fleet, check) -> dict:
    def reached() -> dict | None:
        pod = only_pod(fleet, CLUSTER)
        return pod if check(pod) else None

    return wait_until(reached, timeout=10, interval=0.01, reason="the server's pod did not reach the state asked")


def test_a_vllm_server_whose_model_prefix_is_empty_crash_loops_with_vllms_error(fleet, s3):
    s3.put_object(Bucket=BUCKET, Key="team/models/other/config.json", Body=b"{}")  # another model is not this one

    def looping(pod):
        status = pod["status"]["containerStatuses"][0]
        return "waiting" in status["state"] and status["restartCount"] >= 2

    pod = _status_until(fleet, looping)
    status = pod["status"]["containerStatuses"][0]
    assert pod["status"]["phase"] == "Running" and status["ready"] is False, status
    assert status["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert status["state"]["waiting"]["message"].startswith("back-off ")
    assert (
        f"restarting failed container=server pod={pod['metadata']['name']}_default"
        in (status["state"]["waiting"]["message"])
    )
    terminated = status["lastState"]["terminated"]
    assert terminated["exitCode"] == 1 and terminated["reason"] == "Error"
    assert terminated["message"].startswith(
        "ValueError: Invalid repository ID or local directory specified: '/s3/models/qwen'."
    )
    log = fleet.call(CLUSTER, lambda e: e.pod_logs[("default", pod["metadata"]["name"], "server")])
    assert log.count("Invalid repository ID or local directory specified: '/s3/models/qwen'") >= 2
    deployment = fleet.call(CLUSTER, lambda e: e.get_object("apps/v1/deployments", "default", "qwen"))
    assert deployment["status"]["readyReplicas"] == 0


def test_the_server_runs_once_its_model_is_in_the_bucket(fleet, s3):
    s3.put_object(Bucket=BUCKET, Key="team/models/qwen/config.json", Body=b"{}")
    pod = _status_until(fleet, lambda p: p["status"]["containerStatuses"][0]["ready"])
    assert pod["status"]["containerStatuses"][0]["state"].keys() == {"running"}


# ------------------------------------------------------------------ what a trainer writes while it trains
def _llama_factory_writes(s3, output_dir: str, logging_steps: int | None) -> list[str | None]:
    from sandbox.controllers import mountpoint

    config = f"model_name_or_path: /data/models/Qwen\noutput_dir: {output_dir}\n"
    config += f"logging_steps: {logging_steps}\n" if logging_steps else ""
    s3.put_object(Bucket=BUCKET, Key="jobs/j/config.yaml", Body=config.encode())
    container = _launcher("/app/src/train.py", "/data/jobs/j/config.yaml")
    container["volumeMounts"] = [{"name": "data", "mountPath": "/data"}, {"name": "nvme", "mountPath": "/local"}]
    options = mountpoint.Options.parse(["allow-delete", "allow-overwrite"])  # Launchpod's volume
    writable = mountpoint.Files([("/data", mountpoint.Mountpoint(BUCKET, "", options)), ("/local", mountpoint.Local())])
    return [
        programs.training_writes(programs.Files(DATA), writable, container, "j-pods-0", step, step == 40)
        for step in (10, 20, 40)
    ]


def test_llama_factorys_log_appended_on_the_mount_fails_at_its_second_write(s3):
    first, second, _ = _llama_factory_writes(s3, "/data/jobs/j/output", 10)
    assert first is None and second is not None
    assert second.startswith(
        "PermissionError: [Errno 1] Operation not permitted: '/data/jobs/j/output/trainer_log.jsonl'\n"
    )
    assert "/app/src/train.py FAILED" in second


def test_llama_factory_writes_its_log_once_by_default_and_anywhere_on_local_disk(s3):
    assert _llama_factory_writes(s3, "/data/jobs/j/output", None) == [None, None, None]  # logging_steps 500
    assert s3.get_object(Bucket=BUCKET, Key="jobs/j/output/trainer_log.jsonl")["Body"].read().count(b"\n") == 1
    assert _llama_factory_writes(s3, "/local/output", 10) == [None, None, None]


def test_under_keep_output_the_log_appends_on_the_node_and_reaches_the_bucket_when_training_ends(s3):
    from sandbox.controllers import mountpoint

    s3.put_object(Bucket=BUCKET, Key="jobs/j/config.yaml", Body=b"output_dir: /data/jobs/j/output\nlogging_steps: 10\n")
    wrapped = ("/tmp/keep_output.py", "/local/jobs/j/output", "/data/jobs/j/output")
    container = _launcher(*wrapped, "/app/src/train.py", "/data/jobs/j/config.yaml", "output_dir=/local/jobs/j/output")
    options = mountpoint.Options.parse(["allow-delete", "allow-overwrite"])
    writable = mountpoint.Files([("/data", mountpoint.Mountpoint(BUCKET, "", options)), ("/local", mountpoint.Local())])
    steps = [
        programs.training_writes(programs.Files(DATA), writable, container, "j-pods-0", step, step == 40)
        for step in (10, 20, 30, 40)
    ]
    assert steps == [None] * 4
    assert s3.get_object(Bucket=BUCKET, Key="jobs/j/output/trainer_log.jsonl")["Body"].read().count(b"\n") == 5
    # a missing config is still the trainer's own failure, reported by the launcher for the script it ran
    s3.delete_object(Bucket=BUCKET, Key="jobs/j/config.yaml")
    log = programs.training_failure(programs.Files(DATA), container, "j-pods-0")
    assert log is not None and log.startswith("FileNotFoundError") and "/tmp/keep_output.py FAILED" in log
