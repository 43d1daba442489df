"""Read-only diagnostics: a node, a cluster's creation, NCCL over a job's nodes. Each reads AWS and
Kubernetes and answers findings with evidence and suggested commands; none of them changes anything."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import listing
from launchpod.contracts.common import ClusterName
from launchpod.contracts.hyperpod import HyperPodInstanceType
from launchpod.contracts.incidents import DiagnosisView
from launchpod.contracts.nodes import NodeId
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.instance_types import to_ec2, to_sagemaker
from launchpod.domain.errors import LaunchpodError
from launchpod.domain.instance_groups import preflight
from launchpod.domain.nodes import diagnosis, ladder, views
from launchpod.entrypoints.api.routing import route
from launchpod.runtime import wiring
from launchpod.usecases import nodes as node_cases
from launchpod.usecases.incidents import now

router = APIGatewayRouter()


def _events(name: str, **filters: Any) -> list[dict[str, Any]]:
    """HyperPod's events (newest first), with details; [] where AWS does not keep them for this cluster."""
    sm, cluster = wiring.sagemaker(), hyperpod.hyperpod_name(name)
    try:
        page = sm.list_events(cluster, {**filters, "SortOrder": "Descending"}, 50, None)
    except LaunchpodError:
        return []
    out = []
    for summary in page.get("Events", []):
        detail = sm.describe_event(cluster, summary["EventId"]) if summary.get("EventLevel") != "Info" else None
        out.append(views.event_view(summary, detail))
    return out


def _incidents(name: str) -> list[dict[str, Any]]:
    doc, _ = wiring.incidents().get(name)
    at = now()
    return [ladder.view(i, at) for i in doc["incidents"]]


@route(router, "diagnose_node")
def diagnose_node(name: Annotated[ClusterName, Path()], nodeId: Annotated[NodeId, Path()]) -> DiagnosisView:
    detail = node_cases.get_node(name, nodeId, ports=node_cases.real()).model_dump(mode="json")
    incident = next((i for i in _incidents(name) if nodeId in i["nodes"]), None)
    found = diagnosis.node(
        name, nodeId, detail, detail["conditions"], detail["events"], _events(name, NodeId=nodeId), incident
    )
    return DiagnosisView(**found)


@route(router, "diagnose_cluster_creation")
def diagnose_cluster_creation(
    name: Annotated[ClusterName, Path()],
    instanceTypes: Annotated[list[HyperPodInstanceType] | None, Query(max_length=10)] = None,
) -> DiagnosisView:
    described = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    operations = [
        o.model_dump(mode="json")
        for o in wiring.operations().list(target=name, status=None, limit=20)
        if o.kind in ("create-hyperpod", "provision-cluster", "create-control-plane")
    ]
    types = instanceTypes or sorted(
        {g.get("InstanceType") for g in (described or {}).get("InstanceGroups", []) if g.get("InstanceType")}
    )
    offered = (
        {to_sagemaker(k): v for k, v in wiring.ec2().offerings([to_ec2(t) for t in types]).items()} if types else {}
    )
    zones = [z["name"] for z in wiring.ec2().zones()]
    events = _events(name) if described else []
    where = {t: offered.get(t, []) for t in types}
    found = diagnosis.creation(name, described, operations, events, where, zones, _quotas(name, described, types))
    return DiagnosisView(**found)


def _quotas(name: str, described: dict[str, Any] | None, types: list[str]) -> dict[str, tuple[float, int, int]] | None:
    """Per type: the cluster-usage quota, what the account's other clusters ask for, what this one asks for."""
    if not types:
        return {}
    try:
        quotas = wiring.service_quotas().sagemaker_quotas({preflight.quota_name(t) for t in types})
        clusters = wiring.sagemaker().hyperpod_clusters() if quotas else []
        standing = preflight.standing(quotas, clusters, hyperpod.hyperpod_name(name), types)
        groups = (described or {}).get("InstanceGroups", [])
        return {
            t: (
                float(quota.get("Value", 0)),
                used,
                sum(int(g.get("TargetCount") or 0) for g in groups if g.get("InstanceType") == t),
            )
            for t, (quota, used) in standing.items()
        }
    except LaunchpodError:
        return None


@route(router, "diagnose_nccl")
def diagnose_nccl(
    name: Annotated[ClusterName, Path()],
    job: Annotated[str | None, Query(max_length=63, pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")] = None,
) -> DiagnosisView:
    node_list = node_cases.list_nodes(name, ports=node_cases.real()).model_dump(mode="json")["items"]
    try:
        kube = views.by_instance(listing.items(name, "Node"))
        pods = listing.items(name, "Pod") if job else []
    except LaunchpodError:
        kube, pods = {}, []
    mine = diagnosis.job_pods(pods, job) if job else []
    logs = {
        p["metadata"]["name"]: listing.pod_log(name, p["metadata"]["namespace"], p["metadata"]["name"])
        for p in mine[:16]
    }
    found = diagnosis.nccl(name, job, node_list, kube, mine, logs, _incidents(name))
    return DiagnosisView(**found)
