"""Training jobs: submit (server-side apply of a HyperPodPyTorchJob or RayJob), list, get, delete and logs.
Submission is synchronous: the operator on the cluster runs the job, and get_job follows it."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import apply as k8s
from launchpod.adapters.k8s import jobs as kube_jobs
from launchpod.contracts.common import ClusterName, K8sName
from launchpod.contracts.jobs import (
    DeleteJobView,
    JobListView,
    JobLogsView,
    JobView,
    SubmitJobInput,
    SubmitJobRequest,
)
from launchpod.contracts.mlflow import JobMlflowView
from launchpod.domain import features
from launchpod.domain import mlflow as mlflow_domain
from launchpod.domain import task_governance as governance
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.domain.jobs import manifests, rules, views
from launchpod.entrypoints.api.routing import input_of, route
from launchpod.runtime import wiring
from launchpod.usecases import job_logs
from launchpod.usecases import mlflow as mlflow_cases

router = APIGatewayRouter()
_KINDS = ((manifests.PYTORCH_API, manifests.PYTORCH_KIND), (manifests.RAY_API, manifests.RAY_KIND))
KUBERAY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "kuberay-operator", "namespace": "kuberay-operator"},
}
RAY_ORIGIN_LABEL = "ray.io/originated-from-cr-name"  # KubeRay labels what a RayJob creates with it
RAYJOB_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "rayjobs.ray.io"},
}


def _active(name: str) -> None:
    eks = wiring.eks().cluster(name)
    if eks is None or eks.get("status") != "ACTIVE":
        state = eks.get("status") if eks else "not created"
        raise Conflict(f"The EKS control plane of {name} is {state}; training jobs need an ACTIVE cluster.")


def _hyperpod(name: str) -> dict[str, Any]:
    found = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    if found is None:
        raise Conflict(f"{name} has no HyperPod cluster yet; jobs run on its instance groups. Create it first.")
    return found


def _groups(cluster: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["InstanceGroupName"]: g for g in cluster.get("InstanceGroups") or []}


def _facts(name: str, kind: str) -> rules.ClusterFacts:
    _active(name)
    cluster = _hyperpod(name)
    addons = wiring.eks().addons(name)
    operator = addons.get(features.training_operator().addon)
    governance = addons.get(features.task_governance().addon)
    kuberay = False
    if kind == "ray":
        kuberay = k8s.read(name, RAYJOB_CRD) is not None and k8s.ready(k8s.read(name, KUBERAY))
    return rules.ClusterFacts(
        cluster=name,
        groups=_groups(cluster),
        training_operator=str(operator.get("status")) if operator else None,
        kuberay=kuberay,
        task_governance=governance is not None and governance.get("status") == "ACTIVE",
        tiered_checkpointing=((cluster.get("TieredStorageConfig") or {}).get("Mode")) == "Enable",
    )


def _find(name: str, job: str, namespace: str) -> dict[str, Any]:
    for api_version, kind in _KINDS:
        found = k8s.read(
            name, {"apiVersion": api_version, "kind": kind, "metadata": {"name": job, "namespace": namespace}}
        )
        if found is not None:
            return {"apiVersion": api_version, "kind": kind, **found}
    raise NotFound(f"{name} has no training job {job} in namespace {namespace}; GET its jobs list.")


def _pods(name: str, job: dict[str, Any]) -> list[dict[str, Any]]:
    """The job's pods: those of its templates, and for a RayJob also KubeRay's submitter, which carries
    ray.io/originated-from-cr-name instead of the template's labels."""
    meta = job["metadata"]
    found = kube_jobs.pods(name, meta["namespace"], f"{manifests.JOB_LABEL}={meta['name']}")
    if job["kind"] == manifests.RAY_KIND:
        names = {p["metadata"]["name"] for p in found}
        extra = kube_jobs.pods(name, meta["namespace"], f"{RAY_ORIGIN_LABEL}={meta['name']}")
        found += [p for p in extra if p["metadata"]["name"] not in names]
    return found


def _instance_type(name: str, job: dict[str, Any]) -> str | None:
    spec = job.get("spec") or {}
    if job["kind"] == manifests.PYTORCH_KIND:
        template = spec["replicaSpecs"][0]["template"]["spec"]
    else:
        template = spec["rayClusterSpec"]["workerGroupSpecs"][0]["template"]["spec"]
    group = (template.get("nodeSelector") or {}).get(manifests.GROUP_LABEL)
    found = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name)) or {}
    return _groups(found).get(group, {}).get("InstanceType") if group else None


def _mlflow(job: dict[str, Any]) -> JobMlflowView | None:
    """Where the job logs to MLflow (its pods' MLFLOW_TRACKING_URI), with a presigned URL to the server's UI
    once it is Created."""
    env = mlflow_domain.env_of(job)
    arn = env.get(mlflow_domain.TRACKING_URI)
    if not arn:
        return None
    server = wiring.mlflow().describe(arn.rsplit("/", 1)[-1])
    url = None
    if server is not None and server.get("TrackingServerStatus") == "Created":
        url = wiring.mlflow().presigned_url(server["TrackingServerName"])
    return JobMlflowView(trackingServer=arn, experiment=env.get(mlflow_domain.EXPERIMENT), url=url)


def _view(name: str, job: dict[str, Any]) -> JobView:
    view = views.view(
        name,
        job,
        _pods(name, job),
        kube_jobs.nodes(name),
        kube_jobs.events(name, job["metadata"]["namespace"]),
        _instance_type(name, job),
    )
    view.mlflow = _mlflow(job)
    return view


def _check_kueue(name: str, request: SubmitJobInput) -> None:
    """The queue and priority class a job names exist (task governance's teams and policy make them)."""
    queues = (k8s.get(name, f"/apis/{governance.KUEUE_API}/localqueues") or {}).get("items") or []
    classes = (k8s.get(name, f"/apis/{governance.KUEUE_API}/workloadpriorityclasses") or {}).get("items") or []
    governance.check_job_queue(
        name,
        request.namespace,
        request.queue,
        request.priority,
        [(q["metadata"]["namespace"], q["metadata"]["name"]) for q in queues],
        [c["metadata"]["name"] for c in classes],
    )


@route(router, "submit_job")
def submit_job(name: Annotated[ClusterName, Path()], body: Annotated[SubmitJobRequest, Body()]) -> JobView:
    request = input_of(SubmitJobInput, body, name=name)
    recipe = rules.recipe_for(request)
    instance_type = rules.check(request, _facts(name, request.kind))
    if request.queue or request.priority:
        _check_kueue(name, request)
    for api_version, kind in _KINDS:
        ref = {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {"name": request.jobName, "namespace": request.namespace},
        }
        if k8s.read(name, ref) is not None:
            raise Conflict(
                f"A {kind} {request.jobName} already exists in {request.namespace} on {name}; choose another jobName"
                " or delete that job first.",
                details=[{"field": "body.jobName", "rule": "unique", "message": request.jobName}],
            )
    if request.storageClaim is not None:
        claim = {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": request.storageClaim, "namespace": request.namespace},
        }
        if k8s.read(name, claim) is None:
            raise InvalidInput(
                f"No PersistentVolumeClaim {request.storageClaim} in {request.namespace} on {name}; configure the"
                " shared bucket first (POST /api/clusters/{name}/storage) or name an existing claim.",
                field="body.storageClaim",
                rule="existing_claim",
            )
    server = mlflow_cases.server_of(name, clusters=wiring.clusters(), servers=wiring.mlflow())
    extra = None
    if server is not None and server.get("TrackingServerStatus") in mlflow_domain.USABLE:
        extra = mlflow_domain.pod_env(server["TrackingServerArn"], request.jobName)
    obj = manifests.build(request, instance_type, recipe, extra)
    k8s.apply(name, obj)
    return _view(name, _find(name, request.jobName, request.namespace))


@route(router, "list_jobs")
def list_jobs(
    name: Annotated[ClusterName, Path()], namespace: Annotated[K8sName | None, Query()] = None
) -> JobListView:
    _active(name)
    items = []
    for api_version, kind in _KINDS:
        items += [views.summary(j) for j in kube_jobs.list_kind(name, api_version, kind, namespace)]
    return JobListView(cluster=name, items=sorted(items, key=lambda j: (j.namespace, j.jobName)))


@route(router, "get_job")
def get_job(
    name: Annotated[ClusterName, Path()],
    jobName: Annotated[K8sName, Path()],
    namespace: Annotated[K8sName, Query()] = "default",
) -> JobView:
    _active(name)
    return _view(name, _find(name, jobName, namespace))


@route(router, "delete_job")
def delete_job(
    name: Annotated[ClusterName, Path()],
    jobName: Annotated[K8sName, Path()],
    namespace: Annotated[K8sName, Query()] = "default",
    confirm: Annotated[str, Query()] = "",
) -> DeleteJobView:
    if confirm != jobName:
        raise InvalidInput(
            f"Type the job's name, {jobName}, as confirm to delete it; its pods are stopped.",
            field="query.confirm",
            rule="confirm_matches_name",
        )
    _active(name)
    job = _find(name, jobName, namespace)
    deleted = k8s.delete(name, job)
    return DeleteJobView(cluster=name, jobName=jobName, namespace=namespace, deleted=deleted)


@route(router, "get_job_logs")
def get_job_logs(
    name: Annotated[ClusterName, Path()],
    jobName: Annotated[K8sName, Path()],
    namespace: Annotated[K8sName, Query()] = "default",
    pod: Annotated[K8sName | None, Query()] = None,
    container: Annotated[K8sName | None, Query()] = None,
    tail: Annotated[int, Query(ge=1, le=5000)] = 200,
    since: Annotated[int | None, Query(ge=1)] = None,
) -> JobLogsView:
    _active(name)
    try:
        job = _find(name, jobName, namespace)
    except NotFound as gone:
        kept = job_logs.deleted_job_logs(
            name, namespace, jobName, pod, container, tail, since, eks=wiring.eks(), logs=wiring.logs()
        )
        if kept is None:
            raise NotFound(
                f"{gone} No log of it was kept: with the observability feature on, a deleted job's log stays"
                " readable here from CloudWatch Logs."
            ) from None
        return kept
    pods = sorted(_pods(name, job), key=lambda p: p["metadata"]["name"])
    chosen = next((p for p in pods if p["metadata"]["name"] == pod), None) if pod else (pods[0] if pods else None)
    if chosen is None:
        return job_logs.gone_pod_logs(
            name,
            namespace,
            jobName,
            pod,
            container,
            tail,
            since,
            eks=wiring.eks(),
            logs=wiring.logs(),
            others=[p["metadata"]["name"] for p in pods],
        )
    containers = [c["name"] for c in chosen["spec"].get("containers") or []]
    use = container or containers[0]
    if use not in containers:
        raise InvalidInput(
            f"Pod {chosen['metadata']['name']} has containers {', '.join(containers)}, not {use}.",
            field="query.container",
            rule="a container of the pod",
        )
    text = kube_jobs.log(name, namespace, chosen["metadata"]["name"], use, tail, since)
    return JobLogsView(
        jobName=jobName,
        pod=chosen["metadata"]["name"],
        container=use,
        lines=(text or "").splitlines(),
        retained=text is not None,
        source="kubernetes" if text is not None else None,
    )
