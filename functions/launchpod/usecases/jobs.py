"""Training jobs on a cluster: submit (server-side apply of a HyperPodPyTorchJob or RayJob, checked against
the cluster's real state first), list, read with its pods, events and MLflow run, and delete. Submission is
synchronous: the operator on the cluster runs the job, and ``get`` follows it. The ports are only the calls
made, so unit tests pass in-memory fakes; ``real()`` builds the deployed adapters."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

from launchpod.contracts.jobs import DeleteJobView, JobListView, JobView, SubmitJobInput
from launchpod.contracts.mlflow import JobMlflowView
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.domain import features
from launchpod.domain import mlflow as mlflow_domain
from launchpod.domain import task_governance as governance
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster, InstanceGroupState
from launchpod.domain.concurrency import ContextPool
from launchpod.domain.errors import Conflict, InvalidInput, LaunchpodError, NotFound, next_step
from launchpod.domain.inference.endpoints import NodeRoom, fit_warnings
from launchpod.domain.jobs import manifests, plans, rules, views
from launchpod.domain.nodes import views as node_views
from launchpod.domain.plan import Step
from launchpod.runtime.wiring import KubeJobs
from launchpod.usecases import mlflow as mlflow_cases
from launchpod.usecases import provisioning, storage
from launchpod.usecases.ports import (
    AddonReader,
    ClusterRecords,
    ControlPlanes,
    HyperPodClusters,
    InstanceFacts,
    KubeLister,
    KubeObjects,
    MlflowRuns,
    MlflowUi,
    ShippedLogs,
)
from launchpod.usecases.proposal import at_once

KINDS = ((manifests.PYTORCH_API, manifests.PYTORCH_KIND), (manifests.RAY_API, manifests.RAY_KIND))
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


class EksClusters(ControlPlanes, AddonReader, Protocol):
    """EKS's clusters and their add-ons (adapters.aws.eks)."""


@dataclass(frozen=True)
class JobPorts:
    eks: EksClusters
    sagemaker: HyperPodClusters
    kube: KubeObjects
    jobs: KubeJobs
    clusters: ClusterRecords
    mlflow: MlflowUi
    runs: MlflowRuns
    logs: ShippedLogs
    instances: InstanceFacts
    listed: KubeLister | None = None  # nodes and pods: how many GPU partitions are free (_partition_fit)


def real() -> JobPorts:
    """The deployed adapters (runtime.wiring)."""
    from launchpod.runtime import wiring

    return JobPorts(
        eks=wiring.eks(),
        sagemaker=wiring.sagemaker(),
        kube=wiring.kube(),
        jobs=wiring.kube_jobs(),
        clusters=wiring.clusters(),
        mlflow=wiring.mlflow(),
        runs=wiring.mlflow(),
        logs=wiring.logs(),
        instances=wiring.instance_facts(),
        listed=wiring.kube_items(),
    )


def require_active(name: str, *, ports: JobPorts) -> None:
    """409 unless the cluster's EKS control plane is ACTIVE."""
    provisioning.require_active(name, "training jobs need", eks_clusters=ports.eks)


def _hyperpod(name: str, ports: JobPorts) -> HyperPodCluster:
    found = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name))
    if found is None:
        raise Conflict(f"{name} has no HyperPod cluster yet; jobs run on its instance groups. Create it first.")
    return found


def _groups(cluster: HyperPodCluster) -> dict[str, InstanceGroupState]:
    return {g.name: g for g in cluster.instance_groups}


def _facts(name: str, kind: str, ports: JobPorts) -> rules.ClusterFacts:
    require_active(name, ports=ports)
    cluster = _hyperpod(name, ports)
    addons = ports.eks.addons(name)
    operator = addons.get(features.training_operator().addon)
    tg = addons.get(features.task_governance().addon)
    kuberay = False
    if kind == "ray":
        kuberay = ports.kube.read(name, RAYJOB_CRD) is not None and ports.kube.ready(ports.kube.read(name, KUBERAY))
    return rules.ClusterFacts(
        cluster=name,
        groups=_groups(cluster),
        training_operator=str(operator.status) if operator else None,
        kuberay=kuberay,
        task_governance=tg is not None and tg.status == "ACTIVE",
        tiered_checkpointing=cluster.tiered_storage_mode == "Enable",
        autoscaling=cluster.autoscaling is not None and cluster.autoscaling.mode == "Enable",
        training_operator_version=str(operator.version) if operator else None,
    )


def find(name: str, job: str, namespace: str, *, ports: JobPorts) -> dict[str, Any]:
    """The job's object (HyperPodPyTorchJob or RayJob) with its kind; 404 when neither exists."""
    for api_version, kind in KINDS:
        found = ports.kube.read(
            name, {"apiVersion": api_version, "kind": kind, "metadata": {"name": job, "namespace": namespace}}
        )
        if found is not None:
            return {"apiVersion": api_version, "kind": kind, **found}
    raise NotFound(f"{name} has no training job {job} in namespace {namespace}; list its jobs for the names it has.")


def pods(name: str, job: dict[str, Any], *, ports: JobPorts) -> list[dict[str, Any]]:
    """The job's pods: those of its templates, and for a RayJob also KubeRay's submitter, which carries
    ray.io/originated-from-cr-name instead of the template's labels."""
    meta = job["metadata"]
    found = ports.jobs.pods(name, meta["namespace"], f"{manifests.JOB_LABEL}={meta['name']}")
    if job["kind"] == manifests.RAY_KIND:
        names = {p["metadata"]["name"] for p in found}
        extra = ports.jobs.pods(name, meta["namespace"], f"{RAY_ORIGIN_LABEL}={meta['name']}")
        found += [p for p in extra if p["metadata"]["name"] not in names]
    return found


def _instance_type(name: str, job: dict[str, Any], ports: JobPorts) -> str | None:
    spec = job.get("spec") or {}
    if job["kind"] == manifests.PYTORCH_KIND:
        template = spec["replicaSpecs"][0]["template"]["spec"]
    else:
        template = spec["rayClusterSpec"]["workerGroupSpecs"][0]["template"]["spec"]
    group = (template.get("nodeSelector") or {}).get(manifests.GROUP_LABEL)
    found = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name)) if group else None
    state = found.group(group) if found is not None and group else None
    return state.instance_type if state else None


def _mlflow(job: dict[str, Any], ports: JobPorts) -> JobMlflowView | None:
    """Where the job logs to MLflow (its pods' MLFLOW_TRACKING_URI): once the server is Created, the newest
    run of the job's experiment and a presigned URL that opens it. The presigned URL signs the browser in
    and redirects to the UI; a redirect keeps the URL's fragment (RFC 9110, 10.2.2), and the MLflow UI routes
    by fragment (#/experiments/<id>/runs/<id>), so the fragment lands on the run."""
    env = mlflow_domain.env_of(job)
    arn = env.get(mlflow_domain.TRACKING_URI)
    if not arn:
        return None
    experiment = env.get(mlflow_domain.EXPERIMENT)
    view = JobMlflowView(trackingServerArn=arn, experiment=experiment)
    server = ports.mlflow.describe(arn.rsplit("/", 1)[-1])
    if server is None or server.status != "Created":
        return view
    run = None
    if experiment:
        try:
            run = ports.runs.latest_run(arn, experiment)
        except LaunchpodError:  # the run stays unknown; the job view still links the server's UI
            run = None
    url = ports.mlflow.presigned_url(server.name)
    if run is not None:
        view.experimentId, view.runId = run.experiment_id, run.run_id
        view.runName = run.run_name
        url += mlflow_domain.run_fragment(view.experimentId, view.runId)
    view.url = url
    return view


def view(name: str, job: dict[str, Any], *, ports: JobPorts) -> JobView:
    found = views.view(
        name,
        job,
        pods(name, job, ports=ports),
        ports.jobs.nodes(name),
        ports.jobs.events(name, job["metadata"]["namespace"]),
        _instance_type(name, job, ports),
        _workload(name, job, ports),
    )
    found.mlflow = _mlflow(job, ports)
    return found


def _workload(name: str, job: dict[str, Any], ports: JobPorts) -> dict[str, Any] | None:
    """The Kueue Workload of a job submitted to a queue (Kueue labels it with the job's uid), or None."""
    meta = job["metadata"]
    if not (meta.get("labels") or {}).get(manifests.QUEUE_LABEL):
        return None
    path = f"/apis/{governance.KUEUE_API}/namespaces/{meta['namespace']}/workloads"
    try:
        items = (ports.kube.get(name, path) or {}).get("items") or []
    except LaunchpodError:  # Kueue's kinds are not served (task governance is off or starting)
        return None
    uid = meta.get("uid")
    return next((w for w in items if (w["metadata"].get("labels") or {}).get("kueue.x-k8s.io/job-uid") == uid), None)


def _check_kueue(name: str, request: SubmitJobInput, ports: JobPorts) -> None:
    """The queue and priority class a job names exist (task governance's teams and policy make them)."""
    queues = (ports.kube.get(name, f"/apis/{governance.KUEUE_API}/localqueues") or {}).get("items") or []
    classes = (ports.kube.get(name, f"/apis/{governance.KUEUE_API}/workloadpriorityclasses") or {}).get("items") or []
    governance.check_job_queue(
        name,
        request.namespace,
        request.queue,
        request.priority,
        [(q["metadata"]["namespace"], q["metadata"]["name"]) for q in queues],
        [c["metadata"]["name"] for c in classes],
    )


def _checkpoint_account(name: str, namespace: str, ports: JobPorts) -> dict[str, Any]:
    """With managed tiered checkpointing on, a job's pods write checkpoints and metrics as the checkpoint
    service account ("S3 write permissions for the training pod ... via EKS OIDC",
    https://docs.aws.amazon.com/sagemaker/latest/dg/managed-tier-checkpointing-setup.html): the feature's
    account, copied with its role into the job's namespace (a pod can use only its namespace's)."""
    feature = ports.kube.read(name, features.service_account(name, None))
    role = ((feature or {}).get("metadata", {}).get("annotations") or {}).get(features.ROLE_ANNOTATION)
    if not role:
        raise Conflict(
            f"Tiered checkpointing is on for {name} but its service account has no IAM role; turn tiered"
            " checkpointing on again in the cluster's features.",
            details=[next_step(f'PATCH /api/clusters/{name}/features {{"tieredCheckpointing": {{"enabled": true}}}}')],
        )
    return features.service_account(name, role, namespace)


def _partition_fit(name: str, request: SubmitJobInput, instance_type: str, ports: JobPorts) -> list[str]:
    """A pod on GPU partitions fits a node of its group with that many free (the scheduler's view: the nodes'
    allocatable nvidia.com/mig-<profile> less what running pods hold); said when it does not."""
    part = request.acceleratorPartition
    if part is None or ports.listed is None:
        return []
    resource = f"nvidia.com/{part.type}"
    nodes = [
        n
        for n in ports.listed(name, "Node")
        if ((n.get("metadata") or {}).get("labels") or {}).get(manifests.GROUP_LABEL) == request.instanceGroup
    ]
    pods = node_views.pods_by_node(ports.listed(name, "Pod"))
    room = [
        NodeRoom(
            n["metadata"]["name"],
            node_views.gpus_allocatable(n, resource),
            sum(node_views.pod_gpus(p, resource) for p in node_views.running(pods.get(n["metadata"]["name"], []))),
        )
        for n in nodes
    ]
    unit = f"{part.type} partition"
    return fit_warnings(request.jobName, instance_type, request.replicas, part.count, room, False, unit)


def submit(request: SubmitJobInput, dry_run: bool = False, *, ports: JobPorts) -> JobView | NoopView | PlanView:
    """Check the request against the cluster (operator, instance group, queue, a free name, the claim), then
    server-side apply the job with MLflow's env when the cluster has a usable tracking server. A dry run makes
    every check and answers the plan (the job, and what its controller makes of it) instead of applying."""
    name = request.name
    recipe = rules.recipe_for(request)
    facts = _facts(name, request.kind, ports)
    acc = ports.instances.of(rules.check(request, facts))
    rules.check_processes(request, acc)
    warnings = rules.fit_warnings(request, facts) + _partition_fit(name, request, acc.instance_type, ports)
    if request.queue or request.priority:
        _check_kueue(name, request, ports)
    for api_version, kind in KINDS:
        ref = {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {"name": request.jobName, "namespace": request.namespace},
        }
        if ports.kube.read(name, ref) is not None:
            raise Conflict(
                f"A {kind} {request.jobName} already exists in {request.namespace} on {name}; choose another jobName"
                " or delete that job first.",
                details=[{"field": "body.jobName", "rule": "unique", "message": request.jobName}],
            )
    storage.require_claim(name, request.namespace, request.storageClaim, read=ports.kube.read)
    server = mlflow_cases.server_of(name, clusters=ports.clusters, servers=ports.mlflow)
    extra = tracking = None
    if server is not None and server.status in mlflow_domain.USABLE:
        tracking = server.arn
        extra = mlflow_domain.pod_env(tracking, request.jobName)
    account = _checkpoint_account(name, request.namespace, ports) if facts.tiered_checkpointing else None
    job = manifests.build(request, acc, recipe, extra, account["metadata"]["name"] if account else None)

    def apply() -> JobView:
        if account is not None:
            ports.kube.apply(name, account)
        ports.kube.apply(name, job)
        submitted = view(name, find(name, request.jobName, request.namespace, ports=ports), ports=ports)
        submitted.warnings = warnings
        return submitted

    plan = plans.submit_plan(request, job, acc, tracking)  # never empty: a job runs once (name taken: 409)
    if account is not None and ports.kube.read(name, account) is None:
        made = Step(
            "create",
            f"ServiceAccount {request.namespace}/{account['metadata']['name']}",
            "tiered checkpointing is on: the job's pods write checkpoints and metrics as the feature's IAM role",
        )
        plan = replace(plan, steps=(made, *plan.steps))
    plan = replace(plan, warnings=tuple(warnings))
    return at_once(plan, dry_run, "", apply)


def list_jobs(name: str, namespace: str | None, *, ports: JobPorts) -> JobListView:
    """Every job of each kind; the cluster's status and each kind are read side by side."""
    with ContextPool(max_workers=1 + len(KINDS), thread_name_prefix="jobs") as pool:
        checked = pool.submit(require_active, name, ports=ports)
        kinds = [pool.submit(ports.jobs.list_kind, name, api_version, kind, namespace) for api_version, kind in KINDS]
        checked.result()  # a cluster that is not ACTIVE answers 409 whatever the lists found
        items = [views.summary(j) for listed in kinds for j in listed.result()]
    return JobListView(cluster=name, items=sorted(items, key=lambda j: (j.namespace, j.jobName)))


def get(name: str, job: str, namespace: str, *, ports: JobPorts) -> JobView:
    require_active(name, ports=ports)
    return view(name, find(name, job, namespace, ports=ports), ports=ports)


def delete(
    name: str, job: str, namespace: str, confirm: str, dry_run: bool = False, *, ports: JobPorts
) -> DeleteJobView | PlanView:
    """Delete the job (its pods stop) once ``confirm`` repeats its name; a job that is not there is 404, a dry
    run included. A dry run answers the plan: the job and its pods."""
    if confirm != job:
        raise InvalidInput(
            f"Type the job's name, {job}, as confirm to delete it; its pods are stopped.",
            field="query.confirm",
            rule="confirm_matches_name",
        )
    require_active(name, ports=ports)
    found = find(name, job, namespace, ports=ports)
    if dry_run:
        plan = plans.delete_plan(name, found, pods(name, found, ports=ports))
        return PlanView(target=plan.target, steps=plan.views())
    deleted = ports.kube.delete(name, found)
    return DeleteJobView(cluster=name, jobName=job, namespace=namespace, deleted=deleted)
