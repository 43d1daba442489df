"""Read-only diagnostics: a node, a cluster's creation, NCCL over a job's nodes (usecases/diagnostics.py).
Each reads AWS and Kubernetes and answers findings with evidence and suggested commands; none of them
changes anything."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.common import K8sName
from launchpod.contracts.hyperpod import HyperPodInstanceType
from launchpod.contracts.incidents import DiagnosisView
from launchpod.contracts.nodes import NodeId
from launchpod.entrypoints.api.routing import ClusterPath, older_spelling, one_spelling, route
from launchpod.usecases import diagnostics

router = APIGatewayRouter()


@route(router, "diagnose_node")
def diagnose_node(name: ClusterPath, nodeId: Annotated[NodeId, Path()]) -> DiagnosisView:
    return diagnostics.node(name, nodeId, ports=diagnostics.real())


@route(router, "diagnose_cluster_creation")
def diagnose_cluster_creation(
    name: ClusterPath, instanceTypes: Annotated[list[HyperPodInstanceType] | None, Query(max_length=10)] = None
) -> DiagnosisView:
    return diagnostics.cluster_creation(name, instanceTypes, ports=diagnostics.real())


@route(router, "diagnose_nccl")
def diagnose_nccl(
    name: ClusterPath,
    jobName: Annotated[K8sName | None, Query()] = None,
    job: Annotated[K8sName | None, older_spelling("jobName")] = None,
    namespace: Annotated[K8sName | None, Query()] = None,
) -> DiagnosisView:
    job_name = one_spelling("jobName", jobName, "job", job)
    return diagnostics.nccl(name, job_name, ports=diagnostics.real(), namespace=namespace)
