"""Training jobs: submit (server-side apply of a HyperPodPyTorchJob or RayJob), list, get, delete and logs;
submit and delete answer their plan on ``dryRun``. Each route parses, makes one use-case call (usecases.jobs,
usecases.job_logs) and dumps its answer."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import K8sName
from launchpod.contracts.jobs import DeleteJobView, JobListView, JobLogsView, JobView, SubmitJobInput, SubmitJobRequest
from launchpod.entrypoints.api.routing import (
    ClusterPath,
    ConfirmQuery,
    DryRunQuery,
    JsonBody,
    K8sNamePath,
    NamespaceQuery,
    Planned,
    input_of,
    json_response,
    route,
)
from launchpod.usecases import job_logs, jobs

router = APIGatewayRouter()


@route(router, "submit_job")
def submit_job(name: ClusterPath, body: JsonBody[SubmitJobRequest], dryRun: DryRunQuery = False) -> Planned[JobView]:
    return json_response(jobs.submit(input_of(SubmitJobInput, body, name=name), dryRun, ports=jobs.real()))


@route(router, "list_jobs")
def list_jobs(name: ClusterPath, namespace: Annotated[K8sName | None, Query()] = None) -> JobListView:
    return jobs.list_jobs(name, namespace, ports=jobs.real())


@route(router, "get_job")
def get_job(name: ClusterPath, jobName: K8sNamePath, namespace: NamespaceQuery = "default") -> JobView:
    return jobs.get(name, jobName, namespace, ports=jobs.real())


@route(router, "delete_job")
def delete_job(
    name: ClusterPath,
    jobName: K8sNamePath,
    namespace: NamespaceQuery = "default",
    confirm: ConfirmQuery = "",
    dryRun: DryRunQuery = False,
) -> Planned[DeleteJobView]:
    return json_response(jobs.delete(name, jobName, namespace, confirm, dryRun, ports=jobs.real()))


@route(router, "get_job_logs")
def get_job_logs(
    name: ClusterPath,
    jobName: K8sNamePath,
    namespace: NamespaceQuery = "default",
    pod: Annotated[K8sName | None, Query()] = None,
    container: Annotated[K8sName | None, Query()] = None,
    tail: Annotated[int, Query(ge=1, le=5000)] = 200,
    since: Annotated[int | None, Query(ge=1)] = None,
) -> JobLogsView:
    return job_logs.read(name, jobName, namespace, pod, container, tail, since, ports=jobs.real())
