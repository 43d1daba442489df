"""StartClusterHealthCheck for the sandbox's HyperPod (moto has none).

AWS (API reference, StartClusterHealthCheck; developer guide, "Deep health checks"): deep health checks
run on demand on whole instance groups or on the instances named; each instance is
``DeepHealthCheckInProgress`` (Kubernetes label ``deep-health-check-status: InProgress``, node
``Unschedulable``) while they run, then ``Running`` when they pass, or ``Failure`` (HyperPod then
replaces the node when node recovery is Automatic) when a fault injected with ``sandbox.aws.sagemaker.node_faults``
is one the check finds, or when the health-monitoring agent does not run on the node
(sandbox.aws.sagemaker.node_agents). The sandbox's checks take the
``deep_health_check`` duration (600 simulated seconds). Groups that do not exist, instances that are not in
the group and instances that are not Running are refused with ValidationException; a cluster that is not
InService with ConflictException (the message is ours: AWS does not document its wording).
"""

from __future__ import annotations

import math
from typing import Any

from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws.sagemaker import health_agent, node_agents, operations
from sandbox.aws.sagemaker.clusters import find_cluster, require_in_service
from sandbox.aws.sagemaker.common import NODE_PREFIX, invalid
from sandbox.aws.sagemaker.durations import durations
from sandbox.aws.sagemaker.models import HyperPodCluster, HyperPodNode, Phase, group_nodes


def start_cluster_health_check(backend: SageMakerModelBackend, params: dict[str, Any]) -> HyperPodCluster:
    cluster = find_cluster(backend, params["ClusterName"])
    require_in_service(cluster, "start deep health checks on")
    chosen: list[tuple[HyperPodNode, list[str]]] = []
    for config in params.get("DeepHealthCheckConfigurations") or []:
        group = config.get("InstanceGroupName")
        if group not in cluster.groups:
            raise invalid(f"Instance group {group} does not exist in cluster {cluster.cluster_name}.")
        checks = list(config.get("DeepHealthChecks") or [])
        ids = config.get("InstanceIds") or [n.instance_id for n in group_nodes(cluster, group)]
        for node_id in ids:
            node = cluster.nodes.get(node_id)
            if node is None or node.group != group:
                raise invalid(f"Instance {node_id} is not in instance group {group}.")
            status, _ = node.state()
            if status != "Running":
                raise invalid(f"Instance {node_id} is in {status} status; deep health checks need Running.")
            chosen.append((node, checks))
    for node, checks in chosen:
        node.deep_health_checks = checks
        # A faulty node fails the check that finds its fault (sandbox.aws.sagemaker.health_agent); a node without the
        # health-monitoring agent cannot run them (sandbox.aws.sagemaker.node_agents).
        failure = health_agent.failing_check(node.instance_id, checks)
        if not node_agents.runs_on(cluster.eks_cluster_name, f"{NODE_PREFIX}{node.instance_id}"):
            failure = (
                f"Deep health checks could not run on instance {node.instance_id}: the HyperPod health-monitoring "
                "agent is not running on it. Install HyperPod's dependencies (Helm chart) on the EKS cluster."
            )
        node._restart(
            [
                Phase(
                    "DeepHealthCheckInProgress",
                    durations()["deep_health_check"],
                    "Deep health checks in progress: " + ", ".join(checks),
                ),
                Phase("Failure", math.inf, failure) if failure else Phase("Running", math.inf),
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
    operations.record_health_check(cluster, params)  # one DeepHealthCheck operation
    return cluster
