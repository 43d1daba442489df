"""Model downloads: the CPU Job that runs ``hf download`` onto the pod's local disk and then copies the files
into the storage claim under models/<repoId>, the Secret that holds the token (referenced by the Job, never
written anywhere else), and the models found in storage. The repo id, revision and paths reach the container as
environment variables, never spliced into a shell line.

Why two steps: the claim is a Mountpoint for Amazon S3 volume, which on a general purpose bucket renames
nothing, replaces no file without ``--allow-overwrite`` and changes no metadata of an uploaded file
(awslabs/mountpoint-s3 doc/SEMANTICS.md, "File and directory rename", "Writes"; doc/TROUBLESHOOTING.md). The
Hugging Face downloader needs all three in its ``--local-dir``: it writes each file to a ``.incomplete``
temporary and renames it, and it re-opens and truncates a lock file per file (huggingface_hub
file_download.py ``_download_to_tmp_and_move``/``_chmod_and_move``; filelock ``UnixFileLock``), so ``hf
download`` straight onto the mount fails with EPERM. Mountpoint is built "to write new objects sequentially
from a single client at a time" (SEMANTICS.md, first paragraph) and fits applications that "upload files from
local storage with tools like cp" (awslabs/mountpoint-s3 README.md): the download goes to an emptyDir, and the
copy writes each file into the bucket as a new file, from its start, sequentially (``shutil.copyfile``).
AWS's own guide copies model artifacts into the bucket the same way, whole files with ``aws s3 sync``
(awslabs "AI on SageMaker HyperPod", inference operator, "Deploying model from S3 or FSX").

The copy is re-runnable (the Job's retries, a second download of the same repository): a file already there
with the same size is kept, since Mountpoint shows another writer's file only once its upload completed; one of
another size (an interrupted attempt's, or another revision's) is deleted first, which the volume's
``allow-delete`` permits, and written anew: replacing it in place would need ``allow-overwrite``."""

from __future__ import annotations

import hashlib
from typing import Any

from launchpod.contracts.models import DownloadModelInput, ModelDownloadWorkflowRequest, ModelView
from launchpod.domain import ownership
from launchpod.domain.operations import WorkflowPlan
from launchpod.domain.plan import Plan, Step

KIND = "model-download"
PHASES: tuple[tuple[str, str], ...] = (
    ("StartDownload", "The download Job, on CPU, with the storage claim mounted"),
    ("WaitDownload", "The Job finished; the token's Secret removed"),
)
MAX_POLLS = 720
POLL_SECONDS = 15
DOWNLOAD_LABEL = "launchpod.io/model-download"
IMAGE = "public.ecr.aws/docker/library/python:3.12-slim"
MOUNT = "/s3"
DOWNLOAD = "/download"  # an emptyDir: the node's local disk
MODELS = "models"
# Copies $DOWNLOAD (but hf's own .cache/) into $TARGET as new files, written sequentially (see the docstring).
COPY = """import os, shutil
src, dst = os.environ["DOWNLOAD"], os.environ["TARGET"]
copied = 0
for root, dirs, names in os.walk(src):
    dirs[:] = sorted(d for d in dirs if not (root == src and d == ".cache"))
    for name in sorted(names):
        path = os.path.join(root, name)
        out = os.path.join(dst, os.path.relpath(path, src))
        if os.path.isfile(out):
            if os.path.getsize(out) == os.path.getsize(path):
                continue
            os.unlink(out)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(path, out)
        copied += 1
print(f"copied {copied} files to {dst}")
"""
# pip's huggingface_hub ships the `hf` CLI; HF_HUB_ENABLE_HF_TRANSFER stays off (needs another wheel).
SCRIPT = (
    "set -e\n"
    'pip install --quiet --no-cache-dir "huggingface_hub>=0.34,<2"\n'
    'hf download "$REPO_ID" --repo-type "$REPO_TYPE" --revision "$REVISION" --local-dir "$DOWNLOAD"\n'
    f"exec python3 - <<'EOF'\n{COPY}EOF\n"
)
MARKERS = ("config.json", "model_index.json", "README.md", ".gitattributes")


def job_name(repo_id: str, revision: str) -> str:
    digest = hashlib.sha256(f"{repo_id}@{revision}".encode()).hexdigest()[:8]
    slug = "".join(c if c.isalnum() else "-" for c in repo_id.lower()).strip("-")[:40].strip("-")
    return f"hf-{slug}-{digest}"


def secret(name: str, namespace: str, token: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": {"name": name, "namespace": namespace, "labels": {**ownership.K8S_LABELS, DOWNLOAD_LABEL: name}},
        "stringData": {"HF_TOKEN": token},
    }


def job(request: ModelDownloadWorkflowRequest) -> dict[str, Any]:
    env: list[dict[str, Any]] = [
        {"name": "REPO_ID", "value": request.repoId},
        {"name": "REPO_TYPE", "value": request.repoType},
        {"name": "REVISION", "value": request.revision},
        {"name": "DOWNLOAD", "value": DOWNLOAD},
        {"name": "TARGET", "value": f"{MOUNT}/{MODELS}/{request.repoId}"},
        {"name": "HF_HUB_DISABLE_TELEMETRY", "value": "1"},
    ]
    if request.tokenSecret:
        env.append(
            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": request.tokenSecret, "key": "HF_TOKEN"}}}
        )
    labels = {**ownership.K8S_LABELS, DOWNLOAD_LABEL: request.job}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": request.job, "namespace": request.namespace, "labels": labels},
        "spec": {
            "backoffLimit": 3,
            "activeDeadlineSeconds": 6 * 3600,
            "ttlSecondsAfterFinished": 24 * 3600,
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "download",
                            "image": IMAGE,
                            "command": ["sh", "-c", SCRIPT],
                            "env": env,
                            # CPU and memory only: a download never takes a GPU
                            "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "4Gi"}},
                            "volumeMounts": [
                                {"name": "storage", "mountPath": MOUNT},
                                {"name": "download", "mountPath": DOWNLOAD},
                            ],
                        }
                    ],
                    "volumes": [
                        {"name": "storage", "persistentVolumeClaim": {"claimName": request.storage}},
                        {"name": "download", "emptyDir": {}},
                    ],
                },
            },
        },
    }


def plan(request: DownloadModelInput, path: str) -> Plan:
    return Plan(
        request.name,
        (
            Step(
                "create",
                f"Job {job_name(request.repoId, request.revision)}",
                f"hf download {request.repoId} to the pod's local disk, then copy it to {path}",
                "StartDownload",
            ),
        ),
    )


def workflow(request: ModelDownloadWorkflowRequest, steps: Plan) -> WorkflowPlan:
    return WorkflowPlan.of(KIND, request, PHASES, steps.steps)


def found_models(storage: str, bucket: str, prefix: str, objects: list[dict[str, Any]]) -> list[ModelView]:
    """Models under ``prefix``models/: a folder (name or namespace/name) with a marker file at its root."""
    base = f"{prefix}{MODELS}/"
    roots: set[str] = set()
    for obj in objects:
        rest = obj["Key"][len(base) :].split("/")
        for depth in (1, 2):
            if len(rest) == depth + 1 and rest[-1] in MARKERS:
                roots.add("/".join(rest[:depth]))
    # a namespace folder holding models is not a model itself
    roots = {r for r in roots if not any(o != r and o.startswith(r + "/") for o in roots)}
    out = []
    for root in sorted(roots):
        inside = [o for o in objects if o["Key"].startswith(f"{base}{root}/")]
        out.append(
            ModelView(
                repoId=root,
                storageName=storage,
                path=f"s3://{bucket}/{base}{root}/",
                files=len(inside),
                sizeBytes=sum(int(o.get("Size", 0)) for o in inside),
            )
        )
    return out
