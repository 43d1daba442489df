"""Clusters as Launchpod knows them: listed and read with their status from AWS (not only our table),
imported, and deleted (only what Launchpod created). Creating one is provisioning's (POST /api/clusters)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from launchpod.contracts.clusters import (
    ClusterListView,
    ClusterView,
    DeleteClusterInput,
    DeleteHyperPodInput,
    ImportClusterRequest,
)
from launchpod.contracts.operations import OperationView
from launchpod.domain import mlflow
from launchpod.domain import operations as ops
from launchpod.domain.clusters import hyperpod, imports, plans, teardown
from launchpod.domain.clusters.cluster_record import ClusterRecord
from launchpod.domain.clusters.views import cluster_view
from launchpod.domain.concurrency import ContextPool
from launchpod.domain.errors import NotFound
from launchpod.domain.plan import Plan, Step
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.ports import ClusterRegistry, EksClusters, HyperPods, TrackingServers
from launchpod.usecases.proposal import Proposal


@dataclass(frozen=True)
class ClusterPorts:
    region: str
    clusters: ClusterRegistry
    operations: ops.OperationStore
    workflows: ops.WorkflowRunner
    eks: EksClusters
    sagemaker: HyperPods
    mlflow: TrackingServers
    prefix: str = "launchpod"


def real() -> ClusterPorts:
    """The deployed adapters (runtime.wiring)."""
    return ClusterPorts(
        region=settings().region,
        clusters=wiring.clusters(),
        operations=wiring.operations(),
        workflows=wiring.workflows(),
        eks=wiring.eks(),
        sagemaker=wiring.sagemaker(),
        mlflow=wiring.mlflow(),
        prefix=settings().resource_prefix,
    )


def _unknown(name: str) -> NotFound:
    return NotFound(f"Cluster {name} is not known to Launchpod and EKS has no cluster by that name.")


def _view(
    name: str, record: ClusterRecord | None, ports: ClusterPorts, *, in_eks: bool = True, in_sagemaker: bool = True
) -> ClusterView:
    """The cluster's view; ``in_eks``/``in_sagemaker`` False when that service's list has just shown it has no
    cluster by the name, so there is nothing to describe."""
    eks = ports.eks.cluster(name) if in_eks else None
    addons = ports.eks.addons(name) if eks and eks.status == "ACTIVE" else {}
    hp = ports.sagemaker.hyperpod_cluster(name) if in_sagemaker else None
    return cluster_view(name, wiring.region(), record, eks, addons, hp)


# How many clusters of a page are read from AWS at once: botocore's connection pool holds 10 connections
# per client by default (max_pool_connections, "Config Reference", botocore documentation), and the
# EKS and SageMaker clients each have their own.
READERS = 10


def list_clusters(limit: int, cursor: str | None, *, ports: ClusterPorts) -> ClusterListView:
    """A page of the registry, each cluster's status read from EKS and HyperPod.

    Which of the page's clusters EKS and SageMaker have comes first, from one ListClusters of each service per
    Region of the page (every page of it; EKS's answer names its clusters, SageMaker's summary lacks node
    recovery and a failure's message): only those are described. A cluster's status is then two reads (EKS's
    and SageMaker's DescribeCluster) and, once ACTIVE, one more per add-on; each waits tens of milliseconds on
    AWS, so a page of 50 read one cluster after another waits seconds. The lists and then the clusters are
    read side by side (boto3's clients are thread safe, "Multithreading or multiprocessing with clients",
    boto3 documentation); the page keeps the registry's order. A cluster deleted between its list and its
    describe reads as gone, as it would a moment later."""
    records, token = ports.clusters.page(limit=limit, cursor=cursor)
    regions = list(dict.fromkeys(record.region for record in records))

    def listed(region: str, names: Callable[[], Collection[str]]) -> frozenset[str]:
        with wiring.in_region(region):
            return frozenset(names())

    with ContextPool(max_workers=max(1, min(READERS, 2 * len(regions))), thread_name_prefix="cluster") as pool:
        eks = {r: pool.submit(listed, r, ports.eks.cluster_names) for r in regions}
        sagemaker = {r: pool.submit(listed, r, ports.sagemaker.hyperpod_names) for r in regions}
        in_eks = {r: found.result() for r, found in eks.items()}
        in_sagemaker = {r: found.result() for r, found in sagemaker.items()}

    def read(record: ClusterRecord) -> ClusterView:
        name, region = record.name, record.region
        with wiring.in_region(region):  # each cluster is read in its own Region
            return _view(name, record, ports, in_eks=name in in_eks[region], in_sagemaker=name in in_sagemaker[region])

    with ContextPool(max_workers=max(1, min(READERS, len(records))), thread_name_prefix="cluster") as pool:
        items = list(pool.map(read, records))
    return ClusterListView(items=items, nextToken=token)


def get_cluster(name: str, *, ports: ClusterPorts) -> ClusterView:
    """One cluster, known to Launchpod or only to EKS (404 when neither has it)."""
    record = ports.clusters.get(name)
    view = _view(name, record, ports)
    if record is None and view.eks.status == "NOT_FOUND":
        raise _unknown(name)
    return view


def delete_cluster(request: DeleteClusterInput, who: ops.Principal, *, ports: ClusterPorts) -> Proposal:
    """delete-cluster's phases, each removing only what Launchpod created; the name must be confirmed."""
    teardown.check_confirmation(request)
    record, eks = ports.clusters.get(request.name), ports.eks.cluster(request.name)
    if record is None and eks is None:
        raise _unknown(request.name)
    hp = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(request.name))
    names = mlflow.teardown_names(record, ports.prefix, request.name)
    servers = [n for n in names if ports.mlflow.describe(n) is not None]
    found = Plan(request.name, teardown.steps(request.name, eks, hp, servers))

    def start() -> OperationView:
        workflow = replace(teardown.plan(request), steps=found.views())
        return ops.submit(ports.operations, ports.workflows, workflow, who)[0]

    return Proposal(found, start)


def delete_hyperpod(request: DeleteHyperPodInput, who: ops.Principal, *, ports: ClusterPorts) -> Proposal:
    """Only the HyperPod cluster, as SageMaker has it now (404 when there is none); the name must be confirmed.
    The phase deletes it only when Launchpod's registry records creating it, as delete-cluster does."""
    teardown.check_hyperpod_confirmation(request)
    name = request.name
    if ports.clusters.get(name) is None and ports.eks.cluster(name) is None:
        raise _unknown(name)
    found = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(name))
    if found is None:
        raise NotFound(f"{name} has no HyperPod cluster to delete; its EKS control plane is left as it is.")
    status = found.status
    why = found.failure_message if status == "Failed" else None
    groups = found.instance_groups
    nodes = sum(g.current_count for g in groups)
    reason = f"it failed: {why}" if why else f"asked; its {nodes} node(s) and the pods on them go"
    warnings = (
        (f"{nodes} node(s) in {len(groups)} instance group(s) are deleted with it, with every pod running on them.",)
        if nodes
        else ()
    )
    step = Step("delete", f"HyperPod cluster {name} ({status})", reason, "DeleteHyperPod")
    planned = Plan(name, (step,), warnings)

    def start() -> OperationView:
        workflow = replace(teardown.hyperpod_plan(request), steps=planned.views())
        return ops.submit(ports.operations, ports.workflows, workflow, who)[0]

    return Proposal(planned, start)


def import_cluster(request: ImportClusterRequest, who: ops.Principal, *, ports: ClusterPorts) -> Proposal:
    """An existing EKS cluster made known to Launchpod (NOOP when it already is, and settled)."""
    record = ports.clusters.get(request.cluster)
    if record is not None and not record.locked_by:
        found = Plan(request.cluster, ())
    else:
        imports.check_importable(request.cluster, ports.eks.cluster(request.cluster))
        found = Plan(
            request.cluster, tuple(plans.workflow_steps(imports.PHASES, f"Launchpod does not know {request.cluster}"))
        )

    def start() -> OperationView:
        workflow = replace(imports.plan(request), steps=found.views())
        return ops.submit(ports.operations, ports.workflows, workflow, who)[0]

    return Proposal(found, start, noop=f"Cluster {request.cluster} is already known to Launchpod; no changes.")
