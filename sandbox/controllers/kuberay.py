"""KubeRay, emulated for the sandbox's Kubernetes APIs: the RayJob controller.

KubeRay v1 RayJob (https://docs.ray.io/en/latest/cluster/kubernetes/getting-started/rayjob-quick-start.html):
once the kuberay-operator Deployment is ready, a RayJob gets a head pod and its worker pods, then a
submitter pod (in KubeRay a batch Job; here its pod, labelled ``ray.io/originated-from-cr-name``) that
runs the entrypoint; jobStatus goes PENDING, RUNNING, SUCCEEDED, and with ``shutdownAfterJobFinishes``
the head and workers are deleted at the end. The entrypoint's driver runs on the head and reads the bucket
through the head's volumes: one that lacks a file there fails the job (sandbox.controllers.programs), FAILED.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from sandbox.aws import clock, mlflow
from sandbox.controllers import programs
from sandbox.controllers import training_pods as pods
from sandbox.controllers.common import timestamp

RAYJOBS = "ray.io/v1/rayjobs"
RAY_CR_LABEL = "ray.io/originated-from-cr-name"


async def run(emulator: Any, job: dict[str, Any]) -> None:
    meta, spec = job["metadata"], job["spec"]
    status = job.setdefault("status", {})
    state = status.get("jobStatus")
    if state in ("SUCCEEDED", "FAILED", "STOPPED"):
        return
    kept = pods.training_state()
    run = kept.runs.setdefault(meta["uid"], pods._Run(started=time.monotonic()))
    cluster_spec = spec["rayClusterSpec"]
    ray_cluster = f"{meta['name']}-raycluster"
    if not state:
        status.update(
            {
                "jobStatus": "PENDING",
                "jobDeploymentStatus": "Initializing",
                "rayClusterName": ray_cluster,
                "startTime": timestamp(),
            }
        )
        await emulator.put_object(RAYJOBS, job)
        labels = {"ray.io/cluster": ray_cluster, "ray.io/node-type": "head", RAY_CR_LABEL: meta["name"]}
        await emulator.put_object(
            "v1/pods", pods._pod(job, f"{ray_cluster}-head", cluster_spec["headGroupSpec"]["template"], labels)
        )
        for group in cluster_spec.get("workerGroupSpecs") or []:
            for i in range(int(group.get("replicas") or 0)):
                labels = {
                    "ray.io/cluster": ray_cluster,
                    "ray.io/node-type": "worker",
                    "ray.io/group": group["groupName"],
                    RAY_CR_LABEL: meta["name"],
                }
                name = f"{ray_cluster}-{group['groupName']}-worker-{i}"
                await emulator.put_object("v1/pods", pods._pod(job, name, group["template"], labels))
        return
    mine = [
        p
        for p in emulator.list_objects("v1/pods", meta["namespace"])
        if (p["metadata"].get("labels") or {}).get(RAY_CR_LABEL) == meta["name"]
    ]
    cluster_pods = [p for p in mine if "ray.io/cluster" in p["metadata"]["labels"]]
    submitter = next((p for p in mine if "ray.io/cluster" not in p["metadata"]["labels"]), None)
    if state == "PENDING":
        if not await pods._place(emulator, cluster_pods):
            return
        head = cluster_spec["headGroupSpec"]["template"]["spec"]["containers"][0]
        template: dict[str, Any] = {
            "metadata": {"labels": {RAY_CR_LABEL: meta["name"], "ray.io/originated-from-crd": "RayJob"}},
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {
                        "name": "ray-job-submitter",
                        "image": head["image"],
                        "command": [
                            "ray",
                            "job",
                            "submit",
                            "--address",
                            f"http://{ray_cluster}-head-svc:8265",
                            "--",
                            spec["entrypoint"],
                        ],
                    }
                ],
            },
        }
        pod = pods._pod(job, f"{meta['name']}-submitter", template, {})
        pod["metadata"]["labels"] = template["metadata"]["labels"]
        await emulator.put_object("v1/pods", pod)
        status.update(
            {
                "jobStatus": "RUNNING",
                "jobDeploymentStatus": "Running",
                "jobId": f"{meta['name']}-{uuid.uuid4().hex[:6]}",
            }
        )
        run.started, run.last_step_at = time.monotonic(), 0.0
        await emulator.put_object(RAYJOBS, job)
        return
    if submitter is None or not await pods._place(emulator, [submitter]):
        return
    if not run.read_inputs:
        head = cluster_spec["headGroupSpec"]["template"]["spec"]
        files = programs.Files(programs.mounts(emulator, meta["namespace"], head, head["containers"][0]))
        failed = programs.entrypoint_failure(files, str(spec["entrypoint"]))
        if failed is not None:
            await _fail(emulator, job, submitter, cluster_pods, failed + "\n")
            return
        run.read_inputs = True
    elapsed = clock.sim_seconds_elapsed(run.started)
    settings = kept.settings
    while run.step < settings.steps and run.last_step_at + settings.log_interval <= elapsed:
        run.step += 1
        run.last_step_at += settings.log_interval
        pods._write(
            emulator,
            submitter,
            f"(TaskRunner pid=212) step:{run.step} - critic/score/mean:{round(0.1 + run.step * 0.015, 3)} "
            f"- actor/pg_loss:{pods._loss(run.step)} - perf/throughput:{pods._tokens_per_second(run.step)}\n",
        )
        # perf/throughput: verl's tokens per second per GPU (verl/trainer/ppo/metric_utils.py,
        # compute_throughout_metrics: total tokens / (step time x GPUs))
        logged = {"actor/pg_loss": pods._loss(run.step), "perf/throughput": pods._tokens_per_second(run.step)}
        mlflow.log_step(job, run.step, logged)
    if run.step < settings.steps:
        return
    pods._write(emulator, submitter, f"Job '{status.get('jobId')}' succeeded\n")
    await pods._finish_pod(emulator, submitter, "Succeeded", 0, "Completed")
    status.update(
        {
            "jobStatus": "SUCCEEDED",
            "jobDeploymentStatus": "Complete",
            "endTime": timestamp(),
            "message": "Job finished successfully.",
        }
    )
    await emulator.put_object(RAYJOBS, job)
    await pods._event(emulator, job, "Completed", "the RayJob's entrypoint succeeded")
    if spec.get("shutdownAfterJobFinishes"):
        for pod in cluster_pods:
            await emulator.delete_object("v1/pods", meta["namespace"], pod["metadata"]["name"])


async def _fail(
    emulator: Any, job: dict[str, Any], submitter: dict[str, Any], cluster_pods: list[dict[str, Any]], output: str
) -> None:
    """The entrypoint exited 1: Ray's job manager fails the job with the tail of the driver's log
    (ray-project/ray python/ray/dashboard/modules/job/job_supervisor.py: "Job entrypoint command failed with
    exit code 1, last available logs (truncated to 20,000 chars):"), ``ray job submit`` prints that status and
    exits 1 (python/ray/dashboard/modules/job/cli.py), and KubeRay marks the RayJob FAILED with
    jobDeploymentStatus Failed and reason AppFailed (backoffLimit 0: no new attempt; ray-operator/apis/ray/v1/
    rayjob_types.go), then deletes the cluster when ``shutdownAfterJobFinishes`` is set."""
    meta, status = job["metadata"], job["status"]
    message = (
        f"Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):\n{output}"
    )
    rule = "-" * 39
    pods._write(
        emulator,
        submitter,
        f"{output}\n{rule}\nJob '{status.get('jobId')}' failed\n{rule}\n\nStatus message: {message}",
    )
    await pods._finish_pod(emulator, submitter, "Failed", 1, "Error")
    status.update(
        {
            "jobStatus": "FAILED",
            "jobDeploymentStatus": "Failed",
            "reason": "AppFailed",
            "endTime": timestamp(),
            "message": message,
        }
    )
    await emulator.put_object(RAYJOBS, job)
    if job["spec"].get("shutdownAfterJobFinishes"):
        for pod in cluster_pods:
            await emulator.delete_object("v1/pods", meta["namespace"], pod["metadata"]["name"])


def ready(emulator: Any) -> bool:
    crd = emulator.exists("apiextensions.k8s.io/v1/customresourcedefinitions", None, "rayjobs.ray.io")
    deployment = emulator.get_object("apps/v1/deployments", "kuberay-operator", "kuberay-operator")
    return crd and bool(deployment and (deployment.get("status") or {}).get("readyReplicas"))
