"""The HyperPod training operator, emulated for the sandbox's Kubernetes APIs, and the controller loop that
runs it and KubeRay (sandbox.controllers.kuberay); the jobs' pods are sandbox.controllers.training_pods'.

What AWS documents about the operator ("Using the HyperPod training operator" and "Using the training
operator to run jobs", https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-operator.html and
.../sagemaker-eks-operator-usage.html), and the sandbox does:

* It runs only once its EKS add-on (amazon-sagemaker-hyperpod-training-operator) is ACTIVE; the add-on
  installs the HyperPodPyTorchJob CRD. Without it a HyperPodPyTorchJob is stored and nothing runs it.
* A job gets ``replicas`` pods per replica spec, placed by kube-scheduler's rules (sandbox.controllers.scheduling),
  so the GPUs and EFA interfaces they request must fit a node; a pod that fits nowhere stays Pending
  with FailedScheduling and the job stays Created. A bound pod whose Secret or ConfigMap volume is missing
  stays Pending with the kubelet's FailedMount (sandbox.controllers.mounts) until it exists.
* Faults are recovered at the process level first: the elastic agent restarts the training processes in
  place, up to ``restartPolicy.numRestartBeforeFullJobRestart`` times within ``evalPeriodSeconds``;
  then the whole job is restarted (every pod recreated), up to ``maxFullJobRestarts``. Every restart
  uses one of ``jobMaxRetryCount``; a fault with no budget left fails the job.
* Log monitoring: a rule whose ``logPattern`` has not matched for ``expectedRecurringFrequencyInSeconds``
  (or not within ``expectedStartCutOffInSeconds`` of the start) is hanging, reported as
  ``LogStateHanging_<rule>``, and recovered like a fault.
* Worker processes that start without what they read in the shared bucket (a script, a config, a dataset, a
  model: sandbox.controllers.programs) exit with their program's error in the pod's log, and are recovered as any
  process failure: each restart fails the same way until the file is there or the budget is spent.
* The job ends Completed when every pod's training finished, Failed with the reason otherwise.
* With task governance on, a job labelled ``kueue.x-k8s.io/queue-name`` starts only once Kueue admits its
  Workload (sandbox.controllers.kueue_admission); a preempted one loses its pods and is Suspended until
  admitted again, then resumes from its code's last checkpoint (the steps since are done again, as after a
  full job restart; ``jobCheckpointEverySteps`` says how often it checkpoints).

AWS does not document the label keys the operator puts on its pods; the pods carry the template's
labels plus ``sagemaker.amazonaws.com/hyperpod-job-name`` and ``...-replica-index`` (the sandbox's names).

Simulated time runs at the sandbox's time scale; pods log one training step every ``log_interval``
simulated seconds (``POST /api/sandbox/faults {"jobLogIntervalSeconds": n}``) for ``steps`` steps.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from sandbox.aws import clock, mlflow
from sandbox.controllers import kuberay, kueue_admission, mountpoint, programs
from sandbox.controllers import training_resilience as resilience
from sandbox.controllers.common import crd, install_crd, timestamp
from sandbox.controllers.periodic import Periodic
from sandbox.controllers.training_pods import (  # re-exported: the controls and tests reach them here
    Settings,
    _event,
    _finish_pod,
    _loss,
    _place,
    _pod,
    _Run,
    _tokens_per_second,
    _write,
    training_container,
    training_state,
)

log = logging.getLogger("sandbox.controllers.training")

OPERATOR_ADDON = "amazon-sagemaker-hyperpod-training-operator"
KUEUE_ADDON = "amazon-sagemaker-hyperpod-taskgovernance"  # runs Kueue (sandbox.controllers.kueue)
PYTORCH = "sagemaker.amazonaws.com/v1/hyperpodpytorchjobs"
JOB_NAME_LABEL = "sagemaker.amazonaws.com/hyperpod-job-name"
REPLICA_LABEL = "sagemaker.amazonaws.com/hyperpod-replica-index"
FAULT_KINDS = ("processCrash", "hang", "nodeFailure")
PYTORCH_CRD = crd("sagemaker.amazonaws.com", "HyperPodPyTorchJob", "hyperpodpytorchjobs")


def inject(
    cluster: str, namespace: str, job: str, kind: str, pod: str | None = None, at_step: int | None = None
) -> None:
    """Queue a fault for a job: it strikes at the job's next reconcile while Running, or, with ``at_step``,
    once training has done that many steps (training does not step past it before the fault strikes, so a
    fault queued before the job starts cannot miss a short run)."""
    if kind not in FAULT_KINDS:
        raise ValueError(f"jobFault kind is one of {', '.join(FAULT_KINDS)}, not {kind!r}")
    fault: dict[str, Any] = {"cluster": cluster, "namespace": namespace, "job": job, "kind": kind, "pod": pod or ""}
    if at_step is not None:
        fault["atStep"] = at_step
    state = training_state()
    with state.lock:
        state.faults.append(fault)


def clear() -> None:
    state = training_state()
    with state.lock:
        state.faults.clear()
    state.settings = Settings()


def describe() -> list[dict[str, Any]]:
    state = training_state()
    with state.lock:
        return [dict(f) for f in state.faults]


def _take_fault(cluster: str, namespace: str, job: str, step: int) -> tuple[str, str] | None:
    """The oldest fault due for the job (one per reconcile: each one is a separate failure)."""
    state = training_state()
    with state.lock:
        for f in state.faults:
            if (f["cluster"], f["namespace"], f["job"]) == (cluster, namespace, job) and step >= f.get("atStep", 0):
                state.faults.remove(f)
                return str(f["kind"]), str(f["pod"])
    return None


def _next_fault_step(cluster: str, namespace: str, job: str) -> int:
    """The step training holds at until a queued ``atStep`` fault strikes (no limit without one)."""
    state = training_state()
    with state.lock:
        due = [
            int(f["atStep"])
            for f in state.faults
            if "atStep" in f and (f["cluster"], f["namespace"], f["job"]) == (cluster, namespace, job)
        ]
    return min(due, default=state.settings.steps)


# ------------------------------------------------------------------ HyperPodPyTorchJob
def _condition(job: dict[str, Any], kind: str, reason: str, message: str) -> None:
    status = job.setdefault("status", {})
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != kind]
    for c in conditions:
        c["status"] = "False"
    conditions.append(
        {"type": kind, "status": "True", "reason": reason, "message": message, "lastTransitionTime": timestamp()}
    )
    status["conditions"] = conditions


def _latest(job: dict[str, Any]) -> str | None:
    true = [c["type"] for c in (job.get("status") or {}).get("conditions") or [] if c.get("status") == "True"]
    return true[-1] if true else None


def _job_pods(emulator: Any, job: dict[str, Any]) -> list[dict[str, Any]]:
    meta = job["metadata"]
    return sorted(
        (
            p
            for p in emulator.list_objects("v1/pods", meta["namespace"])
            if (p["metadata"].get("labels") or {}).get(JOB_NAME_LABEL) == meta["name"]
        ),
        key=lambda p: p["metadata"]["name"],
    )


def _on_lost_node(emulator: Any, pods: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first pod still running or starting on a Node that no longer exists, if any."""
    nodes = {n["metadata"]["name"] for n in emulator.list_objects("v1/nodes")}
    for pod in pods:
        node = (pod.get("spec") or {}).get("nodeName")
        if node and node not in nodes and (pod.get("status") or {}).get("phase") in ("Pending", "Running"):
            return pod
    return None


async def _create_pods(emulator: Any, job: dict[str, Any], only: set[str] | None = None) -> None:
    """Each replica's pod (``only`` these names when given), as many as the replica spec asks or, for an
    elastic job scaled down, as its current world size."""
    meta = job["metadata"]
    scaled = ((job.get("status") or {}).get("elasticScalingStatus") or {}).get("currentReplicas")
    for spec in job["spec"].get("replicaSpecs") or []:
        count = int(spec.get("replicas") or 0) if scaled is None else int(scaled)
        for i in range(count):
            name = f"{meta['name']}-{spec['name']}-{i}"
            if only is not None and name not in only:
                continue
            for container in spec["template"]["spec"]["containers"]:  # a recreated pod starts new logs
                key = (meta["namespace"], name, container["name"])
                emulator.pod_logs.pop(key, None)
                emulator.pod_log_marks.pop(key, None)
            labels = {JOB_NAME_LABEL: meta["name"], REPLICA_LABEL: str(i)}
            await emulator.put_object("v1/pods", _pod(job, name, spec["template"], labels))


async def _delete_pods(emulator: Any, job: dict[str, Any]) -> None:
    for pod in _job_pods(emulator, job):
        await emulator.delete_object("v1/pods", pod["metadata"]["namespace"], pod["metadata"]["name"])


async def _fail(emulator: Any, job: dict[str, Any], reason: str, message: str) -> None:
    for pod in _job_pods(emulator, job):
        if pod["status"].get("phase") == "Running":
            await _finish_pod(emulator, pod, "Failed", 1, "Error")
    _condition(job, "Failed", reason, message)
    await emulator.put_object(PYTORCH, job)
    await _event(emulator, job, reason, message, warning=True)


async def _recover(emulator: Any, job: dict[str, Any], run: _Run, what: str, pod_name: str, node_lost: bool) -> None:
    """The restart ladder for one fault: process level, then full job, then Failed."""
    run_policy = job["spec"].get("runPolicy") or {}
    policy = run_policy.get("restartPolicy") or {}
    status = job.setdefault("status", {})
    restart = status.setdefault("restartStatus", {"restartCount": 0, "fullJobRestartCount": 0})
    used = int(restart.get("restartCount", 0)) + int(restart.get("fullJobRestartCount", 0))
    limit = int(run_policy.get("jobMaxRetryCount", 0))
    if used >= limit:
        await _fail(
            emulator,
            job,
            "JobMaxRetryCountExceeded",
            f"{what} on {pod_name} with the retry budget spent: {used} of jobMaxRetryCount {limit} restarts used.",
        )
        return
    period = float(policy.get("evalPeriodSeconds", 21600))
    now = time.monotonic()
    run.window = [t for t in run.window if clock.sim_seconds_elapsed(t) <= period]
    before_full = int(policy.get("numRestartBeforeFullJobRestart", limit))
    if not node_lost and len(run.window) < before_full:
        run.window.append(now)
        restart["restartCount"] = int(restart.get("restartCount", 0)) + 1
        resilience.fault_struck(run, f"process restart after {what}")
        run.hung, run.last_match, run.read_inputs = False, {}, False
        run.last_step_at = clock.sim_seconds_elapsed(run.started)
        for pod in _job_pods(emulator, job):
            _write(
                emulator,
                pod,
                f"[hyperpod-elastic-agent] {what}: restarting worker processes in place "
                f"(process restart {restart['restartCount']}), resuming from step {run.step}\n",
            )
        _condition(job, "Running", "ProcessRestarted", f"{what} on {pod_name}; processes restarted in place.")
        await emulator.put_object(PYTORCH, job)
        await _event(emulator, job, "ProcessLevelRestart", f"{what} on {pod_name}; restarted worker processes", True)
        return
    full_max = int(policy.get("maxFullJobRestarts", limit))
    if int(restart.get("fullJobRestartCount", 0)) >= full_max:
        await _fail(
            emulator,
            job,
            "MaxFullJobRestartsExceeded",
            f"{what} on {pod_name} after {restart.get('fullJobRestartCount', 0)} full job restarts "
            f"(maxFullJobRestarts {full_max}).",
        )
        return
    restart["fullJobRestartCount"] = int(restart.get("fullJobRestartCount", 0)) + 1
    run.window, run.hung, run.last_match, run.read_inputs = [], False, {}, False
    run.started, run.last_step_at = now, 0.0
    if node_lost and resilience.checkpointless(job):
        await _from_peers(emulator, job, run, what, pod_name)
        return
    resilience.fault_struck(run, f"full job restart after {what}")
    run.generation += 1
    await _delete_pods(emulator, job)
    _condition(job, "Restarting", "FullJobRestart", f"{what} on {pod_name}; every pod is recreated.")
    await emulator.put_object(PYTORCH, job)
    await _event(emulator, job, "FullJobRestart", f"{what} on {pod_name}; restarting the whole job", True)
    await _create_pods(emulator, job)


async def _from_peers(emulator: Any, job: dict[str, Any], run: _Run, what: str, pod_name: str) -> None:
    """Checkpointless recovery (sandbox.controllers.training_resilience): only the failed node's pod is replaced;
    the others keep their processes and hand the replacement their state once it runs."""
    resilience.fault_struck(run, f"checkpointless recovery from peer replicas after {what}", keeps_progress=True)
    failed = next((p for p in _job_pods(emulator, job) if p["metadata"]["name"] == pod_name), None)
    if failed is not None:
        await emulator.delete_object("v1/pods", failed["metadata"]["namespace"], pod_name)
    _condition(job, "Restarting", "CheckpointlessRecovery", f"{what} on {pod_name}; replacing that pod only.")
    await emulator.put_object(PYTORCH, job)
    await _event(
        emulator, job, "CheckpointlessRecovery", f"{what} on {pod_name}; its state comes from the peer replicas", True
    )
    await _create_pods(emulator, job, only={pod_name})


async def _elastic_wait(emulator: Any, job: dict[str, Any], run: _Run, pods: list[dict[str, Any]]) -> None:
    """An elastic job whose replacement pod has no node past faultyScaleDownTimeoutInSeconds continues with fewer
    replicas (sandbox.controllers.training_resilience)."""
    policy = resilience.elastic(job)
    placed = [p for p in pods if (p.get("spec") or {}).get("nodeName")]
    if policy is None or len(placed) == len(pods) or not resilience.waited_too_long(job, run):
        return
    size = resilience.scale_down_to(policy, len(placed))
    if size is None:
        return
    keep = {p["metadata"]["name"] for p in sorted(placed, key=lambda p: p["metadata"]["name"])[:size]}
    for pod in pods:
        if pod["metadata"]["name"] not in keep:
            await emulator.delete_object("v1/pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
    run.unplaced_since = None
    resilience.fault_struck(run, f"elastic scale-down to {size} replicas")
    job.setdefault("status", {})["elasticScalingStatus"] = {"currentReplicas": size}
    message = f"no node for the replacement pod within faultyScaleDownTimeoutInSeconds; continuing with {size}"
    _condition(job, "Restarting", "ElasticScaleDown", message)
    await emulator.put_object(PYTORCH, job)
    await _event(emulator, job, "ElasticScaleDown", message, True)


async def _inputs_missing(emulator: Any, job: dict[str, Any], run: _Run, pods: list[dict[str, Any]]) -> bool:
    """True when the worker processes, just started, exit for want of a file in the bucket (``programs``):
    each pod logs its program's error and the operator recovers as from any process failure, so every restart
    fails the same way until the file is there or the retry budget is spent."""
    failed = None
    for pod in pods:
        spec = pod["spec"]
        container = next(c for c in spec["containers"] if c["name"] == training_container(spec["containers"]))
        files = programs.Files(programs.mounts(emulator, pod["metadata"]["namespace"], spec, container))
        text = programs.training_failure(files, container, pod["metadata"]["name"])
        if text is not None:
            _write(emulator, pod, text)
            failed = failed or pod["metadata"]["name"]
    if failed is None:
        return False
    await _recover(emulator, job, run, "worker processes exited with code 1", failed, False)
    return True


def _writes(emulator: Any, run: _Run, pod: dict[str, Any], step: int, last: bool) -> str | None:
    """The failure of what the main process (rank 0, on the first pod) writes at ``step`` (sandbox.controllers.programs:
    through the pod's volumes, a Mountpoint volume with Mountpoint's semantics), or None. The pod's local
    volumes keep what was written to them for the pod's life."""
    spec, namespace = pod["spec"], pod["metadata"]["namespace"]
    container = next(c for c in spec["containers"] if c["name"] == training_container(spec["containers"]))
    files = programs.Files(programs.mounts(emulator, namespace, spec, container))
    kept = run.local.setdefault(str(pod["metadata"].get("uid") or pod["metadata"]["name"]), {})
    writable = mountpoint.volumes(emulator, namespace, spec, container, kept)
    return programs.training_writes(files, writable, container, pod["metadata"]["name"], step, last)


def _rules(job: dict[str, Any]) -> list[dict[str, Any]]:
    return list((job["spec"].get("runPolicy") or {}).get("logMonitoringConfiguration") or [])


async def _hang_check(emulator: Any, job: dict[str, Any], run: _Run, elapsed: float) -> bool:
    for rule in _rules(job):
        last = run.last_match.get(rule["name"])
        recurring, cutoff = rule.get("expectedRecurringFrequencyInSeconds"), rule.get("expectedStartCutOffInSeconds")
        late = (last is None and cutoff is not None and elapsed > float(cutoff)) or (
            last is not None and recurring is not None and elapsed - last > float(recurring)
        )
        if late:
            reason = f"LogStateHanging_{rule['name']}"
            await _event(emulator, job, reason, f"no log line matched {rule['logPattern']!r} in time", True)
            await _recover(emulator, job, run, f"hang detected by {rule['name']}", job["metadata"]["name"], False)
            return True
    return False


async def _train(emulator: Any, job: dict[str, Any], run: _Run, pods: list[dict[str, Any]], hold: int) -> bool:
    """Log the steps due by now (stopping at ``hold``); finish the job after the last one (True then)."""
    elapsed = clock.sim_seconds_elapsed(run.started)
    settings = training_state().settings
    limit = min(hold, settings.steps)
    while not run.hung and run.step < limit and run.last_step_at + settings.log_interval <= elapsed:
        run.step += 1
        run.last_step_at += settings.log_interval
        logged = {"loss": _loss(run.step), "learning_rate": 2e-05, "tokens_per_second": _tokens_per_second(run.step)}
        line = f"[rank0] step {run.step}/{settings.steps} {logged}\n"
        mlflow.log_step(job, run.step, logged)  # the plugin's run
        extra = "".join(
            f"[rank0] step {run.step} batch {i}/{settings.lines_per_step - 1} t={time.time():.6f}\n"
            for i in range(1, settings.lines_per_step)
        )
        for pod in pods:
            _write(emulator, pod, line + extra)
        failed = _writes(emulator, run, pods[0], run.step, run.step >= settings.steps)
        if failed is not None:
            _write(emulator, pods[0], failed)
            await _recover(
                emulator, job, run, "worker processes exited with code 1", pods[0]["metadata"]["name"], False
            )
            return True
        for rule in _rules(job):
            if re.search(rule["logPattern"], line):
                run.last_match[rule["name"]] = run.last_step_at
    await resilience.recovered_if_past(emulator, job, run)
    if run.step >= settings.steps:
        for pod in pods:
            _write(emulator, pod, "[rank0] training complete; final checkpoint written\n")
            await _finish_pod(emulator, pod, "Succeeded", 0, "Completed")
        _condition(job, "Completed", "JobCompleted", f"Every pod finished training ({len(pods)}).")
        await emulator.put_object(PYTORCH, job)
        await _event(emulator, job, "JobCompleted", "training finished")
        return True
    return False


async def _held_by_kueue(emulator: Any, job: dict[str, Any], state: str | None) -> bool:
    """True while Kueue has not admitted the job's Workload (sandbox.controllers.kueue_admission): it does not
    start, and a job whose Workload was evicted (preempted) loses its pods and waits, Suspended, until admitted
    again ("Workload", https://kueue.sigs.k8s.io/docs/concepts/workload/: an evicted job is suspended). Its
    processes are gone, so it goes on from its code's last checkpoint, as after a full restart (AWS, "Task
    governance for model deployment on HyperPod",
    https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-task-gov.html: a
    high-priority inference workload preempts lower-priority jobs)."""
    workload = kueue_admission.workload_of(emulator, job)
    if kueue_admission.admitted(workload):
        return False
    if state is not None and state != "Suspended":
        evicted: dict[str, Any] = next(
            (c for c in ((workload or {}).get("status") or {}).get("conditions") or [] if c.get("type") == "Evicted"),
            {},
        )
        message = str(evicted.get("message") or "Kueue evicted the job's workload")
        run = training_state().runs.get(job["metadata"]["uid"])
        if run is not None:  # its processes are gone: training goes on from the code's last checkpoint
            run.step = resilience.checkpoint_step(run.step)
        await _delete_pods(emulator, job)
        _condition(job, "Suspended", "Preempted", message)
        await emulator.put_object(PYTORCH, job)
        await _event(emulator, job, "Suspended", message, warning=True)
    return True


async def _run_pytorch(emulator: Any, job: dict[str, Any], cluster: str, kueue_on: bool = False) -> None:
    meta = job["metadata"]
    state = _latest(job)
    if state in ("Completed", "Failed"):
        return
    if kueue_on and kueue_admission.queued(job) and await _held_by_kueue(emulator, job, state):
        return
    run = training_state().runs.setdefault(meta["uid"], _Run(started=time.monotonic()))
    if state == "Suspended":  # admitted again: the pods come back and training resumes from its last step
        _condition(job, "Created", "Resumed", "Kueue admitted the job's workload again")
        await emulator.put_object(PYTORCH, job)
        await _create_pods(emulator, job)
        return
    if state is None:
        job.setdefault("status", {})["restartStatus"] = {"restartCount": 0, "fullJobRestartCount": 0}
        _condition(job, "Created", "JobCreated", "the operator accepted the job")
        await emulator.put_object(PYTORCH, job)
        await _create_pods(emulator, job)
        return
    pods = _job_pods(emulator, job)
    gone = _on_lost_node(emulator, pods)
    if gone is not None:
        # Kubernetes' pod garbage collector deletes a Pod bound to a Node that no longer exists (a node
        # HyperPod replaced or deleted; https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-garbage-collection),
        # and the training operator meets a lost pod as the node failure it is: a process restart in place cannot
        # bring back a pod whose node is gone, so the job restarts whole within its restart budget, as for the
        # nodeFailure fault (developer guide, "Using the HyperPod training operator": process-level recovery
        # where it can, job-level restarts and jobMaxRetryCount otherwise).
        await emulator.delete_object("v1/pods", gone["metadata"]["namespace"], gone["metadata"]["name"])
        lost = f"node failure ({gone['spec']['nodeName']} is gone)"
        if resilience.elastic(job) is not None:
            # elastic: the lost pod is recreated and the job waits for it, then scales down (_elastic_wait)
            resilience.fault_struck(run, f"elastic recovery after {lost}")
            _condition(job, "Restarting", "ElasticRecovery", f"{lost}; waiting for a node for its pod")
            await emulator.put_object(PYTORCH, job)
            await _event(emulator, job, "ElasticRecovery", f"{lost}; recreating {gone['metadata']['name']}", True)
            await _create_pods(emulator, job, only={gone["metadata"]["name"]})
            return
        await _recover(emulator, job, run, lost, gone["metadata"]["name"], True)
        return
    if not await _place(emulator, pods):
        await _elastic_wait(emulator, job, run, _job_pods(emulator, job))
        return
    run.unplaced_since = None
    if state in ("Created", "Restarting"):
        run.started, run.last_step_at = time.monotonic(), 0.0
        recovering = (job["status"]["conditions"][-1].get("reason") or "") == "CheckpointlessRecovery"
        _condition(job, "Running", "PodsRunning", f"{len(pods)} pods running")
        await emulator.put_object(PYTORCH, job)
        for pod in pods:
            _write(
                emulator,
                pod,
                f"[checkpointless] model and optimizer state received from peer replicas, resuming from step "
                f"{run.step}\n"
                if recovering
                else f"[hyperpod-elastic-agent] starting {job['spec'].get('nprocPerNode')} worker "
                f"processes, resuming from step {run.step}\n",
            )
        return
    if not run.read_inputs:
        if await _inputs_missing(emulator, job, run, pods):
            return
        run.read_inputs = True
    # Training first, then the fault due at the step reached, then log monitoring: a reconcile that comes
    # late catches up on the steps, so a rule is never judged late for steps that simply were not logged yet.
    if await _train(emulator, job, run, pods, _next_fault_step(cluster, meta["namespace"], meta["name"])):
        return
    fault = _take_fault(cluster, meta["namespace"], meta["name"], run.step)
    if fault is not None:
        kind, target = fault
        pod = next((p for p in pods if p["metadata"]["name"] == target), pods[0])
        if kind == "hang":
            run.hung = True
            # PyTorch's NCCL watchdog, as ProcessGroupNCCL logs a collective that outlived its timeout
            _write(
                emulator,
                pod,
                "[rank0]:[E ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: "
                "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 "
                "milliseconds before timing out.\n",
            )
            return
        if kind == "processCrash":
            _write(emulator, pod, "[rank3] RuntimeError: CUDA error: an illegal memory access was encountered\n")
            await _recover(emulator, job, run, "process crash", pod["metadata"]["name"], False)
        else:
            await _recover(
                emulator, job, run, f"node failure ({pod['spec'].get('nodeName')})", pod["metadata"]["name"], True
            )
        return
    await _hang_check(emulator, job, run, clock.sim_seconds_elapsed(run.started))


# ------------------------------------------------------------------ the controller
def _addon_active(cluster: str, name: str) -> bool:
    from sandbox.aws.eks import find_cluster

    found = find_cluster(cluster)
    addon = found.addons.get(name) if found is not None else None
    return addon is not None and addon.health()[0] == "ACTIVE"


def _operator_active(cluster: str) -> bool:
    return _addon_active(cluster, OPERATOR_ADDON)


def _reconciler(cluster: str, operator_on: bool) -> Any:
    kueue_on = operator_on and _addon_active(cluster, KUEUE_ADDON)

    async def reconcile(emulator: Any) -> None:
        if operator_on:
            await install_crd(emulator, PYTORCH_CRD)
            for job in emulator.list_objects(PYTORCH):
                await _run_pytorch(emulator, job, cluster, kueue_on)
        if kuberay.ready(emulator):
            for job in emulator.list_objects(kuberay.RAYJOBS):
                await kuberay.run(emulator, job)

    return reconcile


def reconcile_all(fleet: Any) -> None:
    for name in fleet.names():
        try:
            fleet.call(name, _reconciler(name, _operator_active(name)))
        except Exception:  # a cluster being deleted, a loop shutting down: try again next tick
            log.debug("training reconcile failed for %s", name, exc_info=True)


def training_controller(fleet: Any, interval: float = 0.1) -> Periodic:
    return Periodic("sandbox-training", interval, lambda: reconcile_all(fleet))
