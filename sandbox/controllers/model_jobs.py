"""Model-download Jobs (label ``launchpod.io/model-download``): a Job controller for them, and the programs
their script runs, with no internet.

The Job gets one Pod placed by the scheduler's rules and pulling its image as any Pod (sandbox.controllers.workloads);
a referenced Secret that does not exist leaves the container in CreateContainerConfigError
("secret \"<name>\" not found", the kubelet's words). Once running, its ``sh -c`` script's steps run in order
against the container's files (sandbox.controllers.mountpoint: its Mountpoint volumes with Mountpoint's semantics, its
other volumes local disk):

* ``hf download "$REPO_ID" ... --local-dir <dir>`` writes a small model tree (config.json,
  generation_config.json, tokenizer.json, model.safetensors, README.md) into ``<dir>`` with the file operations
  huggingface_hub makes (sandbox.controllers.hf_hub); a repository under a gated namespace without HF_TOKEN fails as
  huggingface_hub does (401, GatedRepoError);
* ``python3 - <<'EOF' ... EOF`` is Launchpod's copy of that tree to the bucket
  (launchpod.domain.inference.models.COPY): for each file under ``$DOWNLOAD`` but ``.cache/``, in name order,
  a file of the same size at ``$TARGET`` is kept, one of another size unlinked, then the file written anew
  (``os.makedirs``, ``shutil.copyfile``: open "wb", sequential writes, close);
* any other step (``pip install``, ``set``) changes nothing the sandbox models.

A step that fails ends the script (``set -e``) with the exception's last line in the Pod's log and exit code
1, and the Job controller marks the Job Failed (backoffLimit is not replayed). On success the Job gets the
``Complete`` condition and the Pod ``Succeeded``, as the Job controller reports them
(https://kubernetes.io/docs/concepts/workloads/controllers/job/).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from sandbox.controllers import hf_hub, mountpoint, workloads
from sandbox.controllers.common import timestamp

LABEL = "launchpod.io/model-download"
JOBS = "batch/v1/jobs"
GATED = ("meta-llama", "mistralai", "google")  # namespaces whose repositories need an accepted licence


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env") or []}


def _is_mountpoint(emulator: Any, namespace: str, claim: str) -> bool:
    found = emulator.get_object("v1/persistentvolumeclaims", namespace, claim)
    volume = emulator.get_object("v1/persistentvolumes", None, ((found or {}).get("spec") or {}).get("volumeName", ""))
    return (((volume or {}).get("spec") or {}).get("csi") or {}).get("driver") == mountpoint.DRIVER


def _tree(repo_id: str, revision: str) -> dict[str, bytes]:
    config = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "_name_or_path": repo_id}
    return {
        "config.json": json.dumps(config).encode(),
        "generation_config.json": b'{"max_new_tokens": 256}',
        "tokenizer.json": b'{"version": "1.0", "model": {"type": "BPE"}}',
        "model.safetensors": b"\x08\x00\x00\x00\x00\x00\x00\x00{}      " + b"\x00" * 1024,
        "README.md": f"# {repo_id}\n\nrevision {revision} (sandbox copy)\n".encode(),
    }


def _expand(word: str, env: dict[str, Any]) -> str:
    """A shell word's value: quotes dropped, ``$NAME``/``${NAME}`` from the container's environment."""
    return re.sub(r"\$\{?(\w+)\}?", lambda m: str(env.get(m.group(1)) or ""), word.strip("\"'"))


def _steps(script: str) -> list[str]:
    """The script's commands in order: lines and ``&&`` chains, a heredoc kept whole with its command."""
    steps: list[str] = []
    lines = script.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        heredoc = re.search(r"<<-?\s*'?\"?(\w+)'?\"?", line)
        if heredoc:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == heredoc.group(1)), len(lines))
            steps.append("\n".join(lines[i : end + 1]))
            i = end + 1
            continue
        steps.extend(part.strip() for part in line.split("&&") if part.strip())
        i += 1
    return steps


def _copy(files: mountpoint.Files, source: str, target: str) -> int:
    """Launchpod's copy step (launchpod.domain.inference.models.COPY), as its file operations: the number of
    files written."""
    written = 0
    for name in files.walk(source):
        if name.startswith(".cache/"):
            continue
        src, dst = f"{source.rstrip('/')}/{name}", f"{target.rstrip('/')}/{name}"
        body = files.read(src)
        if files.kind(dst) == "file":
            if len(files.read(dst)) == len(body):
                continue
            files.unlink(dst)
        files.makedirs(dst.rsplit("/", 1)[0])
        files.write_file(dst, body)
        written += 1
    return written


def _script(files: mountpoint.Files, script: str, env: dict[str, Any], repo: str, revision: str) -> tuple[bool, str]:
    """Run the script's steps: (succeeded, the log's lines)."""
    out: list[str] = []
    for step in _steps(script):
        words = step.split()
        if words[:2] == ["exec", "hf"] or words[:1] == ["hf"]:
            words = words[1:] if words[0] == "exec" else words
            if words[1:2] != ["download"] or "--local-dir" not in words[:-1]:
                continue
            local_dir = _expand(words[words.index("--local-dir") + 1], env)
            failed, warnings = hf_hub.download(
                files, local_dir, _tree(repo, revision), hashlib.sha1(f"{repo}@{revision}".encode()).hexdigest()
            )
            out += warnings
            if failed:
                return False, "\n".join([*out, failed])
            count = len(_tree(repo, revision))
            out.append(f"Fetching {count} files: 100%|##########| {count}/{count}\n{local_dir}")
        elif re.match(r"(exec\s+)?python3?\s+-(\s|$)", step):
            source, target = _expand("$DOWNLOAD", env), _expand("$TARGET", env)
            try:
                written = _copy(files, source, target)
            except OSError as e:
                return False, "\n".join([*out, f"{type(e).__name__}: {e}"])
            out.append(f"copied {written} files to {target}")
    return True, "\n".join(out)


async def _finish(emulator: Any, job: dict[str, Any], pod: dict[str, Any], ok: bool, message: str) -> None:
    now = timestamp()
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
            await emulator.put_object(JOBS, {**job, "status": {"active": 1, "startTime": timestamp()}})
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
    if repo.split("/")[0] in GATED and token is None:
        message = (
            f"401 Client Error. Cannot access gated repo for url https://huggingface.co/{repo}/resolve/{revision}/"
            "config.json. Access to model is restricted. You must have access to it and be authenticated."
        )
        emulator.append_log(meta["namespace"], name, f"huggingface_hub.errors.GatedRepoError: {message}\n")
        await _finish(emulator, job, pod, False, message)
        return
    if not claim or not _is_mountpoint(emulator, meta["namespace"], claim):
        await _finish(emulator, job, pod, False, f"{target}: the volume is not an S3 (Mountpoint) volume")
        return
    files = mountpoint.volumes(emulator, meta["namespace"], template["spec"], container)
    ok, text = _script(files, str((container.get("command") or [""])[-1]), env, repo, revision)
    emulator.append_log(meta["namespace"], name, text + "\n")
    message = text.rsplit("\n", 1)[-1]
    await _finish(emulator, job, pod, ok, f"downloaded to {target}" if ok else message)


async def reconcile(emulator: Any) -> None:
    nodes = emulator.list_objects("v1/nodes")
    for job in emulator.list_objects(JOBS):
        if LABEL in ((job.get("metadata") or {}).get("labels") or {}):
            await _run(emulator, job, nodes)
