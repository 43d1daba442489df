"""Read-only diagnostics: a node, a cluster's creation, NCCL over a job's nodes. Each reads AWS and
Kubernetes and answers findings with evidence and suggested commands (domain/nodes/diagnosis.py); none
of them changes anything. The ports are only the calls made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from launchpod.contracts.incidents import DiagnosisView
from launchpod.contracts.operations import OperationView
from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.clusters.instance_types import to_ec2, to_sagemaker
from launchpod.domain.errors import LaunchpodError
from launchpod.domain.instance_groups import preflight
from launchpod.domain.nodes import diagnosis, views
from launchpod.domain.nodes.hyperpod_event import EventFilter
from launchpod.domain.quotas import Quota
from launchpod.runtime import wiring
from launchpod.usecases import incidents, nodes
from launchpod.usecases.ports import HyperPodNodes


class HyperPodFleet(HyperPodNodes, Protocol):
    """SageMaker's HyperPod clusters of the account, each described (adapters.aws.sagemaker)."""

    def hyperpod_clusters(self) -> list[HyperPodCluster]: ...


class Offerings(Protocol):
    """EC2's availability zones and the zones offering each instance type (adapters.aws.ec2)."""

    def zones(self) -> list[dict[str, str]]: ...
    def offerings(self, instance_types: list[str], zone: str | None = None) -> dict[str, list[str]]: ...


class SageMakerQuotas(Protocol):
    """Service Quotas' applied SageMaker quotas by name (adapters.aws.service_quotas)."""

    def sagemaker_quotas(self, names: set[str]) -> dict[str, Quota]: ...


class OperationList(Protocol):
    """The operations table's newest operations of a target (adapters.store.operations)."""

    def list(self, *, target: str | None, status: str | None, limit: int) -> list[OperationView]: ...


class PodLogs(Protocol):
    """The tail of a pod's container's log, "" when it has none or cannot be read (adapters.k8s.listing.pod_log)."""

    def __call__(self, cluster: str, namespace: str, pod: str, container: str) -> str: ...


@dataclass(frozen=True)
class DiagnosisPorts:
    nodes: nodes.NodePorts
    incidents: incidents.IncidentPorts
    sagemaker: HyperPodFleet
    ec2: Offerings
    quotas: SageMakerQuotas
    operations: OperationList
    pod_log: PodLogs


def real() -> DiagnosisPorts:
    """The deployed adapters (runtime.wiring)."""
    return DiagnosisPorts(
        nodes=nodes.real(),
        incidents=incidents.real(),
        sagemaker=wiring.sagemaker(),
        ec2=wiring.ec2(),
        quotas=wiring.service_quotas(),
        operations=wiring.operations(),
        pod_log=wiring.kube_listing().pod_log,
    )


def _events(name: str, ports: DiagnosisPorts, filters: EventFilter) -> list[dict[str, Any]]:
    """HyperPod's events (newest first), with details; [] where AWS does not keep them for this cluster."""
    sm, cluster = ports.sagemaker, hyperpod.hyperpod_name(name)
    try:
        if not hyperpod.keeps_events(sm.hyperpod_cluster(cluster)):
            return []
        page = sm.list_events(cluster, filters, 50, None)
    except LaunchpodError:
        return []
    out = []
    for summary in page.events:
        detail = sm.describe_event(cluster, summary.event_id) if summary.level != "Info" else None
        out.append(views.event_view(summary, detail))
    return out


def node(name: str, node_id: str, *, ports: DiagnosisPorts) -> DiagnosisView:
    """One node: SageMaker's and Kubernetes' view of it, HyperPod's events of it and its open incident."""
    detail = nodes.get_node(name, node_id, ports=ports.nodes).model_dump(mode="json")
    incident = next((i for i in incidents.incident_views(name, ports=ports.incidents) if node_id in i["nodes"]), None)
    events = _events(name, ports, EventFilter(node_id=node_id))
    found = diagnosis.node(name, node_id, detail, detail["conditions"], detail["events"], events, incident)
    return DiagnosisView(**found)


def cluster_creation(name: str, instance_types: list[str] | None, *, ports: DiagnosisPorts) -> DiagnosisView:
    """Why a cluster's creation failed or waits: its operations, HyperPod's events, where the instance types
    are offered and the account's quotas for them (``instance_types``: default, the cluster's own)."""
    described = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name))
    operations = [
        o.model_dump(mode="json")
        for o in ports.operations.list(target=name, status=None, limit=20)
        if o.kind in ("create-hyperpod", "provision-cluster", "create-control-plane")
    ]
    types = instance_types or sorted(
        {g.instance_type for g in (described.instance_groups if described else ()) if g.instance_type}
    )
    offered = {to_sagemaker(k): v for k, v in ports.ec2.offerings([to_ec2(t) for t in types]).items()} if types else {}
    zones = [z["name"] for z in ports.ec2.zones()]
    events = _events(name, ports, EventFilter()) if described else []
    where = {t: offered.get(t, []) for t in types}
    found = diagnosis.creation(
        name, described, operations, events, where, zones, _quotas(name, described, types, ports)
    )
    return DiagnosisView(**found)


def _quotas(
    name: str, described: HyperPodCluster | None, types: list[str], ports: DiagnosisPorts
) -> dict[str, tuple[float, int, int]] | None:
    """Per type: the cluster-usage quota, what the account's other clusters ask for, what this one asks for."""
    if not types:
        return {}
    try:
        quotas = ports.quotas.sagemaker_quotas({preflight.quota_name(t) for t in types})
        clusters = ports.sagemaker.hyperpod_clusters() if quotas else []
        standing = preflight.standing(quotas, clusters, hyperpod.hyperpod_name(name), types)
        groups = described.instance_groups if described else ()
        return {
            t: (quota.value, used, sum(g.target_count for g in groups if g.instance_type == t))
            for t, (quota, used) in standing.items()
        }
    except LaunchpodError:
        return None


def _pod_log(cluster: str, pod: dict[str, Any], read: PodLogs) -> str:
    """Every container's lines (a sidecar beside the trainer, say): NCCL's errors may be in any of them."""
    meta = pod["metadata"]
    names = [str(c.get("name")) for c in (pod.get("spec") or {}).get("containers") or []]
    return "\n".join(t for t in (read(cluster, meta["namespace"], meta["name"], c) for c in names) if t)


def nccl(name: str, job: str | None, *, ports: DiagnosisPorts, namespace: str | None = None) -> DiagnosisView:
    """NCCL over a job's nodes: the nodes, the job's pods (with the last lines of up to 16 logs), incidents. With
    ``namespace``, only that namespace's pods: two teams may each run a job of the same name."""
    node_list = nodes.list_nodes(name, ports=ports.nodes).model_dump(mode="json")["items"]
    try:
        kube = views.by_instance(ports.nodes.kube(name, "Node"))
        pods = ports.nodes.kube(name, "Pod") if job else []
        if namespace:
            pods = [p for p in pods if p["metadata"].get("namespace") == namespace]
    except LaunchpodError:
        kube, pods = {}, []
    mine = diagnosis.job_pods(pods, job) if job else []
    logs = {p["metadata"]["name"]: _pod_log(name, p, ports.pod_log) for p in mine[:16]}
    found = diagnosis.nccl(
        name, job, node_list, kube, mine, logs, incidents.incident_views(name, ports=ports.incidents)
    )
    return DiagnosisView(**found)
