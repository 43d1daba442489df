"""What a training job logs about itself, and under which keys Launchpod reads it back from MLflow: its loss and
its throughput. Neither the HyperPod observability add-on nor the training operator exports them ("HyperPod
cluster metrics" lists the operator's job counts, restarts, uptime and faults only), so a job publishes them,
and Launchpod's jobs log to the cluster's MLflow tracking server.

Throughput has no common key, so Launchpod reads one documented set, the first key the job's run has in this
order (each value is charted as ``throughput`` with the key's unit, the key in the series' labels):

* ``tokens_per_second`` (tokens/s, every step): the key Launchpod asks a custom training script to log
  (``mlflow.log_metric("tokens_per_second", tokens / seconds, step=step)``); the sandbox's emulated trainers
  log it.
* ``train_tokens_per_second`` (tokens/s): Hugging Face Trainer's, in the end-of-training metrics with
  ``include_tokens_per_second`` and, in recent transformers, in each logging step's metrics with
  ``include_num_input_tokens_seen`` (a published trainer_state.json's log_history has it beside loss,
  grad_norm and learning_rate at every logging step:
  https://huggingface.co/Albert-CAC/agent2/blob/main/trainer_state.json; the transformers version that began
  doing so is **unverified**). The Trainer's MLflowCallback logs what the Trainer logs; LLaMA-Factory and
  MS-Swift train with that Trainer.
* ``perf/throughput`` (tokens/s per GPU, every step): verl's (verl/trainer/ppo/metric_utils.py,
  ``compute_throughout_metrics``: total tokens / (step time x GPUs)), with ``trainer.logger=[console,mlflow]``
  as the verl-ppo recipe sets it.
* ``train_samples_per_second`` (samples/s): Hugging Face Trainer's end-of-training speed metric, logged once
  when ``train()`` returns (one point, at the end).

Not read: MS-Swift's ``train_speed(iter/s)`` (iterations, not tokens or samples) and TorchTitan's
``throughput(tps)``, which TorchTitan writes to TensorBoard or Weights & Biases, not MLflow.
"""

from __future__ import annotations

LOSS = "loss"  # the key trainers log the training loss under (HF Trainer, NeMo, the sandbox's programs)
THROUGHPUT = "throughput"  # the metric name the series answers under, whichever key it was read from
THROUGHPUT_KEYS: tuple[tuple[str, str], ...] = (
    ("tokens_per_second", "tokens/s"),
    ("train_tokens_per_second", "tokens/s"),
    ("perf/throughput", "tokens/s/GPU"),
    ("train_samples_per_second", "samples/s"),
)
THROUGHPUT_HINT = (
    "log tokens_per_second to the job's MLflow run at each step (or Hugging Face Trainer's"
    " train_tokens_per_second with include_num_input_tokens_seen, or verl's perf/throughput)"
)
