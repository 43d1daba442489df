"""Model-download Jobs (label ``launchpod.io/model-download``): a Job controller for them, and the
``hf download`` they run, with no internet.

The Job gets one Pod placed by the scheduler's rules and pulling its image as any Pod (sandbox.workloads);
a referenced Secret that does not exist leaves the container in CreateContainerConfigError
("secret \"<name>\" not found", the kubelet's words). Once running, the download writes a small model tree
(config.json, generation_config.json, tokenizer.json, model.safetensors, README.md) into the bucket and
prefix of the claim's Mountpoint volume, under the TARGET path; a repository under a gated namespace
without HF_TOKEN fails as huggingface_hub does (401, GatedRepoError), and the Job controller then marks
the Job Failed (backoffLimit is not replayed). On success the Job gets the ``Complete`` condition and the
Pod ``Succeeded``, as the Job controller reports them (https://kubernetes.io/docs/concepts/workloads/controllers/job/).
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from sandbox import workloads

LABEL = "launchpod.io/model-download"
JOBS = "batch/v1/jobs"
GATED = ("meta-llama", "mistralai", "google")  # namespaces whose repositories need an accepted licence


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env") or []}


def _bucket_of(emulator: Any, namespace: str, claim: str) -> tuple[str, str] | None:
    found = emulator.get_object("v1/persistentvolumeclaims", namespace, claim)
    volume = emulator.get_object("v1/persistentvolumes", None, ((found or {}).get("spec") or {}).get("volumeName", ""))
    csi = ((volume or {}).get("spec") or {}).get("csi") or {}
    if csi.get("driver") != "s3.csi.aws.com":
        return None
    options = (volume or {}).get("spec", {}).get("mountOptions") or []
    prefix = next((o.removeprefix("prefix ") for o in options if o.startswith("prefix ")), "")
    return str(csi["volumeAttributes"]["bucketName"]), prefix


def _write_tree(bucket: str, key_prefix: str, repo_id: str, revision: str) -> list[str]:
    from moto.s3.models import s3_backends

    backend = s3_backends["123456789012"]["aws"]
    config = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "_name_or_path": repo_id}
    files = {
        "config.json": json.dumps(config).encode(),
        "generation_config.json": b'{"max_new_tokens": 256}',
        "tokenizer.json": b'{"version": "1.0", "model": {"type": "BPE"}}',
        "model.safetensors": b"\x08\x00\x00\x00\x00\x00\x00\x00{}      " + b"\x00" * 1024,
        "README.md": f"# {repo_id}\n\nrevision {revision} (sandbox copy)\n".encode(),
    }
    for name, body in files.items():
        backend.put_object(bucket, f"{key_prefix}{name}", body)
    return list(files)


async def _finish(emulator: Any, job: dict[str, Any], pod: dict[str, Any], ok: bool, message: str) -> None:
    now = _now()
    pod["status"] = {
        "phase": "Succeeded" if ok else "Failed",
        "conditions": [{"type": "Ready", "status": "False", "reason": "PodCompleted"}],
        "containerStatuses": [
            {
                "name": "download",
                "ready": False,
                "restartCount": 0,
                "image": pod["spec"]["containers"][0].get("image", ""),
                "imageID": "",
                "state": {"terminated": {"exitCode": 0 if ok else 1, "reason": "Completed" if ok else "Error"}},
            }
        ],
    }
    await emulator.put_object("v1/pods", pod)
    condition = {
        "type": "Complete" if ok else "Failed",
        "status": "True",
        "reason": "Completed" if ok else "BackoffLimitExceeded",
        "message": message,
        "lastTransitionTime": now,
    }
    job["status"] = {"succeeded": 1} if ok else {"failed": 1}
    job["status"] |= {"conditions": [condition], "startTime": now, "completionTime": now}
    await emulator.put_object(JOBS, job)


async def _run(emulator: Any, job: dict[str, Any], nodes: list[dict[str, Any]]) -> None:
    meta = job["metadata"]
    if any(c.get("status") == "True" for c in (job.get("status") or {}).get("conditions") or []):
        return
    template = (job.get("spec") or {}).get("template") or {}
    name = f"{meta['name']}-0"
    ready = await workloads._place(emulator, "Job", meta, name, template, nodes, None, None)
    pod = emulator.get_object("v1/pods", meta["namespace"], name)
    if not ready or pod is None:
        if (job.get("status") or {}).get("active") != 1:
            await emulator.put_object(JOBS, {**job, "status": {"active": 1, "startTime": _now()}})
        return
    container = template["spec"]["containers"][0]
    env = _env(container)
    token = env.get("HF_TOKEN")
    if isinstance(token, dict):
        ref = token.get("secretKeyRef") or {}
        found = emulator.get_object("v1/secrets", meta["namespace"], ref.get("name", ""))
        if found is None:
            pod["status"]["containerStatuses"][0].update(
                ready=False,
                state={
                    "waiting": {
                        "reason": "CreateContainerConfigError",
                        "message": f'secret "{ref.get("name")}" not found',
                    }
                },
            )
            await emulator.put_object("v1/pods", pod)
            return
    repo, revision, target = str(env.get("REPO_ID")), str(env.get("REVISION")), str(env.get("TARGET"))
    claim = next(
        (
            v["persistentVolumeClaim"]["claimName"]
            for v in template["spec"].get("volumes", [])
            if "persistentVolumeClaim" in v
        ),
        None,
    )
    source = _bucket_of(emulator, meta["namespace"], claim) if claim else None
    if repo.split("/")[0] in GATED and token is None:
        message = (
            f"401 Client Error. Cannot access gated repo for url https://huggingface.co/{repo}/resolve/{revision}/"
            "config.json. Access to model is restricted. You must have access to it and be authenticated."
        )
        emulator.append_log(meta["namespace"], name, f"huggingface_hub.errors.GatedRepoError: {message}\n")
        await _finish(emulator, job, pod, False, message)
        return
    if source is None:
        await _finish(emulator, job, pod, False, f"{target}: the volume is not an S3 (Mountpoint) volume")
        return
    bucket, prefix = source
    mount = next(m["mountPath"] for m in container.get("volumeMounts", []) if m["name"] == "storage")
    key_prefix = prefix + target.removeprefix(mount).strip("/") + "/"
    files = _write_tree(bucket, key_prefix, repo, revision)
    emulator.append_log(
        meta["namespace"], name, f"Fetching {len(files)} files: 100%|##########| {len(files)}/{len(files)}\n{target}\n"
    )
    await _finish(emulator, job, pod, True, f"downloaded {len(files)} files to {target}")


async def reconcile(emulator: Any) -> None:
    nodes = emulator.list_objects("v1/nodes")
    for job in emulator.list_objects(JOBS):
        if LABEL in ((job.get("metadata") or {}).get("labels") or {}):
            await _run(emulator, job, nodes)
