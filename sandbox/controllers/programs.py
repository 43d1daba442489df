"""What the workloads' programs read from the shared bucket, and the error each prints when it is not there.

A pod sees the bucket through its Mountpoint for Amazon S3 volumes (driver ``s3.csi.aws.com``: a claim
whose PersistentVolume names the bucket, ``prefix <p>/`` among its mount options, or an inline volume
with the same attributes). Mountpoint shows an object as a file and a key prefix as a directory; a
directory with no object under it does not exist, except the mount's root
(https://github.com/awslabs/mountpoint-s3/blob/main/doc/SEMANTICS.md). So a path under a mount exists
exactly when moto's bucket has that key, or keys under it. Paths outside every S3 mount are the image's
(or another volume's): the sandbox does not know them and lets them be.

Each program is recognised from its container's command and arguments, as Launchpod's recipes and
endpoints start it, and reads what its own code reads, in that order; the first thing missing is its
failure, with the words its code prints (the exception's last line; the traceback's frames are not
reproduced):

* a script run by torchrun or the HyperPod elastic agent's hyperpodrun: CPython's
  ``<python>: can't open file '<script>': [Errno 2] No such file or directory`` (Modules/main.c,
  pymain_run_file_obj; torchrun starts each worker with ``sys.executable``, /opt/conda/bin/python in the
  pytorch/pytorch images), exit code 2, then the launcher's ChildFailedError summary
  (torch/distributed/elastic/multiprocessing/errors/__init__.py) and its exit code 1. What the user's own
  script does with its arguments (``--data``) is its own and not modelled.
* LLaMA-Factory's trainer (/app/src/train.py <config.yaml>): the config is loaded with OmegaConf.load
  (src/llamafactory/hparams/parser.py, read_args), so a missing one is Python's FileNotFoundError; then the
  tokenizer from ``model_name_or_path`` (transformers), then ``dataset_info.json`` in ``dataset_dir``
  (src/llamafactory/data/parser.py, get_dataset_list: "Cannot open <path> due to <error>.").
* MS-Swift (``-m swift.cli.sft`` / ``swift.cli.rlhf``): ``--model`` through safe_snapshot_download, which
  refuses an absolute path that does not exist (swift/llm/model/utils.py: "path: '<p>' not found").
  Its words for a missing ``--dataset`` path differ between versions and were not found for 3.12: not
  modelled.
* TorchTitan (``-m torchtitan.train``, v0.2.2): the ``--job.config_file`` TOML is opened first
  (torchtitan/config/manager.py, ConfigManager._maybe_load_toml), so a missing one is Python's
  FileNotFoundError. Its other reads (tokenizer, dataset) are not modelled.
* VERL (``-m verl.trainer.main_ppo``): the tokenizer from ``actor_rollout_ref.model.path`` first
  (transformers), then each of ``data.train_files`` and ``data.val_files`` through Hugging Face datasets'
  ``load_dataset("parquet", data_files=...)`` (src/datasets/data_files.py, resolve_pattern:
  "Unable to find '<pattern>'").
* vLLM (``vllm serve <model>`` or ``--model``): a model directory without config.json (or params.json)
  fails loading its config (vllm/transformers_utils/config.py, get_config: "Invalid repository ID or local
  directory specified: ..."). SGLang (``--model-path``) loads it with transformers' AutoConfig.

transformers' words (src/transformers/utils/hub.py, cached_file): a path that does not exist is not a
repository id either, "Incorrect path_or_model_id: '<p>'. Please provide either the path to a local folder
or the repo_id of a model on the Hub."; a directory without the file "<p> does not appear to have a file
named config.json. Checkout 'https://huggingface.co/<p>/None' for available files."
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from typing import Any

import yaml

MOUNTPOINT = "s3.csi.aws.com"
PYTHON = "/opt/conda/bin/python"
LAUNCHERS = ("hyperpodrun", "torchrun")
LLAMA_FACTORY_TRAIN = "/app/src/train.py"
KEEP_OUTPUT = "keep_output.py"  # the recipes' wrapper for a trainer whose output waits on local disk


@dataclass(frozen=True)
class Mount:
    path: str  # where the container sees it
    bucket: str
    prefix: str  # key prefix of the mount's root: "" or ending in "/"


def _prefix_of(options: list[str]) -> str:
    return next((o.removeprefix("prefix ").strip() for o in options if o.startswith("prefix ")), "")


def source_of(emulator: Any, namespace: str, volume: dict[str, Any]) -> tuple[str, str, list[str]] | None:
    """(bucket, prefix, mount options) of a Mountpoint volume, None for any other kind."""
    claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
    if claim:
        found = emulator.get_object("v1/persistentvolumeclaims", namespace, claim)
        name = ((found or {}).get("spec") or {}).get("volumeName", "")
        spec = (emulator.get_object("v1/persistentvolumes", None, name) or {}).get("spec") or {}
        csi, options = spec.get("csi") or {}, list(spec.get("mountOptions") or [])
    else:
        csi = volume.get("csi") or {}
        options = str((csi.get("volumeAttributes") or {}).get("mountOptions", "")).split(",")
    if csi.get("driver") != MOUNTPOINT:
        return None
    return str((csi.get("volumeAttributes") or {}).get("bucketName", "")), _prefix_of(options), options


def mounts(emulator: Any, namespace: str, pod_spec: dict[str, Any], container: dict[str, Any]) -> list[Mount]:
    volumes = {v.get("name"): v for v in pod_spec.get("volumes") or []}
    found = []
    for mount in container.get("volumeMounts") or []:
        source = source_of(emulator, namespace, volumes.get(mount.get("name")) or {})
        if source is not None:
            bucket, prefix, _ = source
            if mount.get("subPath"):
                prefix += str(mount["subPath"]).strip("/") + "/"
            found.append(Mount(str(mount["mountPath"]).rstrip("/") or "/", bucket, prefix))
    return found


def _keys(bucket: str) -> dict[str, Any]:
    """The bucket's current objects (key -> moto key), from whichever account holds it; {} when none does."""
    from moto.s3.models import FakeDeleteMarker, s3_backends

    for account in list(s3_backends.keys()):
        found = s3_backends[account]["aws"].buckets.get(bucket)
        if found is not None:
            return {k: v for k, v in found.keys.items() if not isinstance(v, FakeDeleteMarker)}
    return {}


class Files:
    """The container's view of the bucket through its S3 mounts."""

    def __init__(self, found: list[Mount]) -> None:
        self.mounts = sorted(found, key=lambda m: len(m.path), reverse=True)

    def _locate(self, path: str) -> tuple[Mount, str] | None:
        path = "/" + path.strip("/")
        for m in self.mounts:
            if path == m.path or path.startswith(m.path.rstrip("/") + "/"):
                return m, path[len(m.path) :].strip("/")
        return None

    def kind(self, path: str) -> str | None:
        """ "file", "dir" or "missing" under a mount; None for a path on no S3 mount (not modelled)."""
        located = self._locate(path)
        if located is None:
            return None
        mount, rest = located
        if not rest:
            return "dir"
        key, keys = mount.prefix + rest, _keys(mount.bucket)
        if key in keys:
            return "file"
        return "dir" if any(k.startswith(key + "/") for k in keys) else "missing"

    def read(self, path: str) -> bytes | None:
        located = self._locate(path)
        if located is None:
            return None
        mount, rest = located
        found = _keys(mount.bucket).get(mount.prefix + rest)
        return bytes(found.value) if found is not None else None


def _no_file(path: str) -> str:
    return f"[Errno 2] No such file or directory: '{path}'"


def _transformers(files: Files, path: str) -> str | None:
    """transformers' error loading a tokenizer or config from ``path``, or None when it can."""
    kind = files.kind(path)
    if kind == "missing" or kind == "file":
        return (
            f"OSError: Incorrect path_or_model_id: '{path}'. Please provide either the path to a local folder or "
            "the repo_id of a model on the Hub."
        )
    if kind == "dir" and files.kind(path.rstrip("/") + "/config.json") != "file":
        return (
            f"OSError: {path} does not appear to have a file named config.json. Checkout "
            f"'https://huggingface.co/{path}/None' for available files."
        )
    return None


def _option(args: list[str], *names: str) -> str | None:
    """The value of ``--name=value`` or ``--name value``."""
    for i, arg in enumerate(args):
        for name in names:
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
            if arg == name and i + 1 < len(args):
                return args[i + 1]
    return None


def _overrides(args: list[str]) -> dict[str, str]:
    """Hydra's ``key=value`` overrides (VERL's command line)."""
    return dict(a.split("=", 1) for a in args if "=" in a and not a.startswith("-"))


def _llama_factory(files: Files, args: list[str]) -> str | None:
    config_path = args[0] if args else ""
    kind = files.kind(config_path)
    if kind in ("missing", "dir"):
        return f"FileNotFoundError: {_no_file(config_path)}"
    if kind is None:
        return None
    try:
        config = yaml.safe_load(files.read(config_path) or b"") or {}
    except yaml.YAMLError:
        return None  # OmegaConf's own parse error is not modelled
    model = str(config.get("model_name_or_path") or "")
    failed = _transformers(files, model) if model else None
    if failed:
        return failed
    dataset_dir = str(config.get("dataset_dir") or "data")
    info = dataset_dir.rstrip("/") + "/dataset_info.json"
    if config.get("dataset") and files.kind(info) in ("missing", "dir"):
        return f"ValueError: Cannot open {info} due to {_no_file(info)}."
    return None


def _swift(files: Files, args: list[str]) -> str | None:
    model = _option(args, "--model", "--model_id_or_path")
    if model and model.startswith("/") and files.kind(model) == "missing":
        return f"ValueError: path: '{model}' not found"
    return None


def _verl(files: Files, args: list[str]) -> str | None:
    values = _overrides(args)
    model = values.get("actor_rollout_ref.model.path")
    failed = _transformers(files, model) if model else None
    if failed:
        return failed
    for key in ("data.train_files", "data.val_files"):
        path = values.get(key)
        if path and files.kind(path) in ("missing", "dir"):
            return f"FileNotFoundError: Unable to find '{path}'"
    return None


def _torchtitan(files: Files, args: list[str]) -> str | None:
    config = _option(args, "--job.config_file", "--job.config-file")
    if config and files.kind(config) in ("missing", "dir"):
        return f"FileNotFoundError: {_no_file(config)}"
    return None


def _module_failure(files: Files, module: str, args: list[str]) -> str | None:
    if module == "torchtitan.train":
        return _torchtitan(files, args)
    if module.startswith("swift.cli."):
        return _swift(files, args)
    if module == "verl.trainer.main_ppo":
        return _verl(files, args)
    return None


def _child_failed(what: str, pod: str, exit_code: int) -> str:
    """torchrun's (and hyperpodrun's) summary when a worker exits non-zero."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d_%H:%M:%S")
    rule = "=" * 60
    return (
        f"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n{rule}\n{what} FAILED\n{'-' * 60}\n"
        f"Failures:\n  <NO_OTHER_FAILURES>\n{'-' * 60}\nRoot Cause (first observed failure):\n[0]:\n"
        f"  time      : {now}\n  host      : {pod}\n  rank      : 0 (local_rank: 0)\n"
        f"  exitcode  : {exit_code}\n  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
        f"{rule}\n"
    )


def _argv(container: dict[str, Any]) -> list[str]:
    return [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]


def _launched(container: dict[str, Any]) -> list[str]:
    """What the launcher (torchrun or hyperpodrun, directly or exec'd by a shell) starts: a script and its
    arguments, or ``-m <module>`` and its arguments; [] when the container runs no launcher."""
    argv = _argv(container)
    at = next((i for i, a in enumerate(argv) if a.rsplit("/", 1)[-1] in LAUNCHERS), None)
    if at is None:
        return []
    rest = argv[at + 1 :]
    while rest and rest[0].startswith("-") and rest[0] != "-m":
        rest = rest[1:]  # the launcher's own options (Launchpod writes them as --name=value)
    return rest


def _program(container: dict[str, Any]) -> tuple[list[str], str | None, tuple[str, str] | None]:
    """What the launcher starts: the program and its arguments, the script that runs it (the launched script
    itself, or Launchpod's keep_output.py wrapper), and that wrapper's (local, destination) folders or None.
    keep_output.py (launchpod/domain/jobs/recipes) runs ``LOCAL DEST (-m MODULE | SCRIPT) ARGS`` in its own
    process, then copies LOCAL to DEST once the node's processes have all finished well."""
    rest = _launched(container)
    if len(rest) >= 4 and rest[0].rsplit("/", 1)[-1] == KEEP_OUTPUT:
        return rest[3:], rest[0], (rest[1], rest[2])
    return rest, (rest[0] if rest and rest[0] != "-m" else None), None


def training_failure(files: Files, container: dict[str, Any], pod: str) -> str | None:
    """The log of a training container whose launcher's worker cannot start for want of a file in the bucket,
    or None. The container runs torchrun or hyperpodrun (directly or exec'd by a shell)."""
    rest, launched, _ = _program(container)
    if not rest:
        return None
    if rest[0] == "-m" and len(rest) > 1:
        module, args = rest[1], rest[2:]
        failed = _module_failure(files, module, args)
        return f"{failed}\n" + _child_failed(launched or module, pod, 1) if failed else None
    script, args = rest[0], rest[1:]
    if files.kind(script) in ("missing", "dir"):
        return f"{PYTHON}: can't open file '{script}': [Errno 2] No such file or directory\n" + _child_failed(
            launched or script, pod, 2
        )
    if script == LLAMA_FACTORY_TRAIN:
        failed = _llama_factory(files, args)
        return f"{failed}\n" + _child_failed(launched or script, pod, 1) if failed else None
    return None


def entrypoint_failure(files: Files, entrypoint: str) -> str | None:
    """The driver's last line when a RayJob's entrypoint (``python3 -m <module> ...``) lacks a file, or None."""
    argv = entrypoint.split()
    if "-m" not in argv[:-1]:
        return None
    at = argv.index("-m")
    return _module_failure(files, argv[at + 1], argv[at + 2 :])


def serving_failure(files: Files, container: dict[str, Any]) -> str | None:
    """The error a model server prints and exits with when its model directory in the bucket is empty, or None.
    vLLM's images start ``vllm serve`` with the container's args; SGLang's are started with a command."""
    image = str(container.get("image", "")).split("@")[0].rsplit(":", 1)[0]
    argv = _argv(container)
    if image.endswith(("vllm/vllm-openai", "lmcache/vllm-openai")):
        args = [str(a) for a in container.get("args") or []]
        model = _option(argv, "--model") or (args[0] if args and not args[0].startswith("-") else None)
        if model and files.kind(model) is not None and files.kind(model.rstrip("/") + "/config.json") != "file":
            if files.kind(model.rstrip("/") + "/params.json") == "file":
                return None
            return (
                f"ValueError: Invalid repository ID or local directory specified: '{model}'.\n"
                "Please verify the following requirements:\n"
                "1. Provide a valid Hugging Face repository ID.\n"
                "2. Specify a local directory that contains a recognized configuration file.\n"
                "   - For Hugging Face models: ensure the presence of a 'config.json'.\n"
                "   - For Mistral models: ensure the presence of a 'params.json'.\n"
                "3. For GGUF: pass the local path of the GGUF checkpoint.\n"
                "   Loading GGUF from a remote repo directly is not yet supported.\n"
            )
        return None
    if image.endswith("lmsysorg/sglang"):
        model = _option(argv, "--model-path", "--model")
        if model and files.kind(model) is not None:
            failed = _transformers(files, model)
            return failed + "\n" if failed else None
    return None


def training_writes(
    files: Files, writable: Any, container: dict[str, Any], pod: str, step: int, last: bool
) -> str | None:
    """What the training's main process writes at ``step`` through ``writable`` (``mountpoint.Files``), and
    the log of its failure, or None.

    LLaMA-Factory's trainer: its LogCallback appends each log record to ``<output_dir>/trainer_log.jsonl``,
    opening it with ``open(..., "a")`` every time (src/llamafactory/train/callbacks.py, ``_write_log``), at
    each logging step of Hugging Face's Trainer (``logging_steps``, 500 by default, TrainingArguments; a ratio
    below 1 is not modelled) and once more for the summary at the end of ``train()``. ``output_dir`` is the
    YAML's, or a ``key=value`` override after it (src/llamafactory/hparams/parser.py, read_args). On a
    Mountpoint volume the second append fails with EPERM: appending needs ``--incremental-upload``, which only
    S3 Express One Zone supports (``mountpoint``). Its other writes (checkpoint-N folders, the final model:
    new files; ``running_log.txt``, one handle for the whole run) and the other trainers' writes are not
    modelled. Under keep_output.py, when training ends the local folder is copied to the destination, file by
    file (open "wb", write, close: what keep_output.copy_tree does)."""
    rest, launched, kept = _program(container)
    failed = _llama_factory_writes(files, writable, rest, step, last)
    if failed is None and last and kept is not None:
        local, dest = kept
        try:
            for rel in writable.walk(local) if writable.kind(local) == "dir" else []:
                writable.makedirs(f"{dest}/{rel}".rsplit("/", 1)[0])
                writable.write_file(f"{dest}/{rel}", writable.read(f"{local}/{rel}"), "wb")
        except OSError as e:
            failed = f"{type(e).__name__}: {e}"
    return f"{failed}\n" + _child_failed(launched or LLAMA_FACTORY_TRAIN, pod, 1) if failed else None


def _llama_factory_writes(files: Files, writable: Any, rest: list[str], step: int, last: bool) -> str | None:
    if len(rest) < 2 or rest[0] != LLAMA_FACTORY_TRAIN or files.kind(rest[1]) != "file":
        return None
    try:
        config = yaml.safe_load(files.read(rest[1]) or b"") or {}
    except yaml.YAMLError:
        return None
    output = _overrides(rest[2:]).get("output_dir") or str(config.get("output_dir") or "")
    every = config.get("logging_steps", 500)
    if not output or not isinstance(every, int) or every < 1:
        return None
    records = [{"current_steps": step}] * (step % every == 0) + [{"current_steps": step, "train_runtime": 1}] * last
    try:
        for record in records:
            writable.makedirs(output)
            writable.write_file(f"{output.rstrip('/')}/trainer_log.jsonl", (json.dumps(record) + "\n").encode(), "a")
    except OSError as e:
        return f"{type(e).__name__}: {e}"
    return None
