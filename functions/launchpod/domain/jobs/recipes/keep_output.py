"""Run a trainer with its output on node-local disk, then keep that output in the shared bucket.

Shipped into the training container by the recipes that set ``localOutput`` (the manifest puts this file's
text in the container's environment and the command writes it to /tmp before it execs the launcher), and
started by the launcher once per process in place of the trainer:

    hyperpodrun [launcher options] /tmp/keep_output.py LOCAL DEST (-m MODULE | SCRIPT) [ARGS ...]

Why: the shared bucket is a Mountpoint for Amazon S3 volume, which writes a new file once, sequentially, and
refuses appends to an existing one (https://github.com/awslabs/mountpoint-s3/blob/main/doc/SEMANTICS.md,
"Writes"). LLaMA-Factory and MS-Swift append a line to a log file in their output directory at every logging
step (LLaMA-Factory's ``trainer_log.jsonl``, MS-Swift's ``logging.jsonl``), so with the output on the bucket
the second log line fails the job. The trainer writes to LOCAL instead (the node's NVMe at /local, or an
emptyDir), and when every process on the node has finished well, local rank 0 copies LOCAL to DEST: new
files, each written once from its start, which Mountpoint allows (and replaces, with ``allow-overwrite``,
what an earlier run left). A run that fails copies nothing; its output stays on the node's NVMe for the
next attempt on that node. Python's standard library only: it runs in any training image.
"""

from __future__ import annotations

import os
import runpy
import shutil
import sys
import time

DONE = ".keep-output-done-"
WAIT_SECONDS = 3600  # the other processes on the node finish within this of the first


def run(target: list[str]) -> None:
    """Run ``-m MODULE args`` or ``SCRIPT args`` in this process, as ``python`` would."""
    if target[0] == "-m":
        sys.argv = [target[1], *target[2:]]
        runpy.run_module(target[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(target)
        sys.path.insert(0, os.path.dirname(os.path.abspath(target[0])))  # as `python SCRIPT` puts it first
        runpy.run_path(target[0], run_name="__main__")


def copy_tree(local: str, dest: str) -> list[str]:
    """Copy every file under ``local`` to the same place under ``dest`` (no metadata: Mountpoint refuses
    chmod and utime on an uploaded file); answer the copied paths, relative."""
    copied = []
    for root, _, names in os.walk(local):
        for name in sorted(names):
            if name.startswith(DONE):
                continue
            source = os.path.join(root, name)
            rel = os.path.relpath(source, local)
            target = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(source, "rb") as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out, 8 << 20)
            copied.append(rel)
    return copied


def finish(local: str, dest: str, rank: int, processes: int) -> None:
    """Mark this process done; local rank 0 waits for the node's others, then copies and clears LOCAL."""
    open(os.path.join(local, f"{DONE}{rank}"), "w").close()
    if rank != 0:
        return
    deadline = time.monotonic() + WAIT_SECONDS
    while sum(os.path.exists(os.path.join(local, f"{DONE}{r}")) for r in range(processes)) < processes:
        if time.monotonic() > deadline:
            raise SystemExit(f"keep_output: the node's {processes} processes did not all finish; {local} kept")
        time.sleep(1)
    copied = copy_tree(local, dest)
    print(f"keep_output: copied {len(copied)} files from {local} to {dest}", flush=True)
    shutil.rmtree(local, ignore_errors=True)


def main(argv: list[str]) -> None:
    if len(argv) < 3:
        raise SystemExit("usage: keep_output.py LOCAL DEST (-m MODULE | SCRIPT) [ARGS ...]")
    local, dest, target = argv[0], argv[1], argv[2:]
    rank, processes = int(os.environ.get("LOCAL_RANK", "0")), int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    os.makedirs(local, exist_ok=True)
    # A restarted process (the elastic agent restarts them all) is not done until this run ends.
    if os.path.exists(os.path.join(local, f"{DONE}{rank}")):
        os.remove(os.path.join(local, f"{DONE}{rank}"))
    try:
        run(target)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise
    finish(local, dest, rank, processes)


if __name__ == "__main__":
    main(sys.argv[1:])
