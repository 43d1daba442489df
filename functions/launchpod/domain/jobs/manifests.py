"""The HyperPodPyTorchJob (sagemaker.amazonaws.com/v1) and RayJob (ray.io/v1) Launchpod submits.

Pod templates follow "Using the training operator to run jobs"
(https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-operator-usage.html): the elastic agent
listens on container port 8080, and each pod asks for the node's accelerators. Every pod takes the whole
node: its GPUs (``nvidia.com/gpu``) or Neuron devices (``aws.amazon.com/neuron``) for its processes and
every EFA interface the type has (``vpc.amazonaws.com/efa``), with the EFA environment the AWS EKS EFA
guide gives (``FI_PROVIDER=efa``; ``FI_EFA_USE_DEVICE_RDMA=1`` on types with RDMA read,
https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html). ``/dev/shm`` is a memory-backed emptyDir
(NCCL and DataLoader workers need more than the runtime's 64 MiB default), and local NVMe, which
HyperPod mounts at ``/opt/dlami/nvme`` on types that have it, is mounted at ``/local``.
"""

from __future__ import annotations

from typing import Any

from launchpod.contracts.jobs import SubmitJobInput
from launchpod.domain import ownership
from launchpod.domain.jobs.hardware import Accelerators
from launchpod.domain.jobs.recipes import KEEP_OUTPUT_ENV, LOCAL, MOUNT, Recipe, fill, keep_output_source

INPROCESS_FLAG = "--inprocess-restart"

PYTORCH_API, PYTORCH_KIND = "sagemaker.amazonaws.com/v1", "HyperPodPyTorchJob"
RAY_API, RAY_KIND = "ray.io/v1", "RayJob"
GROUP_LABEL = "sagemaker.amazonaws.com/instance-group-name"
JOB_LABEL = "launchpod.io/job"
RECIPE_LABEL = "launchpod.io/recipe"
QUEUE_LABEL, PRIORITY_LABEL = "kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/priority-class"
REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"
NVME_HOST_PATH = "/opt/dlami/nvme"
# Types whose EFA supports RDMA read (p4d and later; Trainium), from the EKS EFA guide.
_RDMA = ("ml.p4d", "ml.p4de", "ml.p5", "ml.p5e", "ml.p5en", "ml.p6", "ml.trn1", "ml.trn2")


def processes(request: SubmitJobInput, acc: Accelerators) -> int:
    partition = request.acceleratorPartition
    return request.nprocPerNode or (partition.count if partition else acc.per_node) or 1


def _values(request: SubmitJobInput, acc: Accelerators, recipe: Recipe | None) -> dict[str, Any]:
    defaults = recipe.defaults if recipe else {}
    elastic = request.elasticPolicy
    return {
        "JOB": request.jobName,
        "REPLICAS": request.replicas,
        # torchrun's (and so hyperpodrun's) --nnodes: a fixed count, or min:max for an elastic job
        "NNODES": f"{elastic.minReplicas}:{elastic.maxReplicas}" if elastic else request.replicas,
        "NPROC": processes(request, acc),
        "DATA": MOUNT,
        "LOCAL_OUTPUT": f"{LOCAL}/jobs/{request.jobName}/output",
        "DATASET": request.dataset or defaults.get("dataset", ""),
        "MODEL": request.model or defaults.get("model", ""),
    }


def _resources(acc: Accelerators, nproc: int) -> dict[str, Any]:
    amounts: dict[str, Any] = {}
    if acc.gpus:
        amounts["nvidia.com/gpu"] = nproc
    elif acc.neuron:
        amounts["aws.amazon.com/neuron"] = nproc
    if acc.efa:
        amounts["vpc.amazonaws.com/efa"] = acc.efa
    return {"limits": dict(amounts), "requests": dict(amounts)} if amounts else {}


def _env(
    request: SubmitJobInput, acc: Accelerators, recipe: Recipe | None, values: dict[str, Any], extra: dict[str, str]
) -> list[dict[str, Any]]:
    env: dict[str, str] = {}
    if acc.efa:
        env["FI_PROVIDER"] = "efa"
        if acc.instance_type.startswith(_RDMA):
            env["FI_EFA_USE_DEVICE_RDMA"] = "1"
    env["LAUNCHPOD_DATA"] = MOUNT
    env["LAUNCHPOD_JOB_DIR"] = f"{MOUNT}/jobs/{request.jobName}"
    if recipe:
        env.update({k: fill(v, values) for k, v in recipe.env.items()})
        if recipe.localOutput:
            env[KEEP_OUTPUT_ENV] = keep_output_source()
    env.update({k: v for k, v in extra.items() if k not in env})  # the recipe's experiment name wins
    if request.checkpointless is not None:
        # the checkpointless samples' environment: in-process restart on, and how long a recovery may take
        env["INPROCESS_RESTART"] = "1"
        env["INPROCESS_RESTART_TIMEOUT"] = str(request.checkpointless.inProcessRestartTimeoutSeconds)
    env.update(request.env)
    return [{"name": k, "value": v} for k, v in env.items()]


def _inprocess(command: list[str]) -> list[str]:
    """hyperpodrun with in-process restart, as AWS's checkpointless launch samples run it
    (aws/sagemaker-hyperpod-checkpointless-training examples/*/launch/*_checkpointless_p5.yaml)."""
    if any(INPROCESS_FLAG in part for part in command) or "hyperpodrun" not in command:
        return command
    at = command.index("hyperpodrun") + 1
    return [*command[:at], INPROCESS_FLAG, *command[at:]]


def _labels(request: SubmitJobInput, recipe: Recipe | None) -> dict[str, str]:
    labels = {**ownership.K8S_LABELS, JOB_LABEL: request.jobName}
    if recipe:
        labels[RECIPE_LABEL] = recipe.name
    if request.queue:
        labels[QUEUE_LABEL] = request.queue
    if request.priority:
        labels[PRIORITY_LABEL] = request.priority
    return labels


def _pod_spec(
    request: SubmitJobInput,
    acc: Accelerators,
    recipe: Recipe | None,
    name: str,
    gpus: bool = True,
    extra_env: dict[str, str] | None = None,
) -> dict[str, Any]:
    values = _values(request, acc, recipe)
    command = [fill(part, values) for part in (recipe.command if recipe else request.command or [])]
    if request.checkpointless is not None and gpus:
        command = _inprocess(command)
    mounts = [{"name": "shm", "mountPath": "/dev/shm"}]
    volumes: list[dict[str, Any]] = [{"name": "shm", "emptyDir": {"medium": "Memory"}}]
    if request.storageClaim:
        mounts.append({"name": "data", "mountPath": MOUNT})
        volumes.append({"name": "data", "persistentVolumeClaim": {"claimName": request.storageClaim}})
    if gpus and acc.nvme:
        mounts.append({"name": "nvme", "mountPath": LOCAL})
        volumes.append({"name": "nvme", "hostPath": {"path": NVME_HOST_PATH, "type": "DirectoryOrCreate"}})
    elif gpus and recipe and recipe.localOutput:
        # No NVMe: the output waits on the node's ephemeral storage (kubelet's emptyDir) until it is copied.
        mounts.append({"name": "local", "mountPath": LOCAL})
        volumes.append({"name": "local", "emptyDir": {}})
    container: dict[str, Any] = {
        "name": name,
        "image": recipe.image if recipe else request.image,
        "command": command,
        "env": _env(request, acc, recipe, values, extra_env or {}),
        "volumeMounts": mounts,
    }
    resources = _resources(acc, processes(request, acc)) if gpus else {}
    selector = {GROUP_LABEL: request.instanceGroup}
    if gpus and request.acceleratorPartition is not None:
        # MIG partitions instead of whole GPUs, on nodes whose partitioning succeeded (HyperPod's "GPU
        # partitioning: task submission" page; the hyp CLI adds the same node selector)
        partition = request.acceleratorPartition
        resources = {k: {f"nvidia.com/{partition.type}": partition.count} for k in ("limits", "requests")}
        selector["nvidia.com/mig.config.state"] = "success"
    if resources:
        container["resources"] = resources
    return {
        "nodeSelector": selector,
        "containers": [container],
        "volumes": volumes,
    }


def pytorch_job(
    request: SubmitJobInput, acc: Accelerators, recipe: Recipe | None, extra_env: dict[str, str] | None = None
) -> dict[str, Any]:
    labels = _labels(request, recipe)
    pod = _pod_spec(request, acc, recipe, "pytorch", extra_env=extra_env)
    pod["containers"][0]["ports"] = [{"containerPort": 8080, "name": "elastic-agent"}]
    if request.checkpointless is not None:
        # the checkpointless samples open 9000-9005 beside the agent's 8080 for the peer-to-peer recovery
        pod["containers"][0]["ports"] += [
            {"containerPort": p, "name": f"ckptless-{p - 9000}"} for p in range(9000, 9006)
        ]
    template: dict[str, Any] = {"metadata": {"labels": labels}, "spec": pod}
    if request.topology is not None:
        # Kueue's TAS annotations on the pod template (HyperPod's "Topology-aware scheduling" page)
        key = REQUIRED_TOPOLOGY if request.topology.required else PREFERRED_TOPOLOGY
        template["metadata"]["annotations"] = {key: request.topology.label}
    replica: dict[str, Any] = {"name": "pods", "replicas": request.replicas, "template": template}
    policy = request.runPolicy
    run: dict[str, Any] = {"cleanPodPolicy": "None", "jobMaxRetryCount": 10}
    rules = []
    if policy is not None:
        run = {"cleanPodPolicy": policy.cleanPodPolicy, "jobMaxRetryCount": policy.jobMaxRetryCount}
        if policy.restartPolicy is not None:
            run["restartPolicy"] = policy.restartPolicy.model_dump(exclude_none=True)
        rules = [r.model_dump(exclude_none=True) for r in policy.logMonitoringConfiguration]
    if rules:
        run["logMonitoringConfiguration"] = rules
    spec: dict[str, Any] = {
        "nprocPerNode": str(processes(request, acc)),
        "replicaSpecs": [replica],
        "runPolicy": run,
    }
    if request.elasticPolicy is not None:
        spec["elasticPolicy"] = request.elasticPolicy.model_dump(exclude_none=True)
        # "should match elasticPolicy.maxReplicas" (the elastic training page's job sample)
        replica["maxReplicas"] = request.elasticPolicy.maxReplicas
    return {
        "apiVersion": PYTORCH_API,
        "kind": PYTORCH_KIND,
        "metadata": {"name": request.jobName, "namespace": request.namespace, "labels": labels},
        "spec": spec,
    }


def ray_job(
    request: SubmitJobInput, acc: Accelerators, recipe: Recipe | None, extra_env: dict[str, str] | None = None
) -> dict[str, Any]:
    """A RayJob whose RayCluster has a CPU-only head and one GPU worker per node; KubeRay submits the
    entrypoint from a submitter Job (submissionMode K8sJobMode) and deletes the cluster when it ends
    (https://docs.ray.io/en/latest/cluster/kubernetes/getting-started/rayjob-quick-start.html)."""
    labels = _labels(request, recipe)
    worker = _pod_spec(request, acc, recipe, "ray-worker", extra_env=extra_env)
    entrypoint = " ".join(worker["containers"][0].pop("command"))
    head = _pod_spec(request, acc, recipe, "ray-head", gpus=False, extra_env=extra_env)
    head["containers"][0].pop("command")
    head["containers"][0]["ports"] = [
        {"containerPort": 6379, "name": "gcs-server"},
        {"containerPort": 8265, "name": "dashboard"},
        {"containerPort": 10001, "name": "client"},
    ]
    return {
        "apiVersion": RAY_API,
        "kind": RAY_KIND,
        "metadata": {"name": request.jobName, "namespace": request.namespace, "labels": labels},
        "spec": {
            "entrypoint": entrypoint,
            "submissionMode": "K8sJobMode",
            "shutdownAfterJobFinishes": True,
            "ttlSecondsAfterFinished": 600,
            "backoffLimit": 0,
            "rayClusterSpec": {
                "headGroupSpec": {"rayStartParams": {}, "template": {"metadata": {"labels": labels}, "spec": head}},
                "workerGroupSpecs": [
                    {
                        "groupName": "gpu",
                        "replicas": request.replicas,
                        "minReplicas": request.replicas,
                        "maxReplicas": request.replicas,
                        "rayStartParams": {},
                        "template": {"metadata": {"labels": labels}, "spec": worker},
                    }
                ],
            },
        },
    }


def _pod_templates(job: dict[str, Any]) -> list[dict[str, Any]]:
    spec = job["spec"]
    if job["kind"] == PYTORCH_KIND:
        return [r["template"]["spec"] for r in spec["replicaSpecs"]]
    ray = spec["rayClusterSpec"]
    return [ray["headGroupSpec"]["template"]["spec"], *(g["template"]["spec"] for g in ray["workerGroupSpecs"])]


def build(
    request: SubmitJobInput,
    acc: Accelerators,
    recipe: Recipe | None,
    extra_env: dict[str, str] | None = None,
    service_account: str | None = None,
) -> dict[str, Any]:
    """The job's object; ``extra_env`` is set in every pod (MLflow's, when the cluster has a tracking server);
    with ``service_account`` every pod runs as it (tiered checkpointing's, whose IAM role writes checkpoints
    and metrics)."""
    job = (pytorch_job if request.kind == "pytorch" else ray_job)(request, acc, recipe, extra_env)
    if service_account:
        for pod in _pod_templates(job):
            pod["serviceAccountName"] = service_account
    return job
