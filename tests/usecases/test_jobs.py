"""Training jobs with in-memory ports: what is checked before anything is applied (the operator, a free
name, the claim), the MLflow env a job gets and the link its view shows, delete's confirmation, the plans a
dry run answers without applying or deleting anything, and which container of a pod a log read takes (a
missing or ambiguous one is refused, naming the containers)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from launchpod.contracts.jobs import SubmitJobInput
from launchpod.contracts.plans import PlanView
from launchpod.domain import features, mlflow
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import Conflict, InvalidInput, NotFound, RetryableError
from launchpod.usecases import job_logs, jobs

from tests.fakes.clusters import Clusters
from tests.fakes.eks import Eks
from tests.fakes.instance_facts import Instances
from tests.fakes.jobs import JobApi
from tests.fakes.kube import Kube
from tests.fakes.logs import ShippedLogs
from tests.fakes.mlflow import Runs, Servers
from tests.fakes.sagemaker import SageMaker

NAME = "train"
ARN = "arn:aws:sagemaker:us-east-1:111122223333:mlflow-tracking-server/lp-train"
CLAIM = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "shared", "namespace": "default"}}


def _ports(
    operator: str | None = "ACTIVE",
    objects: list[dict[str, Any]] | None = None,
    pods: list[dict[str, Any]] | None = None,
    logs: dict[tuple[str, str], str] | None = None,
    server: str | None = "Created",
    runs: Runs | None = None,
) -> jobs.JobPorts:
    addons = {features.training_operator().addon: {"status": operator}} if operator else {}
    servers = {"lp-train": {"TrackingServerName": "lp-train", "TrackingServerArn": ARN, "TrackingServerStatus": server}}
    return jobs.JobPorts(
        eks=Eks({NAME: {"status": "ACTIVE"}}, {NAME: addons}),
        sagemaker=SageMaker(
            {
                hyperpod.hyperpod_name(NAME): {
                    "InstanceGroups": [{"InstanceGroupName": "gpu", "InstanceType": "ml.p5.48xlarge"}]
                }
            }
        ),
        kube=Kube([CLAIM, *(objects or [])]),
        jobs=JobApi(pods or [], logs or {}),
        clusters=Clusters({NAME: {mlflow.RECORD_ATTRIBUTE: "lp-train"} if server else {}}),
        mlflow=Servers(servers if server else {}),
        runs=runs or Runs({}),
        logs=ShippedLogs(),
        instances=Instances(),
    )


def _request(**fields: Any) -> SubmitJobInput:
    base = {
        "name": NAME,
        "jobName": "j1",
        "recipe": "pytorch-torchrun",
        "instanceGroup": "gpu",
        "storageClaim": "shared",
    }
    return SubmitJobInput(**{**base, **fields})


def _pod(name: str, containers: list[str], annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {"launchpod.io/job": "j1"}}
    if annotations:
        meta["annotations"] = annotations
    return {"metadata": meta, "spec": {"containers": [{"name": c} for c in containers]}, "status": {}}


def test_without_the_training_operator_nothing_is_applied_and_the_409_names_the_feature() -> None:
    ports = _ports(operator=None)
    with pytest.raises(Conflict, match="Turn on the training operator in the cluster's features") as refused:
        jobs.submit(_request(), ports=ports)
    assert {
        "field": None,
        "rule": "next_step",
        "message": 'PATCH /api/clusters/train/features {"trainingOperator": {"enabled": true}}',
    } in refused.value.details
    assert ports.kube.applied == []  # type: ignore[attr-defined]


def test_a_submitted_job_logs_to_the_clusters_server_and_its_view_links_the_ui() -> None:
    ports = _ports()
    view = jobs.submit(_request(), ports=ports)
    [applied] = ports.kube.applied  # type: ignore[attr-defined]
    env = {
        e["name"]: e["value"] for e in applied["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]["env"]
    }
    assert env[mlflow.TRACKING_URI] == ARN and env[mlflow.EXPERIMENT] == "j1"
    assert view.mlflow is not None and view.mlflow.trackingServerArn == ARN and view.mlflow.experiment == "j1"
    assert view.mlflow.url == "https://t-lp-train.example/auth?authToken=1"  # no run yet: the UI itself
    assert view.mlflow.runId is None


def test_once_the_job_logged_a_run_its_view_links_that_run_through_the_presigned_url() -> None:
    run = {"run_id": "9f2c", "experiment_id": "4", "run_name": "j1", "status": "RUNNING"}
    runs = Runs({(ARN, "j1"): run})
    ports = _ports(runs=runs)
    jobs.submit(_request(), ports=ports)
    view = jobs.get(NAME, "j1", "default", ports=ports)
    assert view.mlflow is not None
    assert (view.mlflow.experimentId, view.mlflow.runId, view.mlflow.runName) == ("4", "9f2c", "j1")
    assert view.mlflow.url is not None and view.mlflow.url.endswith("/auth?authToken=2#/experiments/4/runs/9f2c")
    assert runs.asked[-1] == (ARN, "j1")


def test_a_tracking_server_not_created_yet_is_neither_searched_nor_linked() -> None:
    runs = Runs({})
    ports = _ports(server="Creating", runs=runs)
    view = jobs.submit(_request(), ports=ports)
    assert view.mlflow is not None and view.mlflow.url is None and runs.asked == []


def test_when_the_runs_cannot_be_read_the_view_still_links_the_servers_ui() -> None:
    ports = _ports(runs=Runs({}, error=RetryableError("sagemaker-mlflow:SearchRuns did not answer")))
    view = jobs.submit(_request(), ports=ports)
    assert view.mlflow is not None and view.mlflow.runId is None
    assert view.mlflow.url == "https://t-lp-train.example/auth?authToken=1"


def test_a_job_name_in_use_is_409_and_nothing_is_applied() -> None:
    taken = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "j1", "namespace": "default"}}
    ports = _ports(objects=[taken])
    with pytest.raises(Conflict, match="A RayJob j1 already exists"):
        jobs.submit(_request(), ports=ports)
    assert ports.kube.applied == []  # type: ignore[attr-defined]


def test_a_claim_that_does_not_exist_is_422_saying_how_to_make_it() -> None:
    ports = _ports()
    with pytest.raises(InvalidInput, match="No PersistentVolumeClaim other") as refused:
        jobs.submit(_request(storageClaim="other"), ports=ports)
    assert str(refused.value).endswith(
        "on train; add storage to the cluster first (it makes the claim) or choose a claim it has."
    )


def test_delete_without_the_jobs_name_as_confirm_deletes_nothing() -> None:
    ports = _ports()
    jobs.submit(_request(), ports=ports)
    with pytest.raises(InvalidInput, match="Type the job's name, j1"):
        jobs.delete(NAME, "j1", "default", "j2", ports=ports)
    assert ports.kube.deleted == []  # type: ignore[attr-defined]
    assert jobs.delete(NAME, "j1", "default", "j1", ports=ports).deleted is True


def _logs(ports: jobs.JobPorts, container: str | None) -> list[str]:
    return job_logs.read(NAME, "j1", "default", "j1-pods-0", container, 100, None, ports=ports).lines


def test_each_container_of_a_two_container_pod_reads_its_own_lines() -> None:
    ports = _ports(
        pods=[_pod("j1-pods-0", ["pytorch", "sidecar"])],
        logs={
            ("j1-pods-0", "pytorch"): "step 1\nstep 2\n",
            ("j1-pods-0", "sidecar"): "synced 1\n",
        },
    )
    jobs.submit(_request(), ports=ports)
    assert _logs(ports, "pytorch") == ["step 1", "step 2"]
    assert _logs(ports, "sidecar") == ["synced 1"]


def test_a_missing_or_ambiguous_container_is_refused_naming_the_pods_containers() -> None:
    ports = _ports(pods=[_pod("j1-pods-0", ["pytorch", "sidecar"])])
    jobs.submit(_request(), ports=ports)
    with pytest.raises(InvalidInput, match="has 2 containers \\(pytorch, sidecar\\); name the one") as ambiguous:
        _logs(ports, None)
    assert ambiguous.value.details[0]["field"] == "query.container"
    with pytest.raises(InvalidInput, match="has no container agent; its containers are pytorch, sidecar"):
        _logs(ports, "agent")
    assert ports.jobs.read_logs == []  # type: ignore[attr-defined]


def test_the_pods_default_container_annotation_picks_one_of_several_as_kubectl_does() -> None:
    pod = _pod("j1-pods-0", ["pytorch", "sidecar"], {job_logs.DEFAULT_CONTAINER: "sidecar"})
    ports = _ports(pods=[pod], logs={("j1-pods-0", "sidecar"): "synced 1\n"})
    jobs.submit(_request(), ports=ports)
    assert _logs(ports, None) == ["synced 1"]


def test_a_dry_run_answers_the_job_and_the_pods_its_operator_starts_and_applies_nothing() -> None:
    ports = _ports()
    planned = jobs.submit(_request(replicas=2), True, ports=ports)
    assert isinstance(planned, PlanView) and planned.status == "PLANNED"
    assert [(s.action, s.target) for s in planned.steps] == [
        ("create", "HyperPodPyTorchJob default/j1"),
        ("create", "2 Pod(s) default/j1-*"),
    ]
    job, pods = planned.steps[0].reason, planned.steps[1].reason
    assert "recipe pytorch-torchrun on instance group gpu (ml.p5.48xlarge)" in job and f"MLflow {ARN}" in job
    assert "a whole ml.p5.48xlarge: 8 GPUs, 32 EFA interfaces" in pods
    assert ports.kube.applied == []  # type: ignore[attr-defined]
    kuberay_running = {**jobs.KUBERAY, "status": {"observedGeneration": 1, "readyReplicas": 1}}
    ray = _ports(objects=[jobs.RAYJOB_CRD, kuberay_running])
    planned = jobs.submit(_request(kind="ray", recipe="verl-ppo"), True, ports=ray)
    assert isinstance(planned, PlanView)
    assert [s.target for s in planned.steps] == ["RayJob default/j1", "RayCluster default/j1-*", "Job default/j1"]
    assert ray.kube.applied == []  # type: ignore[attr-defined]


def test_more_replicas_than_the_group_has_nodes_are_warned_of_in_the_dry_run_and_the_answer() -> None:
    """Five replicas on a two-node group were accepted without a word, and three pods waited Pending."""
    ports = _ports()
    group = ports.sagemaker.clusters[hyperpod.hyperpod_name(NAME)]["InstanceGroups"][0]  # type: ignore[attr-defined]
    group["CurrentCount"] = 2
    planned = jobs.submit(_request(replicas=5), True, ports=ports)
    assert isinstance(planned, PlanView)
    assert planned.warnings == [
        "gpu has 2 nodes and each pod takes a whole node: 3 of 5 pods will wait Pending until the group has 5"
        " nodes (the job does not start until then). Scale the group to 5 nodes (its instanceCount) or ask for"
        " 2 replicas."
    ]
    submitted = jobs.submit(_request(replicas=5), False, ports=ports)
    assert submitted.warnings == planned.warnings  # type: ignore[union-attr]
    assert jobs.submit(_request(jobName="fits", replicas=2), True, ports=ports).warnings == []  # type: ignore[union-attr]


def test_with_tiered_checkpointing_the_pods_run_as_the_checkpoint_account_copied_into_their_namespace() -> None:
    """The checkpoint service account once lived only in the feature's namespace and no job used it, so
    training pods had none of the role's S3 and CloudWatch access AWS's setup page asks for."""
    role = "arn:aws:iam::123456789012:role/launchpod-c1-checkpoints"
    claim = {**CLAIM, "metadata": {**CLAIM["metadata"], "namespace": "team-a"}}
    ports = _ports(objects=[features.service_account(NAME, role), claim])
    cluster = ports.sagemaker.clusters[hyperpod.hyperpod_name(NAME)]  # type: ignore[attr-defined]
    cluster["TieredStorageConfig"] = {"Mode": "Enable"}
    planned = jobs.submit(_request(namespace="team-a"), True, ports=ports)
    assert isinstance(planned, PlanView)
    assert (planned.steps[0].action, planned.steps[0].target) == (
        "create",
        "ServiceAccount team-a/launchpod-checkpoints",
    )
    jobs.submit(_request(namespace="team-a"), False, ports=ports)
    account, job = ports.kube.applied  # type: ignore[attr-defined]
    assert account["metadata"] == {**account["metadata"], "namespace": "team-a", "name": "launchpod-checkpoints"}
    assert account["metadata"]["annotations"][features.ROLE_ANNOTATION] == role
    pod = job["spec"]["replicaSpecs"][0]["template"]["spec"]
    assert pod["serviceAccountName"] == "launchpod-checkpoints"
    without_role = _ports()
    hp = without_role.sagemaker.clusters[hyperpod.hyperpod_name(NAME)]  # type: ignore[attr-defined]
    hp["TieredStorageConfig"] = {"Mode": "Enable"}
    with pytest.raises(Conflict, match="its service account has no IAM role"):
        jobs.submit(_request(), False, ports=without_role)


def test_a_dry_run_is_refused_wherever_the_submission_is_and_applies_nothing() -> None:
    spot = replace(
        _ports(),
        sagemaker=SageMaker(
            {
                hyperpod.hyperpod_name(NAME): {
                    "InstanceGroups": [
                        {
                            "InstanceGroupName": "gpu",
                            "InstanceType": "ml.p5.48xlarge",
                            "CapacityRequirements": {"Spot": {}},
                        }
                    ]
                }
            }
        ),
    )
    elastic = {"elasticPolicy": {"minReplicas": 1, "maxReplicas": 2}}
    with pytest.raises(InvalidInput, match="Elastic training is not supported on Spot capacity") as refused:
        jobs.submit(_request(**elastic), True, ports=spot)
    assert refused.value.details[0]["field"] == "body.elasticPolicy"
    without = _ports(operator=None)
    with pytest.raises(Conflict, match="needs the HyperPod training operator"):
        jobs.submit(_request(), True, ports=without)
    taken = _ports()
    jobs.submit(_request(), ports=taken)
    with pytest.raises(Conflict, match="already exists"):
        jobs.submit(_request(), True, ports=taken)
    assert [spot.kube.applied, without.kube.applied, len(taken.kube.applied)] == [[], [], 1]  # type: ignore[attr-defined]


def test_a_delete_dry_run_answers_the_job_and_its_pods_and_deletes_nothing() -> None:
    ports = _ports(pods=[_pod("j1-pods-0", ["pytorch"]), _pod("j1-pods-1", ["pytorch"])])
    jobs.submit(_request(), ports=ports)
    with pytest.raises(InvalidInput, match="Type the job's name, j1"):
        jobs.delete(NAME, "j1", "default", "j2", True, ports=ports)
    planned = jobs.delete(NAME, "j1", "default", "j1", True, ports=ports)
    assert isinstance(planned, PlanView)
    assert [(s.action, s.target) for s in planned.steps] == [
        ("delete", "HyperPodPyTorchJob default/j1"),
        ("delete", "Pod default/j1-pods-0"),
        ("delete", "Pod default/j1-pods-1"),
    ]
    assert "jobs/j1/ in the shared bucket are kept" in planned.steps[0].reason
    assert ports.kube.deleted == []  # type: ignore[attr-defined]
    with pytest.raises(NotFound, match="no training job j2"):
        jobs.delete(NAME, "j2", "default", "j2", True, ports=ports)


def test_elastic_and_checkpointless_need_the_operator_at_v1_2_and_a_dry_run_plans_the_recovery() -> None:
    """The add-on's version (EKS DescribeAddon) decides: v1.1.0 is a 409 naming v1.2.0 and applies nothing; at
    v1.2.0 the dry run says how a node fault is recovered."""
    old = _ports()
    old.eks.addon_map[NAME][features.training_operator().addon]["addonVersion"] = "v1.1.0-eksbuild.1"  # type: ignore[attr-defined]
    checkpointless = {"replicas": 2, "checkpointless": {}}
    with pytest.raises(Conflict, match=r"v1\.2\.0 or later") as refused:
        jobs.submit(_request(**checkpointless), ports=old)
    assert refused.value.details[0]["rule"] == "operator_version"
    assert (
        old.kube.read(
            NAME,
            {
                "apiVersion": "sagemaker.amazonaws.com/v1",
                "kind": "HyperPodPyTorchJob",
                "metadata": {"name": "j1", "namespace": "default"},
            },
        )
        is None
    )
    current = _ports()
    current.eks.addon_map[NAME][features.training_operator().addon]["addonVersion"] = "v1.2.0-eksbuild.1"  # type: ignore[attr-defined]
    plan = jobs.submit(_request(**checkpointless), True, ports=current)
    assert isinstance(plan, PlanView)
    assert "recovered from its 1 peer(s), not a checkpoint" in plan.steps[0].reason
    elastic = {"replicas": 2, "elasticPolicy": {"minReplicas": 2, "maxReplicas": 6, "replicaIncrementStep": 2}}
    plan = jobs.submit(_request(**elastic), True, ports=current)
    assert isinstance(plan, PlanView) and "world sizes 2, 4, 6" in plan.steps[0].reason
