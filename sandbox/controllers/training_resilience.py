"""How the emulated HyperPod training operator recovers checkpointless and elastic jobs from a node failure, and
how long each recovery took (sandbox.controllers.training calls it).

* Checkpointless ("In-process recovery and checkpointless training",
  https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-checkpointless-in-process-recovery.html): a job
  whose training container runs ``hyperpodrun --inprocess-restart`` with ``INPROCESS_RESTART=1`` keeps its model
  and optimizer state replicated on peer replicas. When a node fails, the failed node's pod is replaced, the
  healthy pods keep their processes, and the replacement receives the state from its peers: training resumes from
  the step it had reached ("no training progress is lost ... as opposed to resuming from the last saved
  checkpoint"). The node failure still counts as a job-level restart of the budget (the page's table: node
  replacement failure, Job Level Restart).
* Any other job restarts from its code's last checkpoint, so the steps since then are done again; the sandbox's
  ``jobCheckpointEverySteps`` control says how often the code checkpoints (every step unless set).
* Elastic ("Using elastic training in Amazon SageMaker HyperPod", .../sagemaker-eks-elastic-training.html,
  "Handing pod eviction, pod crashes, and hardware degradation"): when a pod's node is gone, the operator
  recreates the pod and waits up to ``elasticPolicy.faultyScaleDownTimeoutInSeconds`` for it to be placed; if it
  cannot be, the job scales down to the largest world size its policy allows with the pods it has (at least
  ``minReplicas``) and resumes from its checkpoint with fewer replicas. Scaling back up when capacity returns is
  not modelled.

A recovery ends when training gets past the step it had reached at the fault; the operator then records it as an
Event (reason ``TrainingRecovered``: how, the simulated seconds it took, the steps done again). AWS reports
recovery time as the observability add-on's ``training_fault_recovery_time_ms`` metric; the Event and its
wording, and ``status.elasticScalingStatus``'s keys, are the emulation's own (AWS documents neither).
"""

from __future__ import annotations

import time
from typing import Any

from sandbox.aws import clock
from sandbox.controllers.training_pods import _event, _Run, training_container, training_state

# AWS's elastic page's sample value; the operator's own default is not documented
DEFAULT_FAULTY_SCALE_DOWN_SECONDS = 30.0


def checkpointless(job: dict[str, Any]) -> bool:
    """True when the job's training container runs with in-process restart (the checkpointless samples' pod)."""
    for spec in job["spec"].get("replicaSpecs") or []:
        containers = spec["template"]["spec"].get("containers") or []
        if not containers:
            continue
        main = next(c for c in containers if c["name"] == training_container(containers))
        env = {e.get("name"): e.get("value") for e in main.get("env") or []}
        words = [str(w) for w in (main.get("command") or []) + (main.get("args") or [])]
        if env.get("INPROCESS_RESTART") == "1" and any("--inprocess-restart" in w for w in words):
            return True
    return False


def elastic(job: dict[str, Any]) -> dict[str, Any] | None:
    policy: dict[str, Any] | None = job["spec"].get("elasticPolicy")
    return policy


def checkpoint_step(step: int) -> int:
    """The step of the code's last checkpoint at ``step``."""
    every = max(training_state().settings.checkpoint_every, 1)
    return step // every * every


def fault_struck(run: _Run, how: str, keeps_progress: bool = False) -> None:
    """Remember the fault a recovery starts from (the first one, when another strikes mid-recovery) and roll
    training back to where the recovery resumes it: the step reached when the state comes from peers, else the
    code's last checkpoint."""
    if run.fault_at is None:
        run.fault_at, run.fault_step = time.monotonic(), run.step
    run.fault_how = how
    if not keeps_progress:
        run.step = checkpoint_step(run.step)
    run.resumed_from = run.step


async def recovered_if_past(emulator: Any, job: dict[str, Any], run: _Run) -> None:
    """Record the recovery once training is past the step reached at the fault (after a step is logged)."""
    if run.fault_at is None or run.step <= run.fault_step:
        return
    seconds = clock.sim_seconds_elapsed(run.fault_at)
    redone = max(run.fault_step - run.resumed_from, 0)
    await _event(
        emulator,
        job,
        "TrainingRecovered",
        f"{run.fault_how}: training passed step {run.fault_step} again {seconds:.0f} s after the fault; "
        f"{redone} step(s) done again",
    )
    run.fault_at = None


def scale_down_to(policy: dict[str, Any], placed: int) -> int | None:
    """The largest world size the elastic policy allows with ``placed`` pods, or None below minReplicas."""
    low, high = int(policy.get("minReplicas") or 1), int(policy.get("maxReplicas") or placed)
    if policy.get("replicaDiscreteValues"):
        sizes = [int(v) for v in policy["replicaDiscreteValues"] if low <= int(v) <= high]
    else:
        sizes = list(range(low, high + 1, int(policy.get("replicaIncrementStep") or 1)))
    fits = [n for n in sizes if n <= placed]
    return max(fits) if fits else None


def waited_too_long(job: dict[str, Any], run: _Run) -> bool:
    """An elastic job's replacement pod has waited past faultyScaleDownTimeoutInSeconds."""
    policy = elastic(job) or {}
    if run.unplaced_since is None:
        run.unplaced_since = time.monotonic()
        return False
    limit = float(policy.get("faultyScaleDownTimeoutInSeconds", DEFAULT_FAULTY_SCALE_DOWN_SECONDS))
    return clock.sim_seconds_elapsed(run.unplaced_since) > limit
