"""StartClusterHealthCheck for the sandbox's HyperPod (moto has none).

AWS (API reference, StartClusterHealthCheck; developer guide, "Deep health checks"): deep health checks
run on demand on whole instance groups or on the instances named; each instance is
``DeepHealthCheckInProgress`` (Kubernetes label ``deep-health-check-status: InProgress``, node
``Unschedulable``) while they run, then ``Running`` when they pass, or ``Failure`` (HyperPod then
replaces the node when node recovery is Automatic) when a fault injected with ``sandbox.aws.node_faults``
is one the check finds, or when the health-monitoring agent does not run on the node
(sandbox.aws.node_agents). The sandbox's checks take the
``deep_health_check`` duration (600 simulated seconds). Groups that do not exist, instances that are not in
the group and instances that are not Running are refused with ValidationException; a cluster that is not
InService with ConflictException (the message is ours: AWS does not document its wording).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from moto.core.responses import ActionResult
from moto.sagemaker.models import SageMakerModelBackend
from moto.sagemaker.responses import SageMakerResponse

from sandbox.aws import node_agents, node_faults
from sandbox.aws import sagemaker as hp

#: ``fn(cluster, params)`` hooks run once a StartClusterHealthCheck request has started its checks
#: (``sandbox.aws.hyperpod_operations`` records the DeepHealthCheck operation).
HEALTH_CHECK_OBSERVERS: list[Callable[[hp.HyperPodCluster, dict[str, Any]], None]] = []


def start_cluster_health_check(backend: SageMakerModelBackend, params: dict[str, Any]) -> hp.HyperPodCluster:
    cluster = hp.find_cluster(backend, params["ClusterName"])
    hp.require_in_service(cluster, "start deep health checks on")
    chosen: list[tuple[hp.HyperPodNode, list[str]]] = []
    for config in params.get("DeepHealthCheckConfigurations") or []:
        group = config.get("InstanceGroupName")
        if group not in cluster.groups:
            raise hp.invalid(f"Instance group {group} does not exist in cluster {cluster.cluster_name}.")
        checks = list(config.get("DeepHealthChecks") or [])
        ids = config.get("InstanceIds") or [n.instance_id for n in hp.group_nodes(cluster, group)]
        for node_id in ids:
            node = cluster.nodes.get(node_id)
            if node is None or node.group != group:
                raise hp.invalid(f"Instance {node_id} is not in instance group {group}.")
            status, _ = node.state()
            if status != "Running":
                raise hp.invalid(f"Instance {node_id} is in {status} status; deep health checks need Running.")
            chosen.append((node, checks))
    for node, checks in chosen:
        node.deep_health_checks = checks
        # A faulty node fails the check that finds its fault (sandbox.aws.node_faults); a node without the
        # health-monitoring agent cannot run them (sandbox.aws.node_agents).
        failure = node_faults.failing_check(node.instance_id, checks)
        if not node_agents.runs_on(cluster.eks_cluster_name, f"{hp.NODE_PREFIX}{node.instance_id}"):
            failure = (
                f"Deep health checks could not run on instance {node.instance_id}: the HyperPod health-monitoring "
                "agent is not running on it. Install HyperPod's dependencies (Helm chart) on the EKS cluster."
            )
        node._restart(
            [
                hp.Phase(
                    "DeepHealthCheckInProgress",
                    hp.DURATIONS["deep_health_check"],
                    "Deep health checks in progress: " + ", ".join(checks),
                ),
                hp.Phase("Failure", math.inf, failure) if failure else hp.Phase("Running", math.inf),
            ],
            "health-check",
        )
        node.failed_at = None
        node.announced = 0
        # The first phase starts at once: announce it now rather than on the next boundary.
        cluster.event(
            "Instance",
            f"Deep health checks started on instance {node.instance_id}: {', '.join(checks)}.",
            group=node.group,
            instance_id=node.instance_id,
        )
    for observe in HEALTH_CHECK_OBSERVERS:
        observe(cluster, params)
    return cluster


def _respond(self: SageMakerResponse) -> ActionResult:
    def work(backend: SageMakerModelBackend) -> tuple[Any, list[str]]:
        cluster = start_cluster_health_check(backend, hp.request_params(self))
        return {"ClusterArn": cluster.arn}, hp.eks_of(cluster)

    return hp.run_response(self, work)


def install() -> None:
    SageMakerResponse.start_cluster_health_check = _respond  # type: ignore[attr-defined]
