"""keep_output.py, run as the launcher runs it (one Python process per local rank): the trainer's output on
local disk reaches the destination only when every process on the node has finished well."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from launchpod.domain.jobs.recipes import KEEP_OUTPUT_ENV, keep_output_source, recipe

TRAINER = """
import os, sys
out = sys.argv[sys.argv.index("--output_dir") + 1]
os.makedirs(f"{out}/checkpoint-2", exist_ok=True)
for step in range(3):  # a log appended at every logging step, as LLaMA-Factory and MS-Swift do
    with open(f"{out}/trainer_log.jsonl", "a") as log:
        log.write('{"step": %d}\\n' % step)
open(f"{out}/checkpoint-2/model.safetensors", "wb").write(b"w" * 10)
sys.exit(int(os.environ.get("FAIL", "0")))
"""


def _run(tmp: Path, rank: int = 0, processes: int = 1, fail: bool = False) -> subprocess.CompletedProcess:
    wrapper, trainer = tmp / "keep_output.py", tmp / "train.py"
    wrapper.write_text(keep_output_source())
    trainer.write_text(TRAINER)
    local, dest = tmp / "local", tmp / "bucket" / "jobs" / "j" / "output"
    env = {**os.environ, "LOCAL_RANK": str(rank), "LOCAL_WORLD_SIZE": str(processes), "FAIL": "1" if fail else "0"}
    argv = [sys.executable, str(wrapper), str(local), str(dest), str(trainer), "--output_dir", str(local)]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)


def test_a_finished_run_keeps_its_output_at_the_destination_and_clears_the_node(tmp_path):
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    dest = tmp_path / "bucket" / "jobs" / "j" / "output"
    assert (dest / "trainer_log.jsonl").read_text().count("\n") == 3
    assert (dest / "checkpoint-2" / "model.safetensors").read_bytes() == b"w" * 10
    assert not (tmp_path / "local").exists()
    assert "copied 2 files" in done.stdout


def test_a_failed_run_copies_nothing_and_keeps_its_output_on_the_node(tmp_path):
    failed = _run(tmp_path, fail=True)
    assert failed.returncode == 1
    assert not (tmp_path / "bucket").exists()
    assert (tmp_path / "local" / "trainer_log.jsonl").exists()


def test_local_rank_zero_copies_only_after_the_nodes_other_processes_have_finished(tmp_path):
    # rank 1 finishes first and copies nothing; rank 0 then finds it done and copies
    assert _run(tmp_path, rank=1, processes=2).returncode == 0
    assert not (tmp_path / "bucket").exists()
    done = _run(tmp_path, rank=0, processes=2)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "bucket" / "jobs" / "j" / "output").iterdir()) == [
        "checkpoint-2",
        "trainer_log.jsonl",
    ]


def test_the_recipes_whose_trainers_append_to_their_output_write_it_on_the_node():
    for name in ("llama-factory", "ms-swift-sft", "ms-swift-grpo"):
        r = recipe(name)
        assert r.localOutput, name
        assert "/tmp/keep_output.py" in r.command and f'"${KEEP_OUTPUT_ENV}"' in r.command[2], name
        assert not any("=${DATA}/jobs/${JOB}/output" in part for part in r.command), name
