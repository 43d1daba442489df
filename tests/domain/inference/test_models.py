"""Model downloads: Hugging Face's repo id rules (no URL gets through), a valid CPU Job that takes its
token from a Secret (never from its own spec), and the models found in storage."""

from __future__ import annotations

import json

import pytest
from launchpod.contracts.models import DownloadModelRequest, ModelDownloadWorkflowRequest
from launchpod.domain.inference import models
from pydantic import ValidationError

from tests import manifests as schemas

TOKEN = "hf_abcdefghijklmnopqrstuvwxyz012345"


def _doc(secret: str | None) -> ModelDownloadWorkflowRequest:
    return ModelDownloadWorkflowRequest(
        name="c1",
        repoId="Qwen/Qwen3-0.6B",
        revision="main",
        repoType="model",
        storage="shared",
        namespace="default",
        job=models.job_name("Qwen/Qwen3-0.6B", "main"),
        tokenSecret=secret,
        path="s3://b/models/Qwen/Qwen3-0.6B/",
    )


@pytest.mark.parametrize("repo", ["gpt2", "Qwen/Qwen3-0.6B", "meta-llama/Llama-3.2-1B", "a_b.c-d/e"])
def test_repo_ids_hugging_face_accepts_are_accepted(repo):
    assert DownloadModelRequest(repoId=repo, storage="shared").repoId == repo


@pytest.mark.parametrize(
    "repo",
    ["https://huggingface.co/gpt2", "169.254.169.254:80", "a/b/c", "../etc", "org--x/y", "-org/y", "org/y.", "a" * 97],
)
def test_anything_else_is_refused(repo):
    with pytest.raises(ValidationError):
        DownloadModelRequest(repoId=repo, storage="shared")


def test_the_token_is_never_printed_or_dumped():
    request = DownloadModelRequest(repoId="gpt2", storage="shared", hfToken=TOKEN)
    assert TOKEN not in repr(request) and TOKEN not in request.model_dump_json()


def test_the_job_is_a_valid_cpu_job_reading_the_token_from_its_secret():
    job = models.job(_doc("tok-1"))
    assert schemas.errors(job) == []
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert "nvidia.com/gpu" not in json.dumps(container["resources"])
    env = {e["name"]: e for e in container["env"]}
    assert env["HF_TOKEN"] == {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "tok-1", "key": "HF_TOKEN"}}}
    assert env["TARGET"]["value"] == "/s3/models/Qwen/Qwen3-0.6B" and "Qwen" not in container["command"][2]
    assert env["DOWNLOAD"]["value"] == "/download"
    assert "HF_TOKEN" not in {
        e["name"] for e in models.job(_doc(None))["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    secret = models.secret("tok-1", "default", TOKEN)
    assert schemas.errors(secret) == [] and secret["stringData"] == {"HF_TOKEN": TOKEN}


def test_models_in_storage_are_folders_with_a_marker_file():
    objects = [
        {"Key": "team/models/Qwen/Qwen3-0.6B/config.json", "Size": 10},
        {"Key": "team/models/Qwen/Qwen3-0.6B/model.safetensors", "Size": 90},
        {"Key": "team/models/gpt2/config.json", "Size": 5},
        {"Key": "team/models/stray.txt", "Size": 1},
    ]
    found = models.found_models("shared", "bkt", "team/", objects)
    assert [(m.repoId, m.files, m.sizeBytes, m.path) for m in found] == [
        ("Qwen/Qwen3-0.6B", 2, 100, "s3://bkt/team/models/Qwen/Qwen3-0.6B/"),
        ("gpt2", 1, 5, "s3://bkt/team/models/gpt2/"),
    ]


def test_hf_download_writes_to_an_empty_dir_and_only_the_copy_writes_to_the_bucket():
    """Mountpoint renames nothing and replaces no file in place: the downloader's temporary files and lock
    files stay on the pod's local disk, and the bucket gets each file once, written as a new file."""
    spec = models.job(_doc(None))["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    assert volumes[mounts["/download"]] == {"name": "download", "emptyDir": {}}
    assert "persistentVolumeClaim" in volumes[mounts["/s3"]]
    script = container["command"][2]
    assert '--local-dir "$DOWNLOAD"' in script and "$TARGET" not in script.split("python3")[0]


def test_the_copy_writes_new_files_keeps_complete_ones_and_replaces_others_by_deleting_first(tmp_path):
    import os
    import subprocess
    import sys

    src, dst = tmp_path / "download", tmp_path / "s3" / "models" / "a" / "b"
    (src / ".cache" / "huggingface").mkdir(parents=True)
    (src / ".cache" / "huggingface" / "x.lock").write_text("")
    (src / "tokenizer").mkdir()
    (src / "config.json").write_text("{}")
    (src / "tokenizer" / "tokenizer.json").write_text("{'v': 2}")
    (dst / "tokenizer").mkdir(parents=True)
    (dst / "config.json").write_text("{}")  # a complete file from an earlier attempt: kept
    (dst / "tokenizer" / "tokenizer.json").write_text("{")  # an interrupted one: replaced
    env = {**os.environ, "DOWNLOAD": str(src), "TARGET": str(dst)}
    done = subprocess.run([sys.executable, "-"], input=models.COPY, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"copied 1 files to {dst}"
    assert sorted(str(p.relative_to(dst)) for p in dst.rglob("*") if p.is_file()) == [
        "config.json",
        "tokenizer/tokenizer.json",
    ]
    assert (dst / "tokenizer" / "tokenizer.json").read_text() == "{'v': 2}"
