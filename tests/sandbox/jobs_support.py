"""One cluster for the training-job tests (REST and MCP): two ml.p5.48xlarge nodes, the training operator,
KubeRay and the shared bucket's claim. Made once per sandbox; before the operators are installed, a
submission is refused with 409 naming what to enable. A recipe's files go into the bucket as a user puts
them there: the model with Launchpod's model download, the rest with an S3 upload to the storage's source
(docs/recipes/README.md, "One S3 data contract")."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tests.sandbox.aws.support import wait_until
from tests.sandbox.clusters import cluster_body
from tests.sandbox.http_support import next_step

NAME = "e2e-jobs"
LOG_INTERVAL_SECONDS = 10  # simulated seconds between a job's logged steps, as the cluster is left
CLAIM = "shared"
BODY = cluster_body(NAME, {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 2})


def custom_job(job: str, **extra) -> dict:
    return {
        "jobName": job,
        "instanceGroup": "gpu",
        "image": "pytorch/pytorch:2.7.1-cuda12.6-cudnn9-runtime",
        "command": ["hyperpodrun", "--nproc-per-node=8", "/data/jobs/train.py"],
        **extra,
    }


MODEL = "Qwen/Qwen3-0.6B"  # the model recipes train, downloaded once to models/<repoId>/
SCRIPT = b"import torch.distributed as dist\ndist.init_process_group()\n"


def _source(sandbox) -> tuple[str, str]:
    """The shared bucket and prefix of the storage (GET .../storage)."""
    with sandbox.client("viewer") as c:
        rows = c.get(f"/api/clusters/{NAME}/storage").json()["items"]
    source = next(r["source"] for r in rows if r["storageName"] == CLAIM)
    bucket, _, prefix = source.removeprefix("s3://").partition("/")
    return bucket, prefix


def upload(sandbox, key: str, body: bytes) -> None:
    """``aws s3 cp`` into the shared bucket, at ``key`` under the storage's source."""
    bucket, prefix = _source(sandbox)
    sandbox.aws("s3").put_object(Bucket=bucket, Key=prefix + key, Body=body)


def download(sandbox, key: str) -> bytes | None:
    """``aws s3 cp`` out of the shared bucket, or None when there is no such object."""
    bucket, prefix = _source(sandbox)
    s3 = sandbox.aws("s3")
    try:
        return s3.get_object(Bucket=bucket, Key=prefix + key)["Body"].read()
    except s3.exceptions.NoSuchKey:
        return None


def download_model(sandbox, repo: str = MODEL) -> None:
    """Launchpod's model download into the shared storage (POST .../models/download), followed to its end;
    nothing when GET .../models lists it already."""
    with sandbox.client("viewer") as c:
        if any(m["repoId"] == repo for m in c.get(f"/api/clusters/{NAME}/models").json()["items"]):
            return
    with sandbox.client("operator") as c:
        response = c.post(f"/api/clusters/{NAME}/models/download", json={"repoId": repo, "storage": CLAIM})
    assert response.status_code == 202, response.text
    done = sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])


def _recipe_files(recipe: str, job: str, dataset: str) -> dict[str, bytes]:
    """What ``recipe`` reads for ``job``, by key under the storage's source (its docs/recipes page's layout)."""
    if recipe == "pytorch-torchrun":
        return {f"jobs/{job}/train.py": SCRIPT}
    if recipe == "llama-factory":
        config = (
            f"model_name_or_path: /data/models/{MODEL}\nstage: sft\ndo_train: true\nfinetuning_type: full\n"
            f"dataset: {dataset}\ndataset_dir: /data/datasets/{dataset}\ntemplate: qwen\n"
            f"output_dir: /data/jobs/{job}/output\ndeepspeed: /data/jobs/{job}/ds_z3_config.json\nlogging_steps: 5\n"
        )
        return {
            f"jobs/{job}/config.yaml": config.encode(),
            f"jobs/{job}/ds_z3_config.json": b'{"zero_optimization": {"stage": 3}}',
            f"datasets/{dataset}/dataset_info.json": b'{"%s": {"file_name": "data.json"}}' % dataset.encode(),
            f"datasets/{dataset}/data.json": b'[{"instruction": "hi", "output": "hello"}]',
        }
    if recipe == "verl-ppo":
        return {f"datasets/{dataset}/train.parquet": b"PAR1", f"datasets/{dataset}/test.parquet": b"PAR1"}
    if recipe == "torchtitan":  # docs/recipes/torchtitan.md: the TOML job config in jobs/<job>/
        return {
            f"jobs/{job}/train.toml": b'[job]\ndescription = "e2e"\n[training]\nsteps = 40\n',
            f"datasets/{dataset}/c4_test.json": b'{"text": "hello"}\n',
        }
    train = {f"datasets/{dataset}/train.jsonl": b'{"messages": []}\n'}
    if recipe == "hyperpod-llmft":  # docs/recipes/hyperpod-recipes.md: the resolved recipe in jobs/<job>/
        config = (
            f"training_config:\n  model_config:\n    model_name_or_path: /data/models/{MODEL}\n"
            f"  datasets:\n    train_data:\n      file_path: /data/datasets/{dataset}/train.jsonl\n"
            f"  training_args:\n    training_dir: /data/jobs/{job}/output\n"
        )
        return {f"jobs/{job}/config.yaml": config.encode(), **train}
    return train


def recipe_inputs(sandbox, recipe: str, job: str, dataset: str = "demo") -> dict:
    """Put what ``recipe`` reads for ``job`` into the bucket and return the submission's model and dataset
    fields that point at them."""
    for key, body in _recipe_files(recipe, job, dataset).items():
        upload(sandbox, key, body)
    if recipe != "pytorch-torchrun":
        download_model(sandbox)
    return {"model": MODEL, "dataset": dataset}


def job_view(sandbox, job: str, cluster: str = NAME) -> dict:
    """The job's view as a viewer reads it (GET .../jobs/<job>)."""
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{cluster}/jobs/{job}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def submit(sandbox, body: dict, role: str = "operator"):
    with sandbox.client(role) as c:
        return c.post(f"/api/clusters/{NAME}/jobs", json=body)


def ready_cluster(sandbox) -> str:
    with sandbox.client("viewer") as c:
        if c.get(f"/api/clusters/{NAME}").status_code == 200:
            return NAME
    sandbox.provision(BODY)

    # Before the operators are there: 409 naming what to enable.
    refused = submit(sandbox, custom_job("too-early"))
    assert refused.status_code == 409, refused.text
    assert "Turn on the training operator in the cluster's features" in refused.json()["message"]
    assert next_step(refused) == f'PATCH /api/clusters/{NAME}/features {{"trainingOperator": {{"enabled": true}}}}'
    refused = submit(sandbox, {**custom_job("too-early"), "kind": "ray"})
    assert refused.status_code == 409, refused.text
    assert "KubeRay" in refused.json()["message"] and "with the optional ones" in refused.json()["message"]
    assert next_step(refused) == f'POST /api/clusters/{NAME}/dependencies {{"includeOptional": true}}'

    with sandbox.client() as c:
        for method, path, body in [
            ("PATCH", f"/api/clusters/{NAME}/features", {"trainingOperator": {"enabled": True}}),
            ("POST", f"/api/clusters/{NAME}/dependencies", {"includeOptional": True}),
            ("POST", f"/api/clusters/{NAME}/storage", {"kind": "s3", "storageName": CLAIM}),
        ]:
            response = c.request(method, path, json=body)
            assert response.status_code == 202, response.text
            done = sandbox.wait_operation(response.json()["operation"]["id"], timeout=120)
            assert done["status"] == "SUCCEEDED", done
    # KubeRay's operator Deployment becomes ready once its pod runs: until then a RayJob is a 409.
    probe = {"jobName": "probe", "kind": "ray", "recipe": "verl-ppo", "instanceGroup": "nope", "storageClaim": CLAIM}
    wait_until(lambda: submit(sandbox, probe).status_code != 409, 90, reason="KubeRay never became ready")
    sandbox.faults(jobLogIntervalSeconds=LOG_INTERVAL_SECONDS)
    return NAME


@contextlib.contextmanager
def log_interval(sandbox, seconds: int) -> Iterator[None]:
    """Jobs log a training step every ``seconds`` simulated seconds meanwhile, then every
    LOG_INTERVAL_SECONDS again."""
    sandbox.faults(jobLogIntervalSeconds=seconds)
    try:
        yield
    finally:
        sandbox.faults(jobLogIntervalSeconds=LOG_INTERVAL_SECONDS)
