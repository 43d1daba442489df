"""The plans of a job's submission and deletion (``?dryRun=true`` answers them): what Launchpod applies or
deletes, and what the cluster's controllers make or remove because of it, each step with its reason.

A submission applies one object, the job (its MLflow environment and Kueue labels are inside it); the pods
are the controller's: the HyperPod training operator makes one pod per replica of a HyperPodPyTorchJob
(https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-operator-usage.html), KubeRay a RayCluster
(one head pod, the worker pods) and a submitter Job for a RayJob in K8sJobMode
(https://docs.ray.io/en/latest/cluster/kubernetes/getting-started/rayjob-quick-start.html). Deleting the job
deletes what it owns: Kubernetes' garbage collector removes its dependents
(https://kubernetes.io/docs/concepts/architecture/garbage-collection/#owners-dependents).
"""

from __future__ import annotations

from typing import Any

from launchpod.contracts.jobs import SubmitJobInput
from launchpod.domain.jobs import manifests
from launchpod.domain.jobs.hardware import Accelerators
from launchpod.domain.plan import Plan, Step


def _per_pod(acc: Accelerators, processes: int) -> str:
    devices = f"{processes} GPUs" if acc.gpus else f"{processes} Neuron devices" if acc.neuron else "no accelerator"
    return f"a whole {acc.instance_type}: {devices}" + (f", {acc.efa} EFA interfaces" if acc.efa else "")


def submit_plan(request: SubmitJobInput, job: dict[str, Any], acc: Accelerators, tracking: str | None) -> Plan:
    """The steps of applying ``job`` (the object manifests.build made of ``request``) on the cluster."""
    where = f"{request.namespace}/{request.jobName}"
    source = f"recipe {request.recipe}" if request.recipe else f"image {request.image}"
    why = [f"kind {request.kind} from {source} on instance group {request.instanceGroup} ({acc.instance_type})"]
    if request.queue:
        why.append(f"queued in {request.queue}")
    if request.priority:
        why.append(f"priority {request.priority}")
    if request.elasticPolicy is not None:
        sizes = ", ".join(str(n) for n in request.elasticPolicy.world_sizes())
        why.append(
            f"elastic {request.elasticPolicy.minReplicas}-{request.elasticPolicy.maxReplicas} nodes (world sizes"
            f" {sizes}): on a node fault it continues with fewer nodes once faultyScaleDownTimeoutInSeconds passes"
        )
    if request.checkpointless is not None:
        why.append(
            f"checkpointless: a failed node's state is recovered from its {request.replicas - 1} peer(s), not a"
            " checkpoint (hyperpodrun --inprocess-restart)"
        )
    why.append(f"logging to MLflow {tracking}" if tracking else "no MLflow tracking server in use")
    each = _per_pod(acc, manifests.processes(request, acc))
    steps = [Step("create", f"{job['kind']} {where}", "; ".join(why))]
    if request.kind == "pytorch":
        steps.append(
            Step(
                "create",
                f"{request.replicas} Pod(s) {where}-*",
                f"the HyperPod training operator starts one pod per node, each taking {each}",
            )
        )
    else:
        steps.append(
            Step(
                "create",
                f"RayCluster {where}-*",
                f"KubeRay makes it for the RayJob: a CPU-only head pod and {request.replicas} worker pod(s), each"
                f" taking {each}",
            )
        )
        steps.append(
            Step("create", f"Job {where}", "KubeRay's submitter (K8sJobMode) sends the entrypoint to the RayCluster")
        )
    return Plan(request.name, tuple(steps))


def delete_plan(cluster: str, job: dict[str, Any], pods: list[dict[str, Any]]) -> Plan:
    """The steps of deleting ``job`` (with its kind, as jobs.find reads it) and the pods that go with it."""
    meta = job["metadata"]
    kept = f"its checkpoints and outputs under jobs/{meta['name']}/ in the shared bucket are kept"
    steps = [
        Step("delete", f"{job['kind']} {meta['namespace']}/{meta['name']}", f"the request deletes the job; {kept}")
    ]
    steps += [
        Step(
            "delete",
            f"Pod {meta['namespace']}/{p['metadata']['name']}",
            f"a pod of {meta['name']}: Kubernetes' garbage collector deletes it with the job, and it stops",
        )
        for p in pods
    ]
    return Plan(cluster, tuple(steps))
